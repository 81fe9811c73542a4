/**
 * Token secrets (spec §5), shared by the identity service (which issues them) and the gateway (which reads
 * them from requests and sends identity only their SHA-256). A token reads `svc_pat_<64 hex secret><8 hex CRC-32 of the secret>`: the checksum lets the
 * gateway refuse a mistyped or made-up token before any lookup. The compatibility upload key spells the same
 * secret `trx_production_<64 hex>` (also `trx_staging_`, `trx_development_`). Only SHA-256(secret) is stored:
 * a 256-bit random secret needs no slow hash.
 */
import { createHash, randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';

const TOKEN_PREFIX = 'svc_pat_';
const TOKEN_SHAPE = /^svc_pat_([0-9a-f]{64})([0-9a-f]{8})$/;
const UPLOAD_KEY_SHAPE = /^trx_(production|staging|development)_([0-9a-f]{64})$/;

function checksum(secret: string): string {
  return crc32(secret).toString(16).padStart(8, '0');
}

export interface IssuedSecret {
  secret: string;
  token: string;
  uploadKey: string;
  hash: Buffer;
}

export function issueSecret(): IssuedSecret {
  const secret = randomBytes(32).toString('hex');
  return { secret, token: `${TOKEN_PREFIX}${secret}${checksum(secret)}`, uploadKey: `trx_production_${secret}`, hash: hashSecret(secret) };
}

export function hashSecret(secret: string): Buffer {
  return createHash('sha256').update(secret, 'utf8').digest();
}

/** The secret of a well-formed `svc_pat_` token, or undefined (wrong shape or checksum). */
export function parseToken(token: string): string | undefined {
  const m = TOKEN_SHAPE.exec(token);
  if (!m) return undefined;
  return checksum(m[1]!) === m[2] ? m[1] : undefined;
}

/** The secret inside a compatibility upload key, or undefined. */
export function parseUploadKey(key: string): string | undefined {
  return UPLOAD_KEY_SHAPE.exec(key)?.[2];
}

/** `Authorization: Bearer svc_pat_…` exactly: case-sensitive scheme, one space. */
export function bearerToken(header: string | undefined): string | undefined {
  if (!header || !header.startsWith('Bearer ')) return undefined;
  const token = header.slice('Bearer '.length);
  return token.startsWith(TOKEN_PREFIX) ? token : undefined;
}
