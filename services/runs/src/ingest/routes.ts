/**
 * The `ingest` family on the service's internal HTTP port. The gateway authenticates, authorizes and
 * rate-limits, then streams the request body here (reports up to INGEST_BODY_LIMIT_BYTES); the service kit
 * accepts a call only with the internal token and hands over the caller as `request.principal`. Answers are
 * the bare `data` (the gateway wraps it) or the error envelope.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { AppError, isAppError, toEnvelope, fromConnectError } from '@assay/errors';
import { fromDatabaseError } from '@assay/db';
import type { Principal } from '@assay/service-kit';
import type { JUnitQueryValue } from '@assay/contracts/runs/ingest';
import { FINISH_STATUSES, oneOf, type FinishStatusName } from '@assay/contracts/runs/values';
import type { Wiring } from '../wiring';
import { Ingestion } from './ingestion';
import { normalizeJUnit, normalizeMetadata, normalizePlaywrightReport, normalizeResultBatch, ReportError } from './normalize';

interface ProjectRoute {
  Params: { projectId: string };
  Body: Buffer | undefined;
}
interface RunRoute {
  Params: { projectId: string; runId: string };
  Body: Buffer | undefined;
}
interface JUnitRoute extends ProjectRoute {
  Querystring: JUnitQueryValue;
}

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

function jsonBody(request: FastifyRequest<{ Body: Buffer | undefined }>): unknown {
  const type = mediaType(request);
  if (type !== 'application/json' && !type.endsWith('+json'))
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'Content-Type must be application/json');
  const buf = request.body;
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

function optCount(v: unknown, path: string): number | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) throw new ReportError(path, 'must be a non-negative integer');
  return v;
}

function optFinishStatus(v: unknown, path: string): FinishStatusName | undefined {
  if (v === undefined) return undefined;
  if (!oneOf(FINISH_STATUSES, v)) throw new ReportError(path, `must be one of ${FINISH_STATUSES.join(', ')}`);
  return v;
}

export async function ingestRoutes(app: FastifyInstance, w: Wiring): Promise<void> {
  const ingestion = new Ingestion(w);
  const limit = w.config.INGEST_BODY_LIMIT_BYTES;
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
      if (appErr.reason === 'INTERNAL_ERROR') w.logger.error({ err }, 'ingestion failed');
      reply
        .code(appErr.httpStatus)
        .headers(appErr.headers ?? {})
        .send(toEnvelope(appErr));
    });

    scope.post<ProjectRoute>('/ingest/:projectId/runs', async (request, reply) => {
      const b = onlyKeys(jsonBody(request), ['metadata', 'totalTests', 'startTime']);
      const totalTests = optCount(b.totalTests, 'body.totalTests');
      const answer = await ingestion.start(request.params.projectId, callerOf(request), {
        metadata: normalizeMetadata(b.metadata),
        totalTests,
        startTime: optDate(b.startTime, 'body.startTime'),
      });
      reply.code(201);
      return answer;
    });

    scope.post<RunRoute>('/ingest/:projectId/runs/:runId/results', async (request) => {
      const { projectId, runId } = request.params;
      const body = jsonBody(request);
      onlyKeys(body, ['results']);
      callerOf(request);
      return ingestion.results(projectId, runId, normalizeResultBatch(body));
    });

    scope.post<RunRoute>('/ingest/:projectId/runs/:runId/finish', async (request) => {
      const { projectId, runId } = request.params;
      const raw = request.body;
      const b = raw && raw.length > 0 ? onlyKeys(jsonBody(request), ['status', 'endTime']) : {};
      return ingestion.finish(projectId, runId, {
        status: optFinishStatus(b.status, 'body.status'),
        endTime: optDate(b.endTime, 'body.endTime'),
      });
    });

    for (const [path, source, status] of [
      ['/ingest/:projectId/playwright', 'playwright', 201],
      ['/ingest/:projectId/compat/playwright', 'compat', 200],
    ] as const) {
      scope.post<ProjectRoute>(path, async (request, reply) => {
        const report = normalizePlaywrightReport(jsonBody(request));
        const answer = await ingestion.oneShot(request.params.projectId, callerOf(request), source, report);
        reply.code(status);
        return answer;
      });
    }

    scope.post<JUnitRoute>('/ingest/:projectId/junit', async (request, reply) => {
      const type = mediaType(request);
      if (type !== 'application/xml' && type !== 'text/xml')
        throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'Content-Type must be application/xml');
      const text = (request.body ?? Buffer.alloc(0)).toString('utf8');
      if (text.trim().length === 0) throw new ReportError('body', 'empty XML body');
      const valid = XMLValidator.validate(text);
      if (valid !== true)
        throw new ReportError('body', `malformed XML at line ${valid.err.line}, column ${valid.err.col}: ${valid.err.msg}`);
      const tests = normalizeJUnit(xml.parse(text));
      const q = request.query;
      const metadata = normalizeMetadata({
        git: { branch: q.branch, commit: { hash: q.commit, message: q.commitMessage, author: q.author } },
        environment: q.environment,
        tags: q.tags,
      });
      const answer = await ingestion.oneShot(request.params.projectId, callerOf(request), 'junit', { metadata, tests, errors: [] });
      reply.code(201);
      return answer;
    });

    scope.get<{ Params: { projectId: string } }>('/ingest/:projectId/skip-list', async (request) => {
      callerOf(request);
      return ingestion.skipList(request.params.projectId);
    });
  });
}
