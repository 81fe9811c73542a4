/**
 * Artifact routes on the internal HTTP port (the gateway authenticates, authorizes and rate-limits, then streams
 * bodies here and answers back): the ingestion API's attachment upload (recorded under its Idempotency-Key as
 * ingestion is: ../ingest/call.ts), the compatibility upload's token and blob PUTs, and the downloads (a signed URL
 * of one artifact or of a run's HTML report folder; a caller the gateway authorized for the project).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Readable } from 'node:stream';
import { AppError, fromConnectError, isAppError, notFound, toEnvelope, validation } from '@assay/errors';
import { fromDatabaseError } from '@assay/db';
import { keyedBody } from '../ingest/call';
import type { Wiring } from '../wiring';
import type { AttachmentRef, Download } from './artifacts';

type Query = Record<string, string | string[] | undefined>;

function callerOf(request: FastifyRequest) {
  if (!request.principal) throw new AppError('UNAUTHORIZED', 'missing caller principal');
  return request.principal;
}

const one = (q: Query, key: string): string | undefined => {
  const v = q[key];
  if (Array.isArray(v)) throw validation(`${key} given more than once`, [{ path: `query.${key}`, message: 'give it once' }]);
  return v;
};

function required(q: Query, key: string): string {
  const v = one(q, key);
  if (v === undefined || v === '') throw validation(`${key} is required`, [{ path: `query.${key}`, message: 'is required' }]);
  return v;
}

/** The attachment an upload names (AttachmentUploadQuery; the gateway has checked its shape). */
function refOf(q: Query): AttachmentRef {
  const titlePath = q.titlePath === undefined ? [] : Array.isArray(q.titlePath) ? q.titlePath : [q.titlePath];
  if (titlePath.length === 0) throw validation('titlePath is required', [{ path: 'query.titlePath', message: 'is required' }]);
  const retry = one(q, 'retry') ?? '0';
  if (!/^\d{1,3}$/.test(retry)) throw validation('retry must be a non-negative integer', [{ path: 'query.retry', message: 'integer' }]);
  return {
    file: required(q, 'file'),
    titlePath,
    projectName: one(q, 'projectName') ?? '',
    retry: Number(retry),
    name: required(q, 'name'),
    path: one(q, 'path'),
  };
}

function contentLength(request: FastifyRequest): number | undefined {
  const v = request.headers['content-length'];
  return v === undefined || !/^\d+$/.test(v) ? undefined : Number(v);
}

async function send(reply: FastifyReply, d: Download): Promise<FastifyReply> {
  return reply
    .code(d.status)
    .headers(d.headers)
    .send(d.read.body as Readable);
}

export async function artifactRoutes(app: FastifyInstance, w: Wiring): Promise<void> {
  const artifacts = w.artifacts;
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_req, payload, done) => done(null, payload));
    scope.setErrorHandler((err, _request, reply) => {
      const appErr = isAppError(err) ? err : (fromDatabaseError(err) ?? fromConnectError(err));
      if (appErr.reason === 'INTERNAL_ERROR') w.logger.error({ err }, 'artifact request failed');
      // An upload refused before its body was read: Node reads the rest into nothing, so the gateway, still
      // sending, gets this answer instead of a reset (it then stops: the gateway bounds what it sends).
      reply
        .code(appErr.httpStatus)
        .headers(appErr.headers ?? {})
        .send(toEnvelope(appErr));
    });

    scope.post<{ Params: { projectId: string; runId: string }; Querystring: Query; Body: Readable | undefined }>(
      '/ingest/:projectId/runs/:runId/artifacts',
      async (request, reply) => {
        callerOf(request);
        const { projectId, runId } = request.params;
        // No body at all (no content type, no length) is an empty one.
        const { body, call } = keyedBody(request, reply, request.body ?? []);
        const answer = await artifacts.uploadAttachment(
          projectId,
          runId,
          refOf(request.query),
          body instanceof Readable ? body : Readable.from(body),
          {
            contentType: request.headers['content-type'],
            contentLength: contentLength(request),
            call,
          },
        );
        reply.code(201);
        return answer;
      },
    );

    scope.post<{ Params: { projectId: string } }>('/ingest/:projectId/storage/token', async (request) => {
      callerOf(request);
      return artifacts.createUpload(request.params.projectId);
    });

    scope.put<{ Params: { uploadId: string; '*': string }; Querystring: Query; Body: Readable }>(
      '/storage/uploads/:uploadId/*',
      async (request, reply) => {
        const blobType = request.headers['x-ms-blob-type'];
        if (blobType !== undefined && blobType !== 'BlockBlob')
          throw validation('only block blobs are supported', [{ path: 'header.x-ms-blob-type', message: 'must be BlockBlob' }]);
        if (contentLength(request) !== undefined && contentLength(request)! > w.config.ARTIFACT_MAX_FILE_BYTES)
          throw new AppError('PAYLOAD_TOO_LARGE', `An artifact is limited to ${w.config.ARTIFACT_MAX_FILE_BYTES} bytes`);
        await artifacts.putBlob(
          request.params.uploadId,
          request.params['*'],
          one(request.query, 'sig'),
          request.body,
          request.headers['content-type'],
        );
        reply.code(201);
        return {};
      },
    );

    scope.get<{ Params: { artifactId: string }; Querystring: Query }>('/artifacts/:artifactId', async (request, reply) => {
      const { artifactId } = request.params;
      const verdict = artifacts.urls.verify(artifactId, one(request.query, 'expires'), one(request.query, 'signature'), w.clock());
      if (verdict === 'invalid') throw notFound('Artifact');
      if (verdict === 'expired') throw new AppError('FORBIDDEN', 'This download link has expired; read the artifact again for a new one');
      return send(reply, await artifacts.open(artifactId, request.headers.range));
    });

    // A file of a run's HTML report: the `{expires}.{signature}` segment covers the run, any path below it is one
    // of the report's files (urls.ts). Checked before any lookup: a wrong signature learns nothing of the run.
    scope.get<{ Params: { runId: string; token: string; '*': string } }>('/artifacts/html/:runId/:token/*', async (request, reply) => {
      const { runId, token } = request.params;
      const verdict = artifacts.urls.verifyHtmlReport(runId, token, w.clock());
      if (verdict === 'invalid') throw notFound('HTML report');
      if (verdict === 'expired') throw new AppError('FORBIDDEN', 'This report link has expired; read the run again for a new one');
      return send(reply, await artifacts.openReportFile(runId, request.params['*'], request.headers.range));
    });

    scope.get<{ Params: { projectId: string; artifactId: string } }>(
      '/projects/:projectId/artifacts/:artifactId',
      async (request, reply) => {
        callerOf(request);
        return send(reply, await artifacts.open(request.params.artifactId, request.headers.range, request.params.projectId));
      },
    );
  });
}
