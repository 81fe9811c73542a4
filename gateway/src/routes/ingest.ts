/**
 * The ingestion API (CONTRACT §6) at /api/v1/ingest/{projectId}/… and the compatibility upload
 * `POST /api/reports/playwright` (`X-API-Key: trx_production_<hex>`). The gateway authenticates (a writer's PAT or
 * the project's api key), authorizes and rate-limits (`rateBucket: 'ingest'`), then STREAMS the body, unparsed,
 * to the runs service's internal HTTP port with the internal token and the caller principal; reports of up to
 * INGEST_BODY_LIMIT_BYTES never sit whole in the gateway. The call goes through `fetchFromService`
 * (service-http.ts, shared with the PDF downloads): ordinary routes, so auth hooks, rate buckets, 404/405
 * and OpenAPI apply.
 */
import { Readable, Transform } from 'node:stream';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import { AppError } from '@assay/errors';
import type { Authenticator } from '../auth/authenticator';
import { sendError } from '../plugins/app/errors';
import { Ok } from '@assay/contracts/common/envelope';
import { documentErrorResponses } from '../plugins/app/error-responses';
import { TestStatsSchema } from './public/test-runs/schemas';
import { fetchFromService, jsonOf } from './service-http';

export const INGEST_PREFIX = '/api/v1/ingest';
export const COMPAT_UPLOAD_PATH = '/api/reports/playwright';

export interface IngestOptions {
  authenticator: Authenticator;
  internalToken: string;
  bodyLimit: number;
  timeoutMs: number;
}

const RunStatus = Type.String({ description: 'running, passed, failed, interrupted, incomplete' });
const RunAnswer = Type.Object({
  runId: Type.String(),
  counter: Type.Integer(),
  status: RunStatus,
  url: Type.String(),
  testStats: Type.Ref(TestStatsSchema),
});
const Started = Type.Object({ runId: Type.String(), counter: Type.Integer(), status: RunStatus, url: Type.String() });
const Accepted = Type.Object({
  runId: Type.String(),
  accepted: Type.Integer({ description: 'attempts in the batch' }),
  tests: Type.Integer(),
  newResults: Type.Integer({ description: 'tests not seen in this run before (a re-sent batch adds none)' }),
});
const SkipList = Type.Object({
  rules: Type.Array(Type.Object({}, { additionalProperties: true })),
  tests: Type.Array(
    Type.Object({
      testId: Type.String(),
      file: Type.String(),
      titlePath: Type.Array(Type.String()),
      title: Type.String(),
      projectName: Type.String(),
    }),
  ),
});

interface Forwarded {
  status: number;
  body: unknown;
}

/** Streams the request to the runs service and returns its JSON answer. */
async function forward(request: FastifyRequest, target: string, opts: IngestOptions): Promise<Forwarded> {
  const declared = Number(request.headers['content-length'] ?? 0);
  if (declared > opts.bodyLimit) throw new AppError('PAYLOAD_TOO_LARGE', `Reports are limited to ${opts.bodyLimit} bytes`);
  let tooLarge = false;
  let body: ReadableStream | undefined;
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    let seen = 0;
    const limiter = new Transform({
      transform(chunk: Buffer, _enc, cb) {
        seen += chunk.length;
        if (seen > opts.bodyLimit) {
          tooLarge = true;
          cb(new Error('body over the limit'));
        } else {
          request.streamedBodyHash?.update(chunk); // fingerprint for Idempotency-Key (idempotency plugin)
          cb(null, chunk);
        }
      },
    });
    request.raw.on('error', (err) => limiter.destroy(err));
    body = Readable.toWeb(request.raw.pipe(limiter)) as ReadableStream;
  }
  const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?')) : '';
  let res: Response;
  try {
    res = await fetchFromService(request, `${target}${query}`, {
      internalToken: opts.internalToken,
      timeoutMs: opts.timeoutMs,
      body,
      contentType: request.headers['content-type'],
    });
  } catch (err) {
    if (tooLarge) throw new AppError('PAYLOAD_TOO_LARGE', `Reports are limited to ${opts.bodyLimit} bytes`);
    throw err;
  }
  return { status: res.status, body: await jsonOf(res) };
}

function relay(reply: FastifyReply, f: Forwarded, okStatus?: number) {
  reply.type('application/json; charset=utf-8');
  if (f.status >= 400) return reply.code(f.status).send(f.body);
  return reply.code(okStatus ?? f.status).send({ success: true, data: f.body });
}

/** Bodies stay unread: they stream to the service. */
function rawBodies(app: FastifyInstance) {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));
}

