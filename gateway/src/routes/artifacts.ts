/**
 * Artifact routes outside the public API (CONTRACT §10), all streamed to and from the runs service's internal
 * HTTP port (service-http.ts), never buffered here:
 *   - `GET /api/v1/artifacts/{id}?expires&signature`: the signed download URL that the reads list. The
 *     signature is the credential (runs checks it); no token, so an `<img>`, a `<video>` or the trace viewer
 *     can fetch it. Rate-limited per address like every request.
 *   - `POST /api/storage/token` + `PUT /api/storage/uploads/{id}/{path}?{sasToken}`: the compatibility
 *     upload flow of `tdpw --upload-*` (an Azure-style SAS container). The token is taken with the project's
 *     upload key; each PUT carries the upload's secret; the report that names a blob's URL links it.
 * Downloads keep the service's headers: nosniff, a sandboxing CSP, inline only for images and videos.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { Type } from '@sinclair/typebox';
import { AppError } from '@assay/errors';
import { DownloadQuery, StorageTokenSchema } from '@assay/contracts/runs/artifacts';
import { documentErrorResponses } from '../plugins/app/error-responses';
import { sendError } from '../plugins/app/errors';
import { fetchFromService, jsonOf, relayStream } from './service-http';
import { rawBodies, streamToService, type IngestOptions } from './ingest';
import { typed } from './typed';

export const ARTIFACT_HEADERS = [
  'content-type',
  'content-length',
  'content-disposition',
  'content-security-policy',
  'x-content-type-options',
  'cache-control',
  'accept-ranges',
  'content-range',
  'etag',
];

export const STORAGE_PREFIX = '/api/storage';

export const ArtifactDownloadResponse = {
  description:
    'The artifact: images and videos inline, anything else as an attachment; always `X-Content-Type-Options: nosniff` and a sandboxing `Content-Security-Policy`. `Range: bytes=` answers 206.',
  headers: {
    'Content-Disposition': { type: 'string' },
    'Content-Security-Policy': { type: 'string' },
    'Accept-Ranges': { type: 'string' },
  },
  content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } },
};

/** The service's JSON answer as it is (an error envelope, or the empty 201 of a stored blob). */
const sendJson = (reply: FastifyReply, status: number, body: unknown) =>
  reply.code(status).type('application/json; charset=utf-8').send(body);

export async function artifactRoutes(fastify: FastifyInstance, opts: IngestOptions) {
  rawBodies(fastify);
  fastify.addHook('onRoute', documentErrorResponses);
  const app = typed(fastify);
  const runsHttp = () => app.services.runsHttpUrl;
  const serviceOpts = { internalToken: opts.internalToken, timeoutMs: opts.timeoutMs };

  app.get(
    '/api/v1/artifacts/:artifactId',
    {
      config: { auth: 'none', errors: ['FORBIDDEN', 'RANGE_NOT_SATISFIABLE'] },
      schema: {
        tags: ['Artifacts'],
        operationId: 'downloadArtifactBySignedUrl',
        security: [],
        summary: 'Download an artifact by its signed URL',
        description:
          'The `url` of an artifact in a read (test case detail, debug bundle, run detail with `include=artifacts`). No token: the signature is the credential, valid until `urlExpiresAt` (403 after; read the artifact again for a new URL). 404 for a wrong signature or an artifact deleted by retention.',
        params: Type.Object({ artifactId: Type.String({ maxLength: 64 }) }),
        querystring: DownloadQuery,
        response: { 200: ArtifactDownloadResponse, 206: ArtifactDownloadResponse },
      },
    },
    async (request, reply) => {
      const q = new URLSearchParams({ expires: request.query.expires ?? '', signature: request.query.signature ?? '' });
      const res = await fetchFromService(request, `${runsHttp()}/artifacts/${encodeURIComponent(request.params.artifactId)}?${q}`, {
        ...serviceOpts,
        method: 'GET',
        pass: ['range'],
      });
      return relayStream(reply, res, ARTIFACT_HEADERS);
    },
  );

  app.post(
    `${STORAGE_PREFIX}/token`,
    {
      config: { auth: 'upload-key', access: 'ingest', rateBucket: 'ingest' },
      schema: {
        tags: ['Ingestion'],
        summary: 'Start an artifact upload (compatibility upload, tdpw --upload-*)',
        description:
          "Header `X-API-Key: trx_production_<64 hex>`. Answers an upload container valid for three hours: `PUT {containerUrl}/{blobPath}/{file}?{sasToken}` (header `x-ms-blob-type: BlockBlob`) stores a file; the next `POST /api/reports/playwright` whose attachments' paths are those files' URLs links them to its run, and the upload's other files (an HTML report) become the run's files.",
        security: [{ uploadKey: [] }],
        response: { 200: StorageTokenSchema },
      },
    },
    async (request, reply) => {
      const { projectId } = request.auth!.project!;
      const res = await fetchFromService(request, `${runsHttp()}/ingest/${encodeURIComponent(projectId)}/storage/token`, {
        ...serviceOpts,
        method: 'POST',
      });
      const body = (await jsonOf(res)) as Record<string, unknown>;
      if (res.status >= 400) return sendJson(reply, res.status, body);
      // The container is this gateway as the client reached it (tdpw PUTs there).
      const containerUrl = `${request.protocol}://${request.host}${STORAGE_PREFIX}`;
      return { success: true as const, data: { ...(body as object), containerUrl } as never };
    },
  );

  app.put(
    `${STORAGE_PREFIX}/uploads/:uploadId/*`,
    {
      config: { auth: 'none', errors: ['FORBIDDEN'] },
      bodyLimit: opts.artifactLimit,
      schema: {
        tags: ['Ingestion'],
        operationId: 'putStorageUploadBlob',
        security: [],
        summary: 'Store one file of an artifact upload (compatibility upload)',
        description:
          "The raw bytes, with the upload's `sasToken` as the query and `x-ms-blob-type: BlockBlob`. 201 with an empty body. 403 for a wrong or expired token, 413 above ARTIFACT_MAX_FILE_BYTES.",
        params: Type.Object({ uploadId: Type.String({ maxLength: 64 }), '*': Type.String({ maxLength: 2000 }) }),
        querystring: Type.Object({
          sv: Type.Optional(Type.String()),
          se: Type.Optional(Type.String()),
          sig: Type.Optional(Type.String({ maxLength: 100 })),
        }),
        response: { 201: { description: 'Stored', type: 'object', additionalProperties: false } },
      },
    },
    async (request, reply) => {
      if (request.headers['x-ms-blob-type'] !== 'BlockBlob')
        throw new AppError('VALIDATION_ERROR', 'x-ms-blob-type: BlockBlob is required', {
          details: [{ path: 'header.x-ms-blob-type', message: 'must be BlockBlob' }],
        });
      const { uploadId } = request.params;
      const url = `${runsHttp()}/storage/uploads/${encodeURIComponent(uploadId)}/${request.params['*'].split('/').map(encodeURIComponent).join('/')}`;
      const res = await streamToService(request, url, serviceOpts, { bytes: opts.artifactLimit, what: 'An artifact is' });
      return sendJson(reply, res.status, await jsonOf(res));
    },
  );

  fastify.setErrorHandler((err, request, reply) => sendError(request, reply, err));
}
