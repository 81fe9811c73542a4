/**
 * The object-storage port: what the runs service needs to keep artifact bytes (screenshots, videos, traces,
 * uploaded files) outside Postgres. Two adapters stream both ways and never hold a whole object in memory:
 * the local filesystem (one machine, zero set-up) and any S3-compatible store (a cluster).
 *
 * Keys are the caller's own (`projects/<id>/artifacts/<id>`): never a user-supplied path.
 */
import { createHash } from 'node:crypto';
import { Transform, type Readable } from 'node:stream';

export interface StoredObject {
  size: number;
  /** Hex SHA-256 of the bytes as stored. */
  sha256: string;
}

export interface PutOptions {
  contentType: string;
  /** Larger bodies fail with ObjectTooLarge and leave nothing behind. */
  maxBytes: number;
}

/** Inclusive byte range, as in an HTTP `Range: bytes=start-end` header. */
export interface ByteRange {
  start: number;
  end: number;
}

export interface ObjectRead {
  body: Readable;
  /** Size of the whole object (not of the range). */
  size: number;
}

export interface ObjectStore {
  readonly kind: 'filesystem' | 's3';
  /** Whether the store can be used now: the folder is writable, the bucket exists and answers. */
  ready(): Promise<boolean>;
  /** Creates the folder or the bucket when missing (S3: only where the credentials may, e.g. a dev server). */
  create(): Promise<void>;
  put(key: string, body: Readable, opts: PutOptions): Promise<StoredObject>;
  /** The object (or one range of it), or null when there is no such object. */
  get(key: string, range?: ByteRange): Promise<ObjectRead | null>;
  /** Removes the objects; missing keys are not an error. */
  delete(keys: string[]): Promise<void>;
}

export class ObjectTooLarge extends Error {
  constructor(readonly maxBytes: number) {
    super(`object larger than ${maxBytes} bytes`);
    this.name = 'ObjectTooLarge';
  }
}

const KEY = /^[A-Za-z0-9][A-Za-z0-9._-]*(\/[A-Za-z0-9][A-Za-z0-9._-]*)*$/;

/** Keys are generated, never taken from a request; this refuses anything that could escape the root. */
export function checkKey(key: string): string {
  if (key.length > 512 || !KEY.test(key) || key.split('/').some((p) => p === '..' || p === '.'))
    throw new Error(`invalid object key: ${JSON.stringify(key)}`);
  return key;
}

/**
 * A pass-through that counts and hashes what flows and fails once more than `maxBytes` have passed, so a
 * store never writes past the limit. `result()` is read after the stream ends.
 */
export function meter(maxBytes: number): Transform & { result(): StoredObject } {
  const hash = createHash('sha256');
  let size = 0;
  let digest: string | undefined;
  const t = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      size += chunk.length;
      if (size > maxBytes) return cb(new ObjectTooLarge(maxBytes));
      hash.update(chunk);
      cb(null, chunk);
    },
    flush(cb) {
      digest = hash.digest('hex');
      cb();
    },
  });
  return Object.assign(t, {
    result: (): StoredObject => {
      if (digest === undefined) throw new Error('meter read before the stream ended');
      return { size, sha256: digest };
    },
  });
}
