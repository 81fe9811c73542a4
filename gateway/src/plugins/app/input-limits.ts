/**
 * Limits on input (CONTRACT §3), every rejection in the envelope of spec §2.1:
 *   - bodies: PUBLIC_BODY_LIMIT_BYTES (1 MiB) everywhere (Fastify `bodyLimit`, app.ts); ingestion routes —
 *     every route under /api/v1/ingest, and any route declaring `config.rateBucket: 'ingest'` (the
 *     compatibility upload) — get INGEST_BODY_LIMIT_BYTES (64 MiB) and count in the `ingest` rate bucket.
 *     A route may still set its own `bodyLimit`. Over the limit → 413 PAYLOAD_TOO_LARGE.
 *   - request time: REQUEST_TIMEOUT_MS to receive the whole request (Node `requestTimeout`) → 408
 *     REQUEST_TIMEOUT; the same value is the deadline of every service call (→ 503). Artifact uploads are
 *     bounded by progress instead (ARTIFACT_UPLOAD_IDLE_TIMEOUT_MS, upload-progress.ts).
 *   - headers: MAX_HEADER_BYTES for the request line and headers (Node `maxHeaderSize`) → 431
 *     HEADERS_TOO_LARGE. Node rejects these before Fastify sees a request, so `clientErrorHandler` below
 *     writes the envelope on the socket itself (malformed HTTP → 400 VALIDATION_ERROR).
 *   - URLs the router refuses (bad percent-encoding, a path parameter over 200 characters) → 400
 *     VALIDATION_ERROR (`frameworkErrors`).
 *   - draining: a request that arrives while the gateway shuts down → 503 SERVICE_UNAVAILABLE (envelope,
 *     `Connection: close`) instead of Fastify's own body.
 */
import type { Socket } from 'node:net';
import { STATUS_CODES } from 'node:http';
import fp from 'fastify-plugin';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, ERROR_TABLE, toEnvelope, type Reason } from '@assay/errors';
import { BASELINE_SECURITY_HEADERS } from '../external/security';
import { isWatchedUpload } from './upload-progress';

export const INGEST_PREFIX = '/api/v1/ingest';

/** Whether a route is an ingestion route (see the header comment). */
export function isIngestRoute(url: string, rateBucket: string | undefined): boolean {
  return rateBucket === 'ingest' || url === INGEST_PREFIX || url.startsWith(`${INGEST_PREFIX}/`);
}

const RAW_SECURITY_HEADERS = Object.entries(BASELINE_SECURITY_HEADERS)
  .map(([name, value]) => `${name}: ${value}\r\n`)
  .join('');

/** Fastify `clientErrorHandler`: Node-level rejections (431, 408, malformed HTTP) as envelopes. */
export function clientErrorHandler(this: FastifyInstance, err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  // An artifact upload still streaming: its own watchdog bounds it, by progress (upload-progress.ts).
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT' && isWatchedUpload(socket)) return;
  let reason: Reason;
  let message: string | undefined;
  if (err.code === 'HPE_HEADER_OVERFLOW') reason = 'HEADERS_TOO_LARGE';
  else if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') reason = 'REQUEST_TIMEOUT';
  else {
    reason = 'VALIDATION_ERROR';
    message = 'Malformed HTTP request';
  }
  this.log.info({ reason, code: err.code }, 'client error');
  if (socket.writable) {
    const status = ERROR_TABLE[reason].http;
    const body = JSON.stringify(toEnvelope(new AppError(reason, message)));
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${RAW_SECURITY_HEADERS}Connection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

/**
 * Fastify `frameworkErrors`: requests the router refuses before any hook runs — a URL that is not valid
 * percent-encoding, a path parameter over `maxParamLength` — as 400 VALIDATION_ERROR envelopes (an invalid
 * path parameter, spec §7).
 */
export function frameworkErrors(err: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  const message =
    err.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? 'A path parameter is too long'
      : err.code === 'FST_ERR_BAD_URL'
        ? 'The URL is not valid'
        : undefined;
  const appErr = new AppError('VALIDATION_ERROR', message ?? 'The request is invalid', {
    details: [{ path: 'path', message: message ?? 'invalid' }],
  });
  void reply.code(appErr.httpStatus).headers(BASELINE_SECURITY_HEADERS).type('application/json; charset=utf-8').send(toEnvelope(appErr));
}

export default fp(
  async function inputLimitsPlugin(app: FastifyInstance, opts: { ingestBodyLimit: number }) {
    app.addHook('onRoute', (route) => {
      const config = (route.config ??= {});
      if (!isIngestRoute(route.url, config.rateBucket)) return;
      config.rateBucket ??= 'ingest';
      route.bodyLimit ??= opts.ingestBodyLimit;
    });

    let closing = false;
    app.addHook('preClose', async () => {
      closing = true;
    });
    app.addHook('onRequest', async (_request, reply) => {
      if (!closing) return;
      reply.header('Connection', 'close');
      throw new AppError('SERVICE_UNAVAILABLE', 'The gateway is shutting down; retry', { headers: { 'Retry-After': '1' } });
    });
  },
  { name: 'input-limits', dependencies: ['errors'] },
);
