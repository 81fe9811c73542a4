/**
 * The `ingest` family (CONTRACT §6): the ingestion API at /api/v1/ingest/{projectId}/… and the compatibility
 * upload `POST /api/reports/playwright` (`X-API-Key: trx_production_<hex>`). The gateway authenticates (a writer's
 * PAT or the project's api key), authorizes and rate-limits (`rateBucket: 'ingest'`), then STREAMS the body,
 * unparsed, to the runs service's internal HTTP port with the internal token and the caller principal; reports of
 * up to INGEST_BODY_LIMIT_BYTES never sit whole in the gateway. The call goes through `fetchFromService`
 * (service-http.ts, shared with the PDF downloads): ordinary routes, so auth hooks, rate buckets, 404/405
 * and OpenAPI apply.
 */
import { Transform } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '@assay/errors';
import { Ok } from '@assay/contracts/common/envelope';
import {
  AcceptedSchema,
  CompatAnswerSchema,
  IngestProjectParams,
  IngestRunParams,
  ingestedRunOf,
  JUnitQuery,
  RunAnswerSchema,
  serviceErrorOf,
  SkipListSchema,
  StartedSchema,
} from '@assay/contracts/runs/ingest';
import { usageToJson } from '@assay/contracts/runs/usage';
import { ArtifactSchema, AttachmentUploadQuery } from '@assay/contracts/runs/artifacts';
import type { Authenticator } from '../../auth/authenticator';
import { sendError } from '../../plugins/app/errors';
import { documentErrorResponses } from '../../plugins/app/error-responses';
import { INGEST_PREFIX } from '../../plugins/app/input-limits';
import { UploadWatchdog, watchdogOf } from '../../plugins/app/upload-progress';
import { fetchFromService, jsonOf, type ServiceAnswer } from '../service-http';
import { typed } from '../typed';

export { INGEST_PREFIX };
export const COMPAT_UPLOAD_PATH = '/api/reports/playwright';

export interface IngestOptions {
  authenticator: Authenticator;
  internalToken: string;
  bodyLimit: number;
  /** Largest artifact (ARTIFACT_MAX_FILE_BYTES): the limit of attachment and blob uploads. */
  artifactLimit: number;
  timeoutMs: number;
  /** How artifact uploads are bounded instead of by `timeoutMs` (plugins/app/upload-progress.ts). */
  upload: UploadTimeouts;
}

export interface UploadTimeouts {
  /** ARTIFACT_UPLOAD_IDLE_TIMEOUT_MS: longest time without progress. */
  idleMs: number;
  /** REQUEST_TIMEOUT_MS: how long the rest of a body refused early is read into nothing. */
  drainMs: number;
}

/** How large a body a route streams on, and what the 413 says. */
interface BodyLimit {
  bytes: number;
  what: string;
  /** An artifact upload: bounded by progress (these timeouts), not by a total time. */
  progress?: UploadTimeouts;
}

interface Forwarded {
  status: number;
  body: unknown;
}

const TAGS = ['Ingestion'];

/** Streams the request to the runs service's `/ingest/{projectId}{suffix}` and returns its JSON answer. */
async function forward(
  app: FastifyInstance,
  request: FastifyRequest,
  projectId: string,
  suffix: string,
  opts: IngestOptions,
  limit: BodyLimit = { bytes: opts.bodyLimit, what: 'Reports are' },
): Promise<Forwarded> {
  const res = await streamToService(request, `${app.services.runsHttpUrl}/ingest/${encodeURIComponent(projectId)}${suffix}`, opts, limit);
  return { status: res.status, body: await jsonOf(res) };
}

/**
 * Streams the request's body (counted against `limit`, never whole in memory) and query to a runs service URL;
 * answers the service's response. Bounded by `opts.timeoutMs` in total, or with `limit.progress` by progress.
 */
export async function streamToService(
  request: FastifyRequest,
  url: string,
  opts: Pick<IngestOptions, 'internalToken' | 'timeoutMs'>,
  limit: BodyLimit,
): Promise<ServiceAnswer> {
  const tooLargeError = () => new AppError('PAYLOAD_TOO_LARGE', `${limit.what} limited to ${limit.bytes} bytes`);
  const declared = Number(request.headers['content-length'] ?? 0);
  if (declared > limit.bytes) throw tooLargeError();
  let tooLarge = false;
  let body: Transform | undefined;
  const watchdog = limit.progress ? new UploadWatchdog(request.raw, limit.progress.idleMs, limit.progress.drainMs) : undefined;
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    let seen = 0;
    const limiter = new Transform({
      transform(chunk: Buffer, _enc, cb) {
        watchdog?.touch();
        seen += chunk.length;
        if (seen > limit.bytes) {
          tooLarge = true;
          cb(new Error('body over the limit'));
        } else {
          request.streamedBodyHash?.update(chunk); // fingerprint for Idempotency-Key (idempotency plugin)
          cb(null, chunk);
        }
      },
    });
    request.raw.on('error', (err) => limiter.destroy(err));
    // Piped with backpressure (fetchFromService): a slow service holds the client back, nothing piles up here.
    body = request.raw.pipe(limiter);
  }
  const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?')) : '';
  let res: ServiceAnswer;
  try {
    res = await fetchFromService(request, `${url}${query}`, {
      internalToken: opts.internalToken,
      timeoutMs: opts.timeoutMs,
      signal: watchdog?.signal,
      body,
      contentType: request.headers['content-type'],
      pass: ['content-length', 'x-ms-blob-type'],
    });
  } catch (err) {
    if (tooLarge) throw tooLargeError();
    if (watchdog?.stalled === 'client')
      throw new AppError('REQUEST_TIMEOUT', `No byte of the upload arrived for ${watchdog.idleMs / 1000} s`, {
        headers: { Connection: 'close' },
      });
    throw err;
  }
  // Its answer is progress too; reading it stays under the watchdog until the answer is sent.
  watchdog?.touch();
  // The service may answer (e.g. 404, 413) before it has read the whole body.
  if (tooLarge) throw tooLargeError();
  return res;
}