export async function ingestApi(app: FastifyInstance, opts: IngestOptions) {
  rawBodies(app);
  app.addHook('onRoute', documentErrorResponses);
  const target = (request: FastifyRequest, suffix: string) => {
    const { projectId } = request.params as { projectId: string };
    return `${app.services.runsHttpUrl}/ingest/${encodeURIComponent(projectId)}${suffix}`;
  };
  const base = { auth: 'project' as const, access: 'ingest' as const, rateBucket: 'ingest' as const };
  const Project = Type.Object({ projectId: Type.String() });
  const ProjectRun = Type.Object({ projectId: Type.String(), runId: Type.String() });
  const tags = ['Ingestion'];

  app.post(
    '/:projectId/runs',
    {
      config: base,
      schema: {
        tags,
        summary: 'Start a run (streaming ingestion)',
        description:
          'Body `{metadata: {git: {branch, commit: {hash, message, author}}, environment, ci: {provider, pipelineId, buildUrl}, tags[]}, totalTests?, startTime?}`. The run is `running`; RUN_STARTED is published.',
        params: Project,
        response: { 201: Ok(Started) },
      },
    },
    async (request, reply) => relay(reply, await forward(request, target(request, '/runs'), opts)),
  );

  app.post(
    '/:projectId/runs/:runId/results',
    {
      config: base,
      schema: {
        tags,
        summary: 'Append a batch of test results',
        description:
          "Body `{results: [...]}`, each item one attempt in Playwright's per-test shape (file, titlePath, projectName, status, duration, retry, errors, steps, attachments, annotations, tags). Idempotent per (test, retry).",
        params: ProjectRun,
        response: { 200: Ok(Accepted) },
      },
    },
    async (request, reply) => {
      const { runId } = request.params as { runId: string };
      return relay(reply, await forward(request, target(request, `/runs/${encodeURIComponent(runId)}/results`), opts));
    },
  );

  app.post(
    '/:projectId/runs/:runId/finish',
    {
      config: base,
      schema: {
        tags,
        summary: 'Finish a run',
        description: 'Body `{status?, endTime?}`: the final status is computed from the results unless given. RUN_FINISHED is published.',
        params: ProjectRun,
        response: { 200: Ok(RunAnswer) },
      },
    },
    async (request, reply) => {
      const { runId } = request.params as { runId: string };
      return relay(reply, await forward(request, target(request, `/runs/${encodeURIComponent(runId)}/finish`), opts));
    },
  );

  app.post(
    '/:projectId/playwright',
    {
      config: base,
      schema: {
        tags,
        summary: 'Ingest a Playwright JSON report',
        description: 'A Playwright JSON reporter file, optionally with a `metadata` object; start + results + finish in one call.',
        params: Project,
        response: { 201: Ok(RunAnswer) },
      },
    },
    async (request, reply) => relay(reply, await forward(request, target(request, '/playwright'), opts)),
  );

  app.post(
    '/:projectId/junit',
    {
      config: base,
      schema: {
        tags,
        summary: 'Ingest a JUnit XML report',
        description: 'JUnit XML (`application/xml`); metadata in the query: branch, commit, environment, tags (comma-separated).',
        params: Project,
        querystring: Type.Object({
          branch: Type.Optional(Type.String()),
          commit: Type.Optional(Type.String()),
          commitMessage: Type.Optional(Type.String()),
          author: Type.Optional(Type.String()),
          environment: Type.Optional(Type.String()),
          tags: Type.Optional(Type.String()),
        }),
        response: { 201: Ok(RunAnswer) },
      },
    },
    async (request, reply) => relay(reply, await forward(request, target(request, '/junit'), opts)),
  );

  app.get(
    '/:projectId/skip-list',
    {
      config: { ...base, access: 'read' },
      schema: { tags, summary: 'Tests that active skip rules name', params: Project, response: { 200: Ok(SkipList) } },
    },
    async (request, reply) => relay(reply, await forward(request, target(request, '/skip-list'), opts)),
  );
}

/**
 * `POST /api/reports/playwright` for existing upload steps: the project's api key as `X-API-Key`
 * (`trx_production_`/`trx_staging_`/`trx_development_` + the 64 hex secret). Answers 200 `{success, data: {testRunId,
 * projectId, viewUrl, status}}`; over the plan 200 with `success: false` and `data.code = QUOTA_LIMIT_EXCEEDED`.
 */
export async function compatUpload(app: FastifyInstance, opts: IngestOptions) {
  rawBodies(app);
  app.addHook('onRoute', documentErrorResponses);
  app.post(
    COMPAT_UPLOAD_PATH,
    {
      config: { auth: 'upload-key', access: 'ingest', rateBucket: 'ingest' },
      schema: {
        tags: ['Ingestion'],
        summary: 'Upload a Playwright JSON report (compatibility upload)',
        description: 'Header `X-API-Key: trx_production_<64 hex>`; body = a Playwright JSON report with a `metadata` object.',
        security: [{ uploadKey: [] }],
        response: {
          200: Type.Object({
            success: Type.Boolean(),
            message: Type.Optional(Type.String()),
            data: Type.Object({}, { additionalProperties: true }),
          }),
        },
      },
    },
    async (request, reply) => {
      const projectId = request.auth!.project!.projectId;
      const f = await forward(request, `${app.services.runsHttpUrl}/ingest/${encodeURIComponent(projectId)}/compat/playwright`, opts);
      const errorCode = (f.body as { error?: { code?: string; message?: string } }).error;
      if (f.status === 429 && errorCode?.code === 'QUOTA_LIMIT_EXCEEDED') {
        const u = await app.services.runs.getUsage({ projectId }, request.callOptions());
        reply.code(200);
        return {
          success: false,
          message: errorCode.message ?? 'Usage quota exceeded',
          data: {
            code: 'QUOTA_LIMIT_EXCEEDED',
            planName: u.planName,
            limit: Number(u.testResultsPerMonth),
            used: Number(u.usedTestResults),
            remaining: Number(u.remaining),
            resetDate: u.periodEnd ? timestampDate(u.periodEnd).toISOString() : null,
            organizationId: request.auth!.project!.orgId,
            projectId,
          },
        };
      }
      if (f.status >= 400) return relay(reply, f);
      const run = f.body as { runId: string; url: string; status: string };
      reply.code(200);
      return { success: true, data: { testRunId: run.runId, projectId, viewUrl: run.url, status: run.status } };
    },
  );
  app.setErrorHandler((err, request, reply) => sendError(request, reply, err));
}
