/** Shared by the webhook end-to-end tests: a private system whose webhooks service retries in milliseconds. */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { startPrivateSystem, type PrivateSystem } from '@assay/testkit';

export type { PrivateSystem };

const run = promisify(execFile);

/** Retry delays of 0.3 s instead of minutes; local receivers allowed (the SSRF guard is off in this copy). */
export const FAST_WEBHOOKS = {
  WEBHOOK_RETRY_DELAYS_SECONDS: '0.3,0.3,0.3,0.3',
  WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
  WEBHOOK_POLL_INTERVAL_MS: '50',
  WEBHOOK_TIMEOUT_MS: '2000',
};

/** The whole system on its own database and its own consumer group, so it shares no state with other tests. */
export function privateSystem(webhooksEnv: Record<string, string> = {}): Promise<PrivateSystem> {
  return startPrivateSystem({
    name: 'webhooks-e2e',
    envFor: { webhooks: { ...FAST_WEBHOOKS, WEBHOOK_CONSUMER_GROUP: `webhooks-e2e-${randomBytes(4).toString('hex')}`, ...webhooksEnv } },
  });
}

/**
 * An implementation of the signature check independent of ours: Python's hmac module. Exits 0 when the
 * header's v1 matches HMAC-SHA256(secret, "<t>.<raw body>") and t is within 300 s of now.
 */
export async function pythonVerifies(secret: string, header: string, body: Buffer): Promise<boolean> {
  const script = [
    'import hmac, hashlib, sys, time',
    'secret, header = sys.argv[1].encode(), sys.argv[2]',
    'body = sys.stdin.buffer.read()',
    'parts = [p.split("=", 1) for p in header.split(",")]',
    't = [v for k, v in parts if k == "t"][0]',
    'sigs = [v for k, v in parts if k == "v1"]',
    'expected = hmac.new(secret, t.encode() + b"." + body, hashlib.sha256).hexdigest()',
    'ok = any(hmac.compare_digest(expected, s) for s in sigs) and abs(time.time() - int(t)) <= 300',
    'sys.exit(0 if ok else 1)',
  ].join('\n');
  try {
    const child = run('python3', ['-c', script, secret, header]);
    child.child.stdin!.end(body);
    await child;
    return true;
  } catch {
    return false;
  }
}

/** Polls `fn` until it returns a value that satisfies `ok`. */
export async function eventually<T>(fn: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 30000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T;
  for (;;) {
    last = await fn();
    if (ok(last)) return last;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; last value: ${JSON.stringify(last).slice(0, 2000)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
