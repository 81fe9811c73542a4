/**
 * One signed webhook POST as the dispatcher sends it (spec §6: `X-Service-Signature: t=<unix>,v1=<hex
 * HMAC-SHA256 of "<t>.<body>">`, keyed with the subscription's secret; the same headers), the answer drained and
 * never read. Shared by the fan-out's bare loop (fanout-baseline.ts) and its floor (fanout-floor-worker.ts).
 */
import { createHmac } from 'node:crypto';
import { request, type Agent } from 'undici';

export interface SignedPost {
  url: string;
  secret: string;
  body: string;
  event: string;
  deliveryId: string;
}

/** True for a 2xx answer. */
export async function signedPost(agent: Agent, t: SignedPost, timeoutMs: number): Promise<boolean> {
  const timestamp = Math.floor(Date.now() / 1000);
  const signature = createHmac('sha256', t.secret).update(`${timestamp}.`).update(t.body).digest('hex');
  const res = await request(t.url, {
    method: 'POST',
    dispatcher: agent,
    headers: {
      'content-type': 'application/json',
      'user-agent': 'Assay-Webhooks/1.0',
      'x-service-signature': `t=${timestamp},v1=${signature}`,
      'x-service-event': t.event,
      'x-service-delivery': t.deliveryId,
    },
    body: t.body,
    signal: AbortSignal.timeout(timeoutMs),
  });
  res.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
  return res.statusCode >= 200 && res.statusCode < 300;
}
