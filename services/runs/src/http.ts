/**
 * Ingestion endpoints on the service's internal HTTP port. The gateway authenticates, authorizes and
 * rate-limits, then streams the request body here (reports up to INGEST_BODY_LIMIT_BYTES); the service kit
 * accepts a call only with the internal token and hands over the caller as `request.principal`. Answers are
 * the bare `data` (the gateway wraps it) or the error envelope.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { AppError, isAppError, toEnvelope, fromConnectError } from '@assay/errors';
import { fromDatabaseError } from '@assay/db';
import type { Principal } from '@assay/service-kit';
import type { Wiring } from './wiring';
import { Ingestion } from './ingest/service';
import { normalizeJUnit, normalizeMetadata, normalizePlaywrightReport, normalizeResultBatch, ReportError } from './ingest/normalize';
import { skipList } from './handlers/rules';

type Params = { projectId: string; runId?: string };

function callerOf(request: FastifyRequest): Principal {
  const p = request.principal;
  if (!p) throw new AppError('UNAUTHORIZED', 'missing caller principal');
  return p;
}

function mediaType(request: FastifyRequest): string {
  return String(request.headers['content-type'] ?? '')
    .split(';')[0]!
    .trim()
    .toLowerCase();
}

function jsonBody(request: FastifyRequest): unknown {
  const type = mediaType(request);
  if (type !== 'application/json' && !type.endsWith('+json'))
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'Content-Type must be application/json');
  const buf = request.body as Buffer | undefined;
  if (!buf || buf.length === 0) throw new ReportError('body', 'empty JSON body');
  try {
    return JSON.parse(buf.toString('utf8'));
  } catch (err) {
    throw new ReportError('body', `malformed JSON (${(err as Error).message})`);
  }
}

function onlyKeys(body: unknown, allowed: string[]): Record<string, unknown> {
  if (body === undefined) return {};
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new ReportError('body', 'must be an object');
  for (const k of Object.keys(body)) if (!allowed.includes(k)) throw new ReportError(`body.${k}`, `unknown property "${k}"`);
  return body as Record<string, unknown>;
}

function optDate(v: unknown, path: string): Date | undefined {
  if (v === undefined || v === null) return undefined;
  const d = typeof v === 'string' ? new Date(v) : undefined;
  if (!d || Number.isNaN(d.getTime())) throw new ReportError(path, 'must be a date-time (RFC 3339)');
  return d;
}

const FINISH_STATUSES = ['passed', 'failed', 'interrupted'] as const;

export async function ingestRoutes(app: FastifyInstance, rt: Wiring): Promise<void> {
  const ingestion = new Ingestion(rt);
  const limit = rt.config.INGEST_BODY_LIMIT_BYTES;
  const xml = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '@_',
    parseTagValue: false,
    parseAttributeValue: false,
    trimValues: false,
  });

  await app.register(async (scope) => {
    // Bodies are read as bytes (up to the ingestion limit) and parsed by the route: JSON or XML.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: limit }, (_req, body, done) => done(null, body));
    scope.setErrorHandler((err, _request, reply) => {
      const code = (err as { code?: string }).code;
      const appErr = isAppError(err)
        ? err
        : code === 'FST_ERR_CTP_BODY_TOO_LARGE'
          ? new AppError('PAYLOAD_TOO_LARGE', `Reports are limited to ${limit} bytes`)
          : (fromDatabaseError(err) ?? fromConnectError(err));
      if (appErr.reason === 'INTERNAL_ERROR') rt.logger.error({ err }, 'ingestion failed');
      reply
        .code(appErr.httpStatus)
        .headers(appErr.headers ?? {})
        .send(toEnvelope(appErr));
    });

    scope.post('/ingest/:projectId/runs', async (request, reply) => {
      const { projectId } = request.params as Params;
      const b = onlyKeys(jsonBody(request), ['metadata', 'totalTests', 'startTime']);
      const totalTests = b.totalTests;
      if (totalTests !== undefined && (typeof totalTests !== 'number' || !Number.isInteger(totalTests) || totalTests < 0))
        throw new ReportError('body.totalTests', 'must be a non-negative integer');
      const answer = await ingestion.start(projectId, callerOf(request), {
        metadata: normalizeMetadata(b.metadata),
        totalTests: totalTests as number | undefined,
        startTime: optDate(b.startTime, 'body.startTime'),
      });
      reply.code(201);
      return { runId: answer.runId, counter: answer.counter, url: answer.url, status: answer.status };
    });

    scope.post('/ingest/:projectId/runs/:runId/results', async (request) => {
      const { projectId, runId } = request.params as Params;
      const body = jsonBody(request);
      onlyKeys(body, ['results']);
      return ingestion.results(projectId, runId!, callerOf(request), normalizeResultBatch(body));
    });

    scope.post('/ingest/:projectId/runs/:runId/finish', async (request) => {
      const { projectId, runId } = request.params as Params;
      const raw = request.body as Buffer | undefined;
      const b = raw && raw.length > 0 ? onlyKeys(jsonBody(request), ['status', 'endTime']) : {};
      if (b.status !== undefined && !(FINISH_STATUSES as readonly unknown[]).includes(b.status))
        throw new ReportError('body.status', `must be one of ${FINISH_STATUSES.join(', ')}`);
      return ingestion.finish(projectId, runId!, {
        status: b.status as (typeof FINISH_STATUSES)[number] | undefined,
        endTime: optDate(b.endTime, 'body.endTime'),
      });
    });

    const playwright = (source: 'playwright' | 'compat') => async (request: FastifyRequest, reply: { code(n: number): unknown }) => {
      const { projectId } = request.params as Params;
      const report = normalizePlaywrightReport(jsonBody(request));
      const answer = await ingestion.oneShot(projectId, callerOf(request), source, report);
      reply.code(source === 'compat' ? 200 : 201);
      return answer;
    };
    scope.post('/ingest/:projectId/playwright', playwright('playwright'));
    scope.post('/ingest/:projectId/compat/playwright', playwright('compat'));

    scope.post('/ingest/:projectId/junit', async (request, reply) => {
      const { projectId } = request.params as Params;
      const type = mediaType(request);
      if (type !== 'application/xml' && type !== 'text/xml')
        throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'Content-Type must be application/xml');
      const text = ((request.body as Buffer | undefined) ?? Buffer.alloc(0)).toString('utf8');
      if (text.trim().length === 0) throw new ReportError('body', 'empty XML body');
      const valid = XMLValidator.validate(text);
      if (valid !== true)
        throw new ReportError('body', `malformed XML at line ${valid.err.line}, column ${valid.err.col}: ${valid.err.msg}`);
      const tests = normalizeJUnit(xml.parse(text));
      const q = request.query as Record<string, string | undefined>;
      const metadata = normalizeMetadata({
        git: { branch: q.branch, commit: { hash: q.commit, message: q.commitMessage, author: q.author } },
        environment: q.environment,
        tags: q.tags,
      });
      const answer = await ingestion.oneShot(projectId, callerOf(request), 'junit', { metadata, tests, errors: [] });
      reply.code(201);
      return answer;
    });

    scope.get('/ingest/:projectId/skip-list', async (request) => {
      const { projectId } = request.params as Params;
      callerOf(request);
      return skipList(rt, projectId);
    });
  });
}
