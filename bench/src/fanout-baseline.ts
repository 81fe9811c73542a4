/**
 * The bare loop of the webhook-fanout benchmark (bench/src/webhook-fanout.ts), in a process of its own as the
 * webhooks service is: it POSTs the bodies Assay delivered, signed afresh per request as the dispatcher signs
 * them (fanout-post.ts), to the same receivers, with the same concurrency, through an undici Agent with the
 * sender's very settings (`agentOptions` of services/webhooks: keep-alive connections per origin,
 * timeouts), the answer drained and never read. No database, no broker, no decryption: what Assay spends above
 * it is the architecture's cost.
 *
 * Driven over IPC by the benchmark: `{ setup }` once, then `{ round }` → `{ done, t0, errors }`.
 */
import { Agent } from 'undici';
import { agentOptions } from '@assay/webhooks/dist/domain/sender';
import { signedPost, type SignedPost } from './fanout-post';

export type BaselineTarget = SignedPost;

export type BaselineRequest =
  { setup: { targets: BaselineTarget[]; concurrency: number; timeoutMs: number; connections: number } } | { round: number };

export interface BaselineAnswer {
  done: number;
  /** Date.now() when the loop started. */
  t0: number;
  errors: number;
}

let targets: BaselineTarget[] = [];
let concurrency = 1;
let timeoutMs = 10000;
let agent: Agent | undefined;

const post = (t: BaselineTarget) => signedPost(agent!, t, timeoutMs);

async function round(): Promise<BaselineAnswer> {
  const t0 = Date.now();
  let next = 0;
  let errors = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, targets.length) }, async () => {
      for (;;) {
        const i = next++;
        if (i >= targets.length) return;
        if (!(await post(targets[i]!).catch(() => false))) errors++;
      }
    }),
  );
  return { done: 0, t0, errors };
}

process.on('message', (m: BaselineRequest) => {
  if ('setup' in m) {
    ({ targets, concurrency, timeoutMs } = m.setup);
    // As the bench runs the webhooks service: WEBHOOK_ALLOW_PRIVATE_TARGETS=true (the receivers are local).
    agent = new Agent(agentOptions({ timeoutMs, allowPrivateTargets: true, connections: m.setup.connections }));
    process.send!({ done: -1, t0: 0, errors: 0 } satisfies BaselineAnswer);
    return;
  }
  void round().then((a) => process.send!({ ...a, done: m.round } satisfies BaselineAnswer));
});
process.on('disconnect', () => void agent?.close().finally(() => process.exit(0)));
