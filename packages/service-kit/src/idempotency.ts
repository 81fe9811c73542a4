/**
 * An `Idempotency-Key`'s record in the service that creates (spec §4.4, CONTRACT §4). The gateway keeps a create's
 * answer in Redis, but only once the service has answered: a service that died between its commit and its answer,
 * or a gateway that died meanwhile (its lease then runs out), left the client's retry to create a second resource.
 * So a create also writes the key in its own transaction, with its answer (`withIdempotency`): a retry that reaches
 * the service again finds it and gets the first answer back, marked replayed; one with another body gets 422.
 *
 * The gateway sends what the service needs in one header (`idempotencyHeaderValue`): the record's name (a hash of the
 * token, method, path and key), the body's fingerprint, the replay window, and the key that seals the answer. That key
 * is derived from the credential the client presented (as the gateway seals its own copy in Redis): the table holds
 * no answer in clear (a webhook's signing secret, a token's secret), and another credential cannot open it. A body the
 * gateway streams through unread (ingestion) has no fingerprint there yet: the header says `body` in its place, and
 * the service fingerprints the body as it reads it (`idempotencyRecordOf`'s second argument).
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { create, fromBinary, toBinary, type DescMessage, type MessageInitShape, type MessageShape } from '@bufbuild/protobuf';
import type { HandlerContext } from '@connectrpc/connect';
import { withTransaction, type Pool, type PoolClient } from '@assay/db';
import { AppError } from '@assay/errors';

export const IDEMPOTENCY_RECORD_HEADER = 'x-assay-idempotency';
/** Set on an answer the service replayed from its record (the gateway then says `Idempotent-Replayed: true`). */
export const IDEMPOTENCY_REPLAYED_HEADER = 'x-assay-idempotent-replayed';

/** What the gateway tells the service about a create's `Idempotency-Key`. */
export interface IdempotencyRecord {
  /** The record's name: hex of a SHA-256 over the token id, method, path and key. */
  record: string;
  /** Hex SHA-256 of the query string and the raw body. */
  fingerprint: string;
  /** Seconds a record replays (IDEMPOTENCY_TTL_SECONDS). */
  ttlSeconds: number;
  /** 32 bytes: AES-256-GCM key of the stored answer. */
  sealKey: Buffer;
}

const HEX64 = /^[0-9a-f]{64}$/;
/** In a header's fingerprint's place: the body streams through the gateway unread, and the service fingerprints it. */
export const FINGERPRINT_OF_BODY = 'body';

export function idempotencyHeaderValue(r: IdempotencyRecord): string {
  return `v1.${r.record}.${r.fingerprint}.${r.ttlSeconds}.${r.sealKey.toString('base64url')}`;
}

/**
 * The record a call carries, or undefined (no key sent, or a header that is not the gateway's). `bodyFingerprint`:
 * the fingerprint of the body this service read, for a header that names none (FINGERPRINT_OF_BODY); without it
 * such a header carries no record.
 */
export function idempotencyRecordOf(value: string | null | undefined, bodyFingerprint?: string): IdempotencyRecord | undefined {
  const [version, record, named, ttl, key, ...rest] = (value ?? '').split('.');
  const fingerprint = named === FINGERPRINT_OF_BODY ? bodyFingerprint : named;
  if (version !== 'v1' || rest.length > 0 || !HEX64.test(record ?? '') || !HEX64.test(fingerprint ?? '')) return undefined;
  const ttlSeconds = Number(ttl);
  const sealKey = Buffer.from(key ?? '', 'base64url');
  if (!Number.isSafeInteger(ttlSeconds) || ttlSeconds < 1 || sealKey.length !== 32) return undefined;
  return { record: record!, fingerprint: fingerprint!, ttlSeconds, sealKey };
}

const GCM_IV_BYTES = 12;
const GCM_TAG_BYTES = 16;

/** AES-256-GCM: IV (12 bytes) | tag (16 bytes) | ciphertext. */
export function sealAnswer(key: Buffer, plain: Uint8Array): Buffer {
  const iv = randomBytes(GCM_IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: GCM_TAG_BYTES });
  const data = Buffer.concat([cipher.update(plain), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), data]);
}

/** The sealed bytes, or undefined when `key` cannot open them (another credential, a rotated token). */
export function openAnswer(key: Buffer, sealed: Buffer): Buffer | undefined {
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, GCM_IV_BYTES), { authTagLength: GCM_TAG_BYTES });
    decipher.setAuthTag(sealed.subarray(GCM_IV_BYTES, GCM_IV_BYTES + GCM_TAG_BYTES));
    return Buffer.concat([decipher.update(sealed.subarray(GCM_IV_BYTES + GCM_TAG_BYTES)), decipher.final()]);
  } catch {
    return undefined;
  }
}

