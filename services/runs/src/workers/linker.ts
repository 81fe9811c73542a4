/**
 * Links automated tests to the manual cases their annotations name (`TC-12`) through the manual-testing
 * service's LinkAutomatedTest RPC (idempotent per case and test), after the ingestion committed. A failed call
 * leaves the link pending and retries with a growing delay; after 20 attempts it is given up.
 */
import { withTransaction } from '@assay/db';
import type { Client } from '@connectrpc/connect';
import type { ManualTestingService } from '@assay/proto/assay/manualtesting/v1/manual_testing_pb';
import type { Wiring } from '../wiring';
import { claimPendingLinks, settleLink } from '../store/links';
import { Loop } from '@assay/service-kit';

const MAX_ATTEMPTS = 20;

export async function linkOnce(rt: Wiring, client: Client<typeof ManualTestingService>): Promise<number> {
  return withTransaction(rt.pool, async (c) => {
    const pending = await claimPendingLinks(c, 50);
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
          rt.logger.warn({ caseRef: l.caseRef, err: { message: (err as Error).message } }, 'linking to a manual case failed; will retry');
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

export function linker(rt: Wiring, client: Client<typeof ManualTestingService>): Loop {
  return new Loop('manual-case-linker', async () => (await linkOnce(rt, client)) === 50, 2000, rt.logger);
}
