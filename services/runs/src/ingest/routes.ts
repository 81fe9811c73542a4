/**
 * The `ingest` family on the service's internal HTTP port. The gateway authenticates, authorizes and
 * rate-limits, then streams the request body here (reports up to INGEST_BODY_LIMIT_BYTES); the service kit
 * accepts a call only with the internal token and hands over the caller as `request.principal`. Answers are
 * the bare `data` (the gateway wraps it) or the error envelope.
 *
 * Each body is spooled first (./spool.ts: memory up to 1 MiB, a temp file beyond), then JSON reports and result
 * batches are parsed as streams (./stream.ts) while their tests are written; JUnit XML is parsed whole, one
 * large document at a time per process. A call under an Idempotency-Key (the gateway's header) has its body
 * fingerprinted as it is spooled, and its write recorded with its answer (./call.ts).
 */
import os from 'node:os';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { AppError, isAppError, toEnvelope, fromConnectError } from '@assay/errors';
import { fromDatabaseError } from '@assay/db';
import type { Principal } from '@assay/service-kit';
import type { JUnitQueryValue } from '@assay/contracts/runs/ingest';
import { FINISH_STATUSES, oneOf, type FinishStatusName } from '@assay/contracts/runs/values';
import type { Wiring } from '../wiring';
import { keyedBody, type IngestCall } from './call';
import { Ingestion, type Shard } from './ingestion';
import { normalizeJUnit, normalizeMetadata, ReportError } from './normalize';
import { Slots, spoolBody, SPOOL_MEMORY_BYTES, type SpooledBody } from './spool';
import { readPlaywrightReport, readResultBatch, readTests } from './stream';

type Body = AsyncIterable<Buffer> | undefined;
interface ProjectRoute {
  Params: { projectId: string };
  Body: Body;
}
interface RunRoute {
  Params: { projectId: string; runId: string };
  Body: Body;
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

function requireJson(request: FastifyRequest): void {
  const type = mediaType(request);
  if (type !== 'application/json' && !type.endsWith('+json'))
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'Content-Type must be application/json');
}

/** A small JSON body (start, finish): parsed whole; these never need more than SPOOL_MEMORY_BYTES. */
async function smallJson(request: FastifyRequest, body: SpooledBody): Promise<unknown> {
  requireJson(request);
  if (body.size === 0) throw new ReportError('body', 'empty JSON body');
  if (body.large) throw new AppError('PAYLOAD_TOO_LARGE', `This body is limited to ${SPOOL_MEMORY_BYTES} bytes`);
  try {
    return JSON.parse(await body.text());
  } catch (err) {
    throw new ReportError('body', `malformed JSON (${(err as Error).message})`);
  }
}

/** JUnit needs no document type; a DOCTYPE only brings entities (expansion, external references): refused. */
const DOCTYPE = /<!DOCTYPE|<!ENTITY/i;

function onlyKeys(body: unknown, allowed: string[], path = 'body'): Record<string, unknown> {
  if (body === undefined) return {};
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new ReportError(path, 'must be an object');
  for (const k of Object.keys(body)) if (!allowed.includes(k)) throw new ReportError(`${path}.${k}`, `unknown property "${k}"`);
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

/** A CI build id: what names one build's run (printable, at most 200 characters). */
function optBuildId(v: unknown, path: string): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string' || v.trim() === '' || v.length > 200 || !/^[\x21-\x7e]+$/.test(v))
    throw new ReportError(path, 'must be 1–200 printable ASCII characters without spaces');
  return v;
}

/** `{current, total}`: 1 ≤ current ≤ total ≤ 1000. */
function optShard(v: unknown, path: string): Shard | undefined {
  if (v === undefined || v === null) return undefined;
  const o = onlyKeys(v, ['current', 'total'], path);
  const int = (x: unknown, p: string) => {
    if (typeof x !== 'number' || !Number.isInteger(x) || x < 1 || x > 1000) throw new ReportError(p, 'must be an integer from 1 to 1000');
    return x;
  };
  const current = int(o.current, `${path}.current`);
  const total = int(o.total, `${path}.total`);
  if (current > total) throw new ReportError(`${path}.current`, 'must not be greater than total');
  return { current, total };
}