/** The service's answer: its error envelope as it is, or its data in the success envelope. */
function relay(reply: FastifyReply, f: Forwarded, okStatus?: number) {
  reply.type('application/json; charset=utf-8');
  if (f.status >= 400) return reply.code(f.status).send(f.body);
  return reply.code(okStatus ?? f.status).send({ success: true, data: f.body });
}

/**
 * Bodies stay unread: they stream to the service. An answer given before the whole body arrived (a 413, the
 * service's 404) must not leave the rest in the connection, where the client's next request would be read
 * after it (it then ended in 408): the rest is read into nothing, as Node does itself for a body nobody began
 * to read (closing instead would cut the client off mid-send, before it reads the answer).
 */
export function rawBodies(app: FastifyInstance) {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));
  app.addHook('onSend', async (request) => {
    const raw = request.raw;
    if (raw.complete || raw.readableEnded) return;
    raw.unpipe();
    raw.resume();
  });
  // An upload's watchdog hands what is left of its body to the usual bound (upload-progress.ts).
  app.addHook('onResponse', async (request) => watchdogOf(request.raw)?.answered());
}

export async function ingestApi(fastify: FastifyInstance, opts: IngestOptions) {
  rawBodies(fastify);
  fastify.addHook('onRoute', documentErrorResponses);
  const app = typed(fastify);
  const config = { auth: 'project' as const, access: 'ingest' as const, rateBucket: 'ingest' as const };
  const runPath = (runId: string, action: string) => `/runs/${encodeURIComponent(runId)}/${action}`;

  app.post(
    '/:projectId/runs',
    {
      config,
      schema: {
        tags: TAGS,
        summary: 'Start a run (streaming ingestion)',
        description:
          "Body `{metadata: {git: {branch, commit: {hash, message, author}}, environment, ci: {provider, pipelineId, buildUrl}, tags[]}, totalTests?, startTime?, buildId?, shard?: {current, total}}`. The run is `running`; RUN_STARTED is published (201). Shards of one CI build send the same `buildId`: the first start creates the build's run (201), later ones answer that same run (200, no new event); 409 `CONFLICT` when that run has already finished or its shard total differs.",
        params: IngestProjectParams,
        response: { 201: Ok(StartedSchema), 200: Ok(StartedSchema) },
      },
    },
    async (request, reply) => relay(reply, await forward(app, request, request.params.projectId, '/runs', opts)),
  );

  app.post(
    '/:projectId/runs/:runId/results',
    {
      config,
      schema: {
        tags: TAGS,
        summary: 'Append a batch of test results',
        description:
          "Body `{results: [...]}`, each item one attempt in Playwright's per-test shape (file, titlePath, projectName, status, duration, retry, errors, steps, attachments, annotations, tags). Idempotent per (test, retry). An item may carry `shard` (the shard of a sharded build that ran it). The answer lists the batch's tests that active quarantine rules cover (`quarantined`).",
        params: IngestRunParams,
        response: { 200: Ok(AcceptedSchema) },
      },
    },
    async (request, reply) => {
      const { projectId, runId } = request.params;
      return relay(reply, await forward(app, request, projectId, runPath(runId, 'results'), opts));
    },
  );

  app.post(
    '/:projectId/runs/:runId/artifacts',
    {
      config,
      schema: {
        tags: TAGS,
        summary: "Upload an attachment's bytes (screenshot, video, trace, file)",
        description:
          "The raw bytes of one attachment that the run's results name, streamed to storage (no multipart, no base64): the query names the test (`file`, `titlePath` once per element, `projectName`) and the attempt (`retry`) as in its results, and the attachment (`name`, and its `path` when names repeat). The attachment's content type comes from the results. Re-uploading replaces it. 413 above ARTIFACT_MAX_FILE_BYTES or when the run's artifacts would exceed ARTIFACT_MAX_RUN_BYTES; 404 when the run, the result or the attachment is unknown.",
        params: IngestRunParams,
        querystring: AttachmentUploadQuery,
        response: { 201: Ok(ArtifactSchema) },
      },
    },
    async (request, reply) => {
      const { projectId, runId } = request.params;
      const limit = { bytes: opts.artifactLimit, what: 'An artifact is', progress: opts.upload };
      return relay(reply, await forward(app, request, projectId, runPath(runId, 'artifacts'), opts, limit));
    },
  );

  app.post(
    '/:projectId/runs/:runId/finish',
    {
      config,
      schema: {
        tags: TAGS,
        summary: 'Finish a run',
        description:
          'Body `{status?, endTime?, shard?: {current, total}}`: the final status is computed from the results unless given. RUN_FINISHED is published. With `shard`, that shard is marked finished and the run finishes only once all `total` shards have (until then it is answered `running`); a run whose shards never all finish is ended by the inactivity sweeper (`incomplete`).',
        params: IngestRunParams,
        response: { 200: Ok(RunAnswerSchema) },
      },
    },
    async (request, reply) => {
      const { projectId, runId } = request.params;
      return relay(reply, await forward(app, request, projectId, runPath(runId, 'finish'), opts));
    },
  );

  app.post(
    '/:projectId/playwright',
    {
      config,
      schema: {
        tags: TAGS,
        summary: 'Ingest a Playwright JSON report',
        description: 'A Playwright JSON reporter file, optionally with a `metadata` object; start + results + finish in one call.',
        params: IngestProjectParams,
        response: { 201: Ok(RunAnswerSchema) },
      },
    },
    async (request, reply) => relay(reply, await forward(app, request, request.params.projectId, '/playwright', opts)),
  );

  app.post(
    '/:projectId/junit',
    {
      config,
      schema: {
        tags: TAGS,
        summary: 'Ingest a JUnit XML report',
        description: 'JUnit XML (`application/xml`); metadata in the query: branch, commit, environment, tags (comma-separated).',
        params: IngestProjectParams,
        querystring: JUnitQuery,
        response: { 201: Ok(RunAnswerSchema) },
      },
    },
    async (request, reply) => relay(reply, await forward(app, request, request.params.projectId, '/junit', opts)),
  );

  app.get(
    '/:projectId/skip-list',
    {
      config: { ...config, access: 'read' },
      schema: {
        tags: TAGS,
        summary: 'Tests that active skip rules name',
        params: IngestProjectParams,
        response: { 200: Ok(SkipListSchema) },
      },
    },
    async (request, reply) => relay(reply, await forward(app, request, request.params.projectId, '/skip-list', opts)),
  );
}

