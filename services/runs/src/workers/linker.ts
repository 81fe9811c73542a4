/**
 * Links automated tests to the manual cases their annotations name (`TC-12`) through the manual-testing
 * service's LinkAutomatedTest RPC (idempotent per case and test), after the ingestion committed. A failed call
 * leaves the link pending and retries with a growing delay; after 20 attempts it is given up.
 */
import { withTransaction } from '@assay/db';
import { Loop } from '@assay/service-kit';
import type { Wiring } from '../wiring';
import { claimPendingLinks, settleLink } from '../store/links';

const MAX_ATTEMPTS = 20;
const BATCH = 50;

export async function linkOnce(w: Wiring): Promise<number> {
  const client = w.manualTesting;
  return withTransaction(w.pool, async (c) => {
    const pending = await claimPendingLinks(c, BATCH);
    for (const l of pending) {
      try {
        const res = await client.linkAutomatedTest(
          { projectId: l.projectId, caseRef: l.caseRef, testId: l.testId, fullTitle: l.fullTitle, source: 'auto_created' },
          { timeoutMs: 5000 },
        );
        await settleLink(c, l, res.linked ? { state: 'linked', caseId: res.caseId } : { state: 'not_found' });
      } catch (err) {
        const attempts = l.attempts + 1;
        if (attempts === 1)
          w.logger.warn({ caseRef: l.caseRef, err: { message: (err as Error).message } }, 'linking to a manual case failed; will retry');
        await settleLink(
          c,
          l,
          attempts >= MAX_ATTEMPTS ? { state: 'failed' } : { state: 'pending', retryInSeconds: Math.min(600, 2 ** attempts) },
        );
      }
    }
    return pending.length;
  });
}

export function linker(w: Wiring): Loop {
  return new Loop('manual-case-linker', async () => (await linkOnce(w)) === BATCH, 2000, w.logger);
}
