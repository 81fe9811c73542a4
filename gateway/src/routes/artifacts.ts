/**
 * Artifact routes outside the public API (CONTRACT §10), all streamed to and from the runs service's internal
 * HTTP port (service-http.ts), never buffered here:
 *   - `GET /api/v1/artifacts/{id}?expires&signature`: the signed download URL that the reads list. The
 *     signature is the credential (runs checks it); no token, so an `<img>`, a `<video>` or the trace viewer
 *     can fetch it. Rate-limited per address like every request.
 *   - `GET /api/v1/artifacts/html/{runId}/{expires}.{signature}/{path}`: a run's uploaded HTML report, a folder.
 *     The signature covers the run, so the report's relative links (`data/<sha1>.png`) are signed URLs too;
 *     runs checks it and serves the run's file `html/{path}`.
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

/** A report's files also say who may embed them (they load into the report's opaque origin). */
const REPORT_HEADERS = [...ARTIFACT_HEADERS, 'cross-origin-resource-policy'];

/** `/api/v1/artifacts/html/{runId}/{token}/`: where a report file's path starts, in segments. */
const REPORT_PATH_AT = 7;
/** A path below a report's folder: segments of letters, digits, `.`, `_`, `-`, none starting with a dot. */
const REPORT_PATH = /^[A-Za-z0-9_][A-Za-z0-9._-]*(?:\/[A-Za-z0-9_][A-Za-z0-9._-]*)*$/;

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

const ReportFileResponse = {
  description:
    "A file of the report: HTML inline with an in-memory Web Storage script in front of its own, images and videos inline, anything else as an attachment; always the report's sandboxing `Content-Security-Policy`, `X-Content-Type-Options: nosniff` and `Cross-Origin-Resource-Policy: cross-origin`.",
  headers: { ...ArtifactDownloadResponse.headers, 'Cross-Origin-Resource-Policy': { type: 'string' } },
  content: ArtifactDownloadResponse.content,
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
      // The bytes as stored, with their length and ranges (app.ts).
      compress: false,
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

  app.get(
    '/api/v1/artifacts/html/:runId/:token/*',
    {
      config: { auth: 'none', errors: ['FORBIDDEN', 'RANGE_NOT_SATISFIABLE'] },
      // The bytes as stored, with their length and ranges (app.ts).
      compress: false,
      schema: {
        tags: ['Artifacts'],
        operationId: 'downloadHtmlReportFile',
        security: [],
        summary: "Open a run's uploaded HTML report (and the files it links) by its signed URL",
        description:
          "The run detail's `artifacts.htmlReport` (`include=artifacts`) is `…/html/{runId}/{expires}.{signature}/index.html`, the report that `tdpw --upload-html` uploaded. The signature covers the run's report folder until `expires` (as long as the files' own URLs), so every `path` below it is served: the run's uploaded file `html/{path}`, and the report's relative links (`data/<sha1>.png`, videos) resolve by themselves. No token: the signature is the credential. 404 for a wrong signature, another run's, or a path that is not one of the report's files (`..`, `.`, an empty segment, any `%`-escape: segments are letters, digits, `.`, `_`, `-`); 400 above 2,000 characters; 403 once expired (read the run again). Every file is served under a sandboxing `Content-Security-Policy` (scripts run only in an opaque origin, never the app's; images and videos from the report's folder), `X-Content-Type-Options: nosniff` and `Cross-Origin-Resource-Policy: cross-origin`; an HTML file gets a small script in front of its own that gives it in-memory Web Storage (a sandboxed page has none), so it is served whole; other files answer `Range` with 206.",
        params: Type.Object({
          runId: Type.String({ maxLength: 64, examples: ['66a1f0c2e4b0a1b2c3d4e5f6'] }),
          token: Type.String({
            maxLength: 80,
            description: '`{expires}.{signature}`: expiry (Unix seconds) and HMAC-SHA256 (base64url)',
            examples: ['1772443800.Inu7RBTktCr2-tNlToELKSKF0LoO9R9di8M-xLkhVe4'],
          }),
          '*': Type.String({
            maxLength: 2000,
            description: "a file's path in the report folder",
            examples: ['data/845c18ed3c0f6cae3a9b9a4327f709bb38806287.png'],
          }),
        }),
        response: { 200: ReportFileResponse, 206: ReportFileResponse },
      },
    },
    async (request, reply) => {
      const { runId, token } = request.params;
      // The path as sent, not as decoded: a report's files never need an escape, so a `%` (`%2e%2e`, `%2f`, …)
      // or a `.`/`..` segment is no file of it.
      const path = (request.url.split('?')[0] ?? '').split('/').slice(REPORT_PATH_AT).join('/');
      if (!REPORT_PATH.test(path)) throw new AppError('NOT_FOUND', 'No such file in the HTML report');
      const url = `${runsHttp()}/artifacts/html/${encodeURIComponent(runId)}/${encodeURIComponent(token)}/${path}`;
      const res = await fetchFromService(request, url, { ...serviceOpts, method: 'GET', pass: ['range'] });
      return relayStream(reply, res, REPORT_HEADERS);
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
      const res = await streamToService(request, url, serviceOpts, {
        bytes: opts.artifactLimit,
        what: 'An artifact is',
        progress: opts.upload,
      });
      return sendJson(reply, res.status, await jsonOf(res));
    },
  );

  fastify.setErrorHandler((err, request, reply) => sendError(request, reply, err));
}
