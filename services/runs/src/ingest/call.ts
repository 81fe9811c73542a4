/**
 * An ingestion call's Idempotency-Key: the gateway's header names no fingerprint for a body it streams unread, so the
 * body is fingerprinted here as it is read (the SHA-256 of the query string, a newline and the bytes, as the gateway's
 * own record's), and the record is taken by the write's transaction once the body has been read whole (`idem()`).
 */
import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { IDEMPOTENCY_RECORD_HEADER, IDEMPOTENCY_REPLAYED_HEADER, idempotencyRecordOf, type IdempotencyRecord } from '@assay/service-kit';

export interface IngestCall {
  /** The call's record, its fingerprint the body's: asked for once the body has been read whole. */
  idem(): IdempotencyRecord | undefined;
  /** The answer is the record's, not this call's work: the route says so to the gateway. */
  replayed(): void;
}

/** The request's body as it is to be read, and the call: the body's bytes go through the fingerprint when keyed. */
export function keyedBody(
  request: FastifyRequest,
  reply: FastifyReply,
  body: AsyncIterable<Buffer> | Iterable<Buffer>,
): { body: AsyncIterable<Buffer> | Iterable<Buffer>; call: IngestCall } {
  const header = request.headers[IDEMPOTENCY_RECORD_HEADER];
  const replayed = () => void reply.header(IDEMPOTENCY_REPLAYED_HEADER, 'true');
  if (typeof header !== 'string') return { body, call: { idem: () => undefined, replayed } };
  const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?')) : '';
  const hash = createHash('sha256').update(`${query}\n`);
  let fingerprint: string | undefined;
  async function* fingerprinted() {
    for await (const chunk of body) {
      hash.update(chunk);
      yield chunk;
    }
  }
  return { body: fingerprinted(), call: { idem: () => idempotencyRecordOf(header, (fingerprint ??= hash.digest('hex'))), replayed } };
}
