/**
 * Automated runs sent the way a CI job sends them (the ingestion API), and the wait for the analytics service to
 * fold them (from Kafka) before a page shows them.
 */
import { api, expect } from './fixtures';

type Project = { token: string; projectId: string };

/** A CI job's ingestion call into `t`'s project: `path` under `/api/v1/ingest/{projectId}`, `body` sent as JSON. */
export const ingestInto = (t: Project) => (path: string, body: unknown) =>
  api(t.token).request('POST', `/api/v1/ingest/${t.projectId}${path}`, {
    rawBody: JSON.stringify(body),
    headers: { 'content-type': 'application/json' },
  });

/** Analytics folds finished runs from Kafka: waits until the window of `days` counts `runs` of them. */
export async function folded(t: Project, runs: number, days: number): Promise<void> {
  await expect(async () => {
    const s = await api(t.token).get(`/${t.projectId}/analytics/summary?days=${days}`);
    expect(s.body.data.totals.runs).toBe(runs);
  }).toPass({ timeout: 60_000 });
}