/** Records past their window dropped by each new one, at most: the table stays at about a window's creates. */
const EXPIRED_DROPPED_PER_CREATE = 16;

/** How an answer is stored in its record: a protobuf message (RPCs) or JSON (the internal HTTP routes). */
export interface AnswerCodec<T> {
  encode(answer: T): Uint8Array;
  decode(bytes: Uint8Array): T;
}

/** Answers that are plain JSON values (what an internal HTTP route sends). */
export function jsonAnswers<T>(): AnswerCodec<T> {
  return {
    encode: (answer) => Buffer.from(JSON.stringify(answer), 'utf8'),
    decode: (bytes) => JSON.parse(Buffer.from(bytes).toString('utf8')) as T,
  };
}

/**
 * A create's transaction and answer, recorded under the call's `Idempotency-Key` (when the gateway sent one; else
 * just `withTransaction`). `fn` writes and returns the answer; the record is written in the same transaction, so it
 * exists exactly when the resource does. A record found (within its window) replays its answer: the same message,
 * `fn` not run; with another fingerprint, 422 IDEMPOTENCY_KEY_REUSE. A retry arriving while the first still runs
 * waits on the record's row and then replays (the gateway answers 409 before that, unless its own record was lost).
 * Needs an `idempotency_keys` table in the service's schema (each service's migrations create it).
 */
export async function withIdempotency<Desc extends DescMessage>(
  pool: Pool,
  ctx: HandlerContext,
  schema: Desc,
  fn: (c: PoolClient) => Promise<MessageInitShape<Desc>>,
): Promise<MessageShape<Desc>> {
  const idem = idempotencyRecordOf(ctx.requestHeader.get(IDEMPOTENCY_RECORD_HEADER));
  const codec: AnswerCodec<MessageShape<Desc>> = { encode: (m) => toBinary(schema, m), decode: (b) => fromBinary(schema, b) };
  const { answer, replayed } = await idempotentTransaction(pool, idem, codec, async (c) => create(schema, await fn(c)));
  if (replayed) ctx.responseHeader.set(IDEMPOTENCY_REPLAYED_HEADER, 'true');
  return answer;
}

/**
 * `withIdempotency`'s transaction for any kind of answer: `fn`'s answer and the record in one transaction, or the
 * record's answer replayed (`replayed`, `fn` not run). Without a record, just `withTransaction`.
 */
export async function idempotentTransaction<T>(
  pool: Pool,
  idem: IdempotencyRecord | undefined,
  codec: AnswerCodec<T>,
  fn: (c: PoolClient) => Promise<T>,
): Promise<{ answer: T; replayed: boolean }> {
  if (!idem) return { answer: await withTransaction(pool, fn), replayed: false };
  return withTransaction(pool, async (c) => {
    const window = `${idem.ttlSeconds} seconds`;
    const taken = await c.query(
      `INSERT INTO idempotency_keys (record, fingerprint) VALUES ($1, $2)
       ON CONFLICT (record) DO UPDATE SET fingerprint = EXCLUDED.fingerprint, answer = NULL, created_at = now()
        WHERE idempotency_keys.created_at < now() - $3::interval
       RETURNING record`,
      [idem.record, idem.fingerprint, window],
    );
    if (taken.rowCount === 0) {
      const { rows } = await c.query('SELECT fingerprint, answer FROM idempotency_keys WHERE record = $1', [idem.record]);
      const found = rows[0] as { fingerprint: string; answer: Buffer } | undefined;
      if (!found) throw new AppError('IDEMPOTENCY_KEY_IN_PROGRESS');
      if (found.fingerprint !== idem.fingerprint) throw new AppError('IDEMPOTENCY_KEY_REUSE');
      const plain = openAnswer(idem.sealKey, found.answer);
      if (!plain)
        throw new AppError('IDEMPOTENCY_KEY_REUSE', 'This key was used with another credential (a rotated token?); use a new key');
      return { answer: codec.decode(plain), replayed: true };
    }
    const answer = await fn(c);
    await c.query('UPDATE idempotency_keys SET answer = $2 WHERE record = $1', [
      idem.record,
      sealAnswer(idem.sealKey, codec.encode(answer)),
    ]);
    // SKIP LOCKED: two creates at once never wait for each other's expired rows (nor lock them in opposite orders).
    await c.query(
      `DELETE FROM idempotency_keys WHERE record IN
         (SELECT record FROM idempotency_keys WHERE created_at < now() - $1::interval
           LIMIT ${EXPIRED_DROPPED_PER_CREATE} FOR UPDATE SKIP LOCKED)`,
      [window],
    );
    return { answer, replayed: false };
  });
}