export async function ingestRoutes(app: FastifyInstance, w: Wiring): Promise<void> {
  const ingestion = new Ingestion(w);
  const limit = w.config.INGEST_BODY_LIMIT_BYTES;
  const spoolOptions = { limit, dir: w.config.INGEST_SPOOL_DIR || os.tmpdir(), diskSlots: new Slots(w.config.INGEST_MAX_LARGE_UPLOADS) };
  // A large XML document is parsed whole (fast-xml-parser builds it in memory): one at a time per process.
  const xmlSlots = new Slots(1);
  const xml = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '@_',
    parseTagValue: false,
    parseAttributeValue: false,
    trimValues: false,
  });

  /** Spools the request's body, runs `fn` with it and the call (./call.ts), and removes the spool whatever happens. */
  async function withBody<T>(
    request: FastifyRequest<{ Body: Body }>,
    reply: FastifyReply,
    fn: (body: SpooledBody, call: IngestCall) => Promise<T>,
  ): Promise<T> {
    const keyed = keyedBody(request, reply, request.body ?? []);
    const body = await spoolBody(keyed.body, spoolOptions);
    const { call } = keyed;
    try {
      return await fn(body, call);
    } finally {
      await body.dispose();
    }
  }

  await app.register(async (scope) => {
    // Bodies arrive as the raw stream (any content type); the routes spool and parse them.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_req, payload, done) => done(null, payload));
    scope.setErrorHandler((err, _request, reply) => {
      const appErr = isAppError(err) ? err : (fromDatabaseError(err) ?? fromConnectError(err));
      if (appErr.reason === 'INTERNAL_ERROR') w.logger.error({ err }, 'ingestion failed');
      reply
        .code(appErr.httpStatus)
        .headers(appErr.headers ?? {})
        .send(toEnvelope(appErr));
    });

    scope.post<ProjectRoute>('/ingest/:projectId/runs', async (request, reply) => {
      const { json, call } = await withBody(request, reply, async (body, c) => ({ json: await smallJson(request, body), call: c }));
      const b = onlyKeys(json, ['metadata', 'totalTests', 'startTime', 'buildId', 'shard']);
      const totalTests = optCount(b.totalTests, 'body.totalTests');
      const { created, run } = await ingestion.open(
        request.params.projectId,
        callerOf(request),
        {
          metadata: normalizeMetadata(b.metadata),
          totalTests,
          startTime: optDate(b.startTime, 'body.startTime'),
          buildId: optBuildId(b.buildId, 'body.buildId'),
          shard: optShard(b.shard, 'body.shard'),
        },
        call,
      );
      reply.code(created ? 201 : 200);
      return run;
    });

    scope.post<RunRoute>('/ingest/:projectId/runs/:runId/results', async (request, reply) => {
      const { projectId, runId } = request.params;
      callerOf(request);
      requireJson(request);
      return withBody(request, reply, (body, call) =>
        ingestion.results(
          projectId,
          runId,
          readResultBatch(() => body.chunks()),
          call,
        ),
      );
    });

    scope.post<RunRoute>('/ingest/:projectId/runs/:runId/finish', async (request, reply) => {
      const { projectId, runId } = request.params;
      const { b, call } = await withBody(request, reply, async (body, c) => ({
        b: body.size > 0 ? onlyKeys(await smallJson(request, body), ['status', 'endTime', 'shard']) : {},
        call: c,
      }));
      return ingestion.finish(
        projectId,
        runId,
        {
          status: optFinishStatus(b.status, 'body.status'),
          endTime: optDate(b.endTime, 'body.endTime'),
          shard: optShard(b.shard, 'body.shard'),
        },
        call,
      );
    });

    for (const [path, source, status] of [
      ['/ingest/:projectId/playwright', 'playwright', 201],
      ['/ingest/:projectId/compat/playwright', 'compat', 200],
    ] as const) {
      scope.post<ProjectRoute>(path, async (request, reply) => {
        requireJson(request);
        const caller = callerOf(request);
        const answer = await withBody(request, reply, (body, call) =>
          ingestion.oneShot(
            request.params.projectId,
            caller,
            source,
            readPlaywrightReport(() => body.chunks()),
            call,
          ),
        );
        // Blobs of compatibility uploads (tdpw --upload-*) that the report names by URL: linked to this run.
        if (source === 'compat') await w.artifacts.linkUploads(request.params.projectId, answer.runId);
        reply.code(status);
        return answer;
      });
    }

    scope.post<JUnitRoute>('/ingest/:projectId/junit', async (request, reply) => {
      const type = mediaType(request);
      if (type !== 'application/xml' && type !== 'text/xml')
        throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'Content-Type must be application/xml');
      const caller = callerOf(request);
      const { tests, call } = await withBody(request, reply, async (body, c) => {
        if (body.large) await xmlSlots.take();
        try {
          const text = await body.text();
          if (text.trim().length === 0) throw new ReportError('body', 'empty XML body');
          if (DOCTYPE.test(text)) throw new ReportError('body', 'must not declare a DOCTYPE or entities (JUnit XML needs none)');
          const valid = XMLValidator.validate(text);
          if (valid !== true)
            throw new ReportError('body', `malformed XML at line ${valid.err.line}, column ${valid.err.col}: ${valid.err.msg}`);
          return { tests: normalizeJUnit(xml.parse(text)), call: c };
        } finally {
          if (body.large) xmlSlots.release();
        }
      });
      const q = request.query;
      const metadata = normalizeMetadata({
        git: { branch: q.branch, commit: { hash: q.commit, message: q.commitMessage, author: q.author } },
        environment: q.environment,
        tags: q.tags,
      });
      const answer = await ingestion.oneShot(request.params.projectId, caller, 'junit', readTests(tests, { metadata, errors: [] }), call);
      reply.code(201);
      return answer;
    });

    scope.get<{ Params: { projectId: string } }>('/ingest/:projectId/skip-list', async (request) => {
      callerOf(request);
      return ingestion.skipList(request.params.projectId);
    });
  });
}
