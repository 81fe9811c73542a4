/** Pending links from automated tests to manual cases (made through the manual-testing RPC by a worker). */
import type { PoolClient } from '@assay/db';

export interface PendingLink {
  projectId: string;
  testId: string;
  caseRef: string;
  fullTitle: string;
  attempts: number;
}

export async function claimPendingLinks(client: PoolClient, limit: number): Promise<PendingLink[]> {
  const { rows } = await client.query(
    `SELECT project_id, test_id, case_ref, full_title, attempts FROM manual_links
      WHERE state = 'pending' AND updated_at <= now() ORDER BY updated_at LIMIT $1 FOR UPDATE SKIP LOCKED`,
    [limit],
  );
  return rows.map((r) => ({
    projectId: r.project_id,
    testId: r.test_id,
    caseRef: r.case_ref,
    fullTitle: r.full_title,
    attempts: r.attempts,
  }));
}

export async function settleLink(
  client: PoolClient,
  l: PendingLink,
  outcome: { state: 'linked' | 'not_found' | 'failed' | 'pending'; caseId?: string; retryInSeconds?: number },
): Promise<void> {
  await client.query(
    `UPDATE manual_links SET state = $4, case_id = coalesce($5, case_id), attempts = attempts + 1,
            updated_at = now() + make_interval(secs => $6)
      WHERE project_id = $1 AND test_id = $2 AND case_ref = $3`,
    [l.projectId, l.testId, l.caseRef, outcome.state, outcome.caseId ?? null, outcome.retryInSeconds ?? 0],
  );
}