/**
 * `POST /api/reports/playwright` for existing upload steps: the project's api key as `X-API-Key`
 * (`trx_production_`/`trx_staging_`/`trx_development_` + the 64 hex secret). Answers 200 `{success, data: {testRunId,
 * projectId, viewUrl, status}}`; over the plan 200 with `success: false` and `data.code = QUOTA_LIMIT_EXCEEDED`.
 */
export async function compatUpload(fastify: FastifyInstance, opts: IngestOptions) {
  rawBodies(fastify);
  fastify.addHook('onRoute', documentErrorResponses);
  const app = typed(fastify);
  app.post(
    COMPAT_UPLOAD_PATH,
    {
      config: { auth: 'upload-key', access: 'ingest', rateBucket: 'ingest' },
      schema: {
        tags: TAGS,
        summary: 'Upload a Playwright JSON report (compatibility upload)',
        description: 'Header `X-API-Key: trx_production_<64 hex>`; body = a Playwright JSON report with a `metadata` object.',
        security: [{ uploadKey: [] }],
        response: { 200: CompatAnswerSchema },
      },
    },
    async (request, reply) => {
      const { projectId, orgId } = request.auth!.project!;
      const f = await forward(app, request, projectId, '/compat/playwright', opts);
      const error = serviceErrorOf(f.body);
      if (f.status === 429 && error?.code === 'QUOTA_LIMIT_EXCEEDED') {
        const u = usageToJson(await app.services.runs.getUsage({ projectId }, request.callOptions()));
        reply.code(200);
        return {
          success: false,
          message: error.message ?? 'Usage quota exceeded',
          data: {
            code: 'QUOTA_LIMIT_EXCEEDED',
            planName: u.planName,
            limit: u.limits.testResultsPerMonth,
            used: u.used.testResults,
            remaining: u.remaining,
            resetDate: u.periodEnd,
            organizationId: orgId,
            projectId,
          },
        };
      }
      if (f.status >= 400) return relay(reply, f);
      const run = ingestedRunOf(f.body);
      if (!run) throw new AppError('INTERNAL_ERROR', undefined, { cause: new Error('the runs service answered no run') });
      reply.code(200);
      return { success: true, data: { testRunId: run.runId, projectId, viewUrl: run.url, status: run.status } };
    },
  );
  fastify.setErrorHandler((err, request, reply) => sendError(request, reply, err));
}
