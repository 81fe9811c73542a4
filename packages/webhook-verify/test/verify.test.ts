/**
 * Golden vectors for the webhook signature (spec §6). The expected hex values were computed independently
 * with Python's hmac module:
 *   hmac.new(secret, f"{t}.".encode() + body, hashlib.sha256).hexdigest()
 */
import {
  computeSignature,
  isValidSignature,
  parseSignatureHeader,
  signatureHeader,
  verifySignature,
  WebhookVerificationError,
  type VerifyFailure,
} from '../src';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const T = 1700000000;
const BODY = '{"id":"evt_1","event":"RUN_FINISHED"}';
const SIG = 'fc88a74ec659ec498d463c4b71c8cc9ca9f4751ffab7eecaa7a8808c54a7cf06';
const UTF8_BODY = Buffer.from('{"msg":"héllo ✓"}', 'utf8');
const UTF8_SIG = '70af65f64b23bebc5de45820489b06cb99a5ef07bf2f5f46e44921f32966bdb2';
/** The same body signed with another secret (`whsec_other`). */
const OTHER_SECRET_SIG = '42e78cf6e5cf1c1982962ddfa10ddef05b570e0708ef7cff1c7706c54a0901f5';

function failure(fn: () => unknown): VerifyFailure {
  try {
    fn();
  } catch (err) {
    if (err instanceof WebhookVerificationError) return err.reason;
    throw err;
  }
  throw new Error('expected a verification failure');
}

describe('webhook signatures', () => {
  it('computes the golden vectors (ASCII and UTF-8 bodies, string and Buffer)', () => {
    expect(computeSignature(SECRET, T, BODY)).toBe(SIG);
    expect(computeSignature(SECRET, T, Buffer.from(BODY))).toBe(SIG);
    expect(computeSignature(SECRET, T, UTF8_BODY)).toBe(UTF8_SIG);
    expect(signatureHeader(SECRET, T, BODY)).toBe(`t=${T},v1=${SIG}`);
  });

  it('accepts a valid signature within the tolerance, both directions', () => {
    expect(verifySignature(BODY, `t=${T},v1=${SIG}`, SECRET, { now: T })).toBe(T);
    expect(verifySignature(BODY, `t=${T},v1=${SIG}`, SECRET, { now: T + 300 })).toBe(T);
    expect(verifySignature(BODY, `t=${T},v1=${SIG}`, SECRET, { now: T - 300 })).toBe(T);
    expect(verifySignature(UTF8_BODY, `t=${T},v1=${UTF8_SIG}`, SECRET, { now: T })).toBe(T);
    expect(verifySignature(BODY, `t=${T}, v1=${SIG.toUpperCase()}`, SECRET, { now: T })).toBe(T);
  });

  it('refuses a missing or malformed header', () => {
    expect(failure(() => verifySignature(BODY, undefined, SECRET, { now: T }))).toBe('missing_header');
    expect(failure(() => verifySignature(BODY, '', SECRET, { now: T }))).toBe('missing_header');
    expect(failure(() => verifySignature(BODY, `v1=${SIG}`, SECRET, { now: T }))).toBe('malformed_header');
    expect(failure(() => verifySignature(BODY, `t=abc,v1=${SIG}`, SECRET, { now: T }))).toBe('malformed_header');
    expect(failure(() => verifySignature(BODY, `t=${T}`, SECRET, { now: T }))).toBe('no_signature');
    expect(failure(() => verifySignature(BODY, `t=${T},v0=${SIG}`, SECRET, { now: T }))).toBe('no_signature');
  });

  it('refuses a stale timestamp (more than 300 s old) and one from the future', () => {
    expect(failure(() => verifySignature(BODY, `t=${T},v1=${SIG}`, SECRET, { now: T + 301 }))).toBe('timestamp_too_old');
    expect(failure(() => verifySignature(BODY, `t=${T},v1=${SIG}`, SECRET, { now: T - 301 }))).toBe('timestamp_in_future');
    expect(verifySignature(BODY, `t=${T},v1=${SIG}`, SECRET, { now: T + 3600, toleranceSeconds: 3600 })).toBe(T);
  });

  it('accepts the header when any of several v1 values matches, and refuses when none does', () => {
    expect(verifySignature(BODY, `t=${T},v1=${OTHER_SECRET_SIG},v1=${SIG}`, SECRET, { now: T })).toBe(T);
    expect(verifySignature(BODY, `t=${T},v1=${SIG},v1=${OTHER_SECRET_SIG}`, SECRET, { now: T })).toBe(T);
    expect(verifySignature(BODY, [`t=${T},v1=${OTHER_SECRET_SIG}`, `v1=${SIG}`], SECRET, { now: T })).toBe(T);
    expect(verifySignature(BODY, `t=${T},v1=nothex,v2=abc,v1=${SIG}`, SECRET, { now: T })).toBe(T);
    expect(failure(() => verifySignature(BODY, `t=${T},v1=${OTHER_SECRET_SIG},v1=${'0'.repeat(64)}`, SECRET, { now: T }))).toBe('mismatch');
  });

  it('refuses a tampered body, a changed timestamp, a wrong secret and a truncated signature', () => {
    expect(failure(() => verifySignature(BODY.replace('evt_1', 'evt_2'), `t=${T},v1=${SIG}`, SECRET, { now: T }))).toBe('mismatch');
    expect(failure(() => verifySignature(`${BODY} `, `t=${T},v1=${SIG}`, SECRET, { now: T }))).toBe('mismatch');
    // Re-serialized JSON differs from the raw bytes.
    expect(failure(() => verifySignature(JSON.stringify(JSON.parse(BODY), null, 2), `t=${T},v1=${SIG}`, SECRET, { now: T }))).toBe(
      'mismatch',
    );
    expect(failure(() => verifySignature(BODY, `t=${T + 1},v1=${SIG}`, SECRET, { now: T }))).toBe('mismatch');
    expect(failure(() => verifySignature(BODY, `t=${T},v1=${SIG}`, 'whsec_other', { now: T }))).toBe('mismatch');
    expect(failure(() => verifySignature(BODY, `t=${T},v1=${SIG.slice(0, 63)}`, SECRET, { now: T }))).toBe('mismatch');
    expect(isValidSignature(BODY, `t=${T},v1=${SIG}`, 'whsec_other', { now: T })).toBe(false);
    expect(isValidSignature(BODY, `t=${T},v1=${SIG}`, SECRET, { now: T })).toBe(true);
  });

  it('parses every v1 value and ignores other schemes', () => {
    expect(parseSignatureHeader(`t=${T},v1=a,v2=b,v1=c`)).toEqual({ timestamp: T, signatures: ['a', 'c'] });
  });
});
