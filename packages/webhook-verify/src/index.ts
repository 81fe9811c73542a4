/**
 * Assay webhook signatures (spec §6): header `X-Service-Signature: t=<unix seconds>,v1=<hex>` where the hex
 * is HMAC-SHA256, keyed with the subscription's signing secret (its UTF-8 bytes, `whsec_` prefix included),
 * of the string `<t>.<raw request body>`.
 *
 * A receiver verifies with `verifySignature(rawBody, header, secret)`: it parses every `v1=` value (several
 * may be present, e.g. during a secret rotation), compares each with a timing-safe comparison, and rejects
 * a timestamp more than 300 seconds away from its clock in either direction. It must be given the raw bytes
 * of the body: re-serialized JSON does not match.
 *
 * No dependencies beyond node:crypto, so a receiver can copy this one file.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'x-service-signature';
export const EVENT_HEADER = 'x-service-event';
export const DELIVERY_HEADER = 'x-service-delivery';
/** Spec §6 and §8: a timestamp further than this from the receiver's clock is refused. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

export type VerifyFailure =
  'missing_header' | 'malformed_header' | 'no_signature' | 'timestamp_too_old' | 'timestamp_in_future' | 'mismatch';

export class WebhookVerificationError extends Error {
  constructor(
    readonly reason: VerifyFailure,
    message: string,
  ) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

export interface VerifyOptions {
  /** Seconds; default 300. */
  toleranceSeconds?: number;
  /** The receiver's clock in unix seconds (tests); default now. */
  now?: number;
}

/** Hex HMAC-SHA256 of `<timestamp>.<body>` keyed with `secret`. */
export function computeSignature(secret: string, timestamp: number, body: string | Buffer): string {
  return createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex');
}

/** The header value for one signature: `t=<unix>,v1=<hex>`. */
export function signatureHeader(secret: string, timestamp: number, body: string | Buffer): string {
  return `t=${timestamp},v1=${computeSignature(secret, timestamp, body)}`;
}

export interface ParsedSignature {
  timestamp: number;
  signatures: string[];
}

/** Parses `t=…,v1=…[,v1=…]`; unknown schemes (e.g. a future `v2=`) are ignored. */
export function parseSignatureHeader(header: string): ParsedSignature {
  let timestamp: number | undefined;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't') {
      if (!/^\d{1,12}$/.test(value)) throw new WebhookVerificationError('malformed_header', 'the t= value is not a unix timestamp');
      timestamp = Number(value);
    } else if (key === 'v1') {
      signatures.push(value);
    }
  }
  if (timestamp === undefined) throw new WebhookVerificationError('malformed_header', 'no t= timestamp in the signature header');
  if (signatures.length === 0) throw new WebhookVerificationError('no_signature', 'no v1= signature in the signature header');
  return { timestamp, signatures };
}

/**
 * Verifies a delivery; returns its timestamp or throws WebhookVerificationError. `header` is the value of
 * `X-Service-Signature` (undefined or an array when the framework gives one are handled).
 */
export function verifySignature(
  rawBody: string | Buffer,
  header: string | string[] | undefined | null,
  secret: string,
  opts: VerifyOptions = {},
): number {
  const value = Array.isArray(header) ? header.join(',') : header;
  if (!value) throw new WebhookVerificationError('missing_header', 'the X-Service-Signature header is missing');
  const { timestamp, signatures } = parseSignatureHeader(value);
  const tolerance = opts.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const now = opts.now ?? Math.floor(Date.now() / 1000);
  if (timestamp < now - tolerance) throw new WebhookVerificationError('timestamp_too_old', 'the signature timestamp is too old');
  if (timestamp > now + tolerance) throw new WebhookVerificationError('timestamp_in_future', 'the signature timestamp is in the future');
  const expected = Buffer.from(computeSignature(secret, timestamp, rawBody), 'hex');
  let matched = false;
  for (const sig of signatures) {
    if (!/^[0-9a-fA-F]{64}$/.test(sig)) continue;
    // Compare every candidate (no early exit), each in constant time.
    if (timingSafeEqual(expected, Buffer.from(sig, 'hex'))) matched = true;
  }
  if (!matched) throw new WebhookVerificationError('mismatch', 'no signature matches the body and the secret');
  return timestamp;
}

/** Boolean form of `verifySignature`. */
export function isValidSignature(
  rawBody: string | Buffer,
  header: string | string[] | undefined | null,
  secret: string,
  opts?: VerifyOptions,
): boolean {
  try {
    verifySignature(rawBody, header, secret, opts);
    return true;
  } catch (err) {
    if (err instanceof WebhookVerificationError) return false;
    throw err;
  }
}
