/**
 * Calls to a service's internal HTTP port, for the routes whose bodies must stream instead of crossing as one
 * RPC message: ingestion uploads (request bodies up to 64 MiB, `routes/ingest`) and PDF downloads (response
 * bodies, `routes/public/reports`). The route has already been authenticated, authorized and rate-limited;
 * the call carries the internal token, the caller principal and the request id, under a deadline. A plain
 * fetch keeps these ordinary Fastify routes (auth hooks, rate buckets, 404/405, OpenAPI) rather than proxy
 * routes.
 */
import http from 'node:http';
import type { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '@assay/errors';
import { DEADLINE_HEADER, INTERNAL_AUTH_HEADER, internalAuthValue, streamPassing } from '@assay/service-kit';

export interface ServiceHttpOptions {
  internalToken: string;
  timeoutMs: number;
}

export interface ServiceRequest extends ServiceHttpOptions {
  method?: string;
  /** A streamed request body. */
  body?: Readable;
  contentType?: string;
  /** Request headers passed on as they are (e.g. `range` for a download). */
  pass?: string[];
  /** Ends the call instead of the `timeoutMs` deadline (an artifact upload's progress watchdog). */
  signal?: AbortSignal;
}

/** A service's answer: status, headers and the body as the Node stream it arrives on (read it once). */
export interface ServiceAnswer {
  status: number;
  headers: Headers;
  body: Readable;
}

/** The service's answer, or 503 SERVICE_UNAVAILABLE (with `Retry-After`) when it cannot be reached. */
export async function fetchFromService(request: FastifyRequest, url: string, opts: ServiceRequest): Promise<ServiceAnswer> {
  const call = request.callOptions();
  const headers: Record<string, string> = {
    ...call.headers,
    [INTERNAL_AUTH_HEADER]: internalAuthValue(opts.internalToken),
  };
  if (opts.contentType) headers['content-type'] = opts.contentType;
  for (const name of opts.pass ?? []) {
    const value = request.headers[name];
    if (typeof value === 'string') headers[name] = value;
  }
  // The deadline goes with the request, as with an RPC: the service commits nothing once it has passed.
  if (!opts.signal) headers[DEADLINE_HEADER] = String(opts.timeoutMs);
  const signal = opts.signal ?? AbortSignal.timeout(opts.timeoutMs);
  try {
    const answer = await streamRequest(url, opts.method ?? request.method, headers, opts.body, signal);
    call.onHeader?.(answer.headers); // as an RPC's: e.g. the service replayed its Idempotency-Key record
    return answer;
  } catch (err) {
    throw new AppError('SERVICE_UNAVAILABLE', undefined, { cause: err, headers: { 'Retry-After': '5' } });
  }
}

/**
 * A request and its answer, both streamed with backpressure by Node's http client. Not fetch: its body handling
 * read an upload far ahead of a slower service (a 500 MB upload grew the gateway by 520 MB; this way by ~20 MB),
 * and its web-stream answer made a 500 MB download grow it by 64 MB.
 */
function streamRequest(
  url: string,
  method: string,
  headers: Record<string, string>,
  body: Readable | undefined,
  signal: AbortSignal,
): Promise<ServiceAnswer> {
  return new Promise((resolve, reject) => {
    // A stream passes until the answer is read (or the call fails): the stream-buffer watcher runs meanwhile.
    const passed = streamPassing();
    const req = http.request(url, { method, headers, signal }, (res) => {
      res.once('close', passed);
      const out = new Headers();
      for (const [name, value] of Object.entries(res.headers)) if (typeof value === 'string') out.set(name, value);
      resolve({ status: res.statusCode ?? 502, headers: out, body: res });
      // The service answered before the whole body went (e.g. 413 or 404 at once): stop sending, close that
      // request once its answer is read, and read the rest of the client's body into nothing so the client can
      // finish sending and read the answer (a stalled upload ends in 408); REQUEST_TIMEOUT_MS bounds it (for an
      // artifact upload too: plugins/app/upload-progress.ts).
      if (body && !req.writableFinished) {
        body.unpipe(req);
        body.resume();
        res.once('end', () => req.destroy());
      }
    });
    req.on('error', (err) => {
      passed();
      body?.unpipe(req);
      body?.resume();
      reject(err);
    });
    if (!body) return void req.end();
    body.on('error', (err) => req.destroy(err));
    body.pipe(req);
  });
}

/** Reads a JSON answer of the service (its `data`, or its error envelope). */
export async function jsonOf(res: ServiceAnswer): Promise<unknown> {
  const body = await text(res.body);
  try {
    return body.length > 0 ? JSON.parse(body) : {};
  } catch (err) {
    throw new AppError('INTERNAL_ERROR', undefined, { cause: err });
  }
}

/**
 * Streams a successful binary answer of the service to the client with the named headers copied; an error
 * answer (the service's JSON envelope) is relayed with its status.
 */
export async function relayStream(reply: FastifyReply, res: ServiceAnswer, copyHeaders: string[]): Promise<FastifyReply> {
  if (res.status >= 400) {
    const body = (await jsonOf(res)) as { success?: unknown; error?: { code?: unknown } };
    // Anything but the service's own envelope (e.g. a proxy's page) is answered from the error table.
    if (res.status < 400 || body?.success !== false || typeof body.error?.code !== 'string') {
      throw res.status === 404
        ? new AppError('NOT_FOUND')
        : new AppError('INTERNAL_ERROR', undefined, { cause: new Error(`service answered ${res.status}`) });
    }
    for (const name of ['retry-after', 'content-range']) {
      const value = res.headers.get(name);
      if (value) reply.header(name, value);
    }
    return reply.code(res.status).type('application/json; charset=utf-8').send(body);
  }
  for (const name of copyHeaders) {
    const value = res.headers.get(name);
    if (value !== null) reply.header(name, value);
  }
  return reply.code(res.status).send(res.body);
}
