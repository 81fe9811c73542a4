/**
 * Automated runs sent the way a CI job sends them (the ingestion API), and the wait for the analytics service to
 * fold them (from Kafka) before a page shows them.
 */
import fs from 'node:fs';
import type { Api } from '@assay/testkit';
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

/** The spec file and title of `reportWithFiles`' test. */
export const FILE = 'specs/checkout.spec.ts';
const TITLE_PATH = ['checkout', 'pays with a saved card'];

export interface Attachment {
  name: string;
  contentType: string;
  path: string;
}

/**
 * One failing test whose attempt lists `attachments`: ingested, then each file uploaded (through `client`: the
 * shared test system's API unless another system's is given). Answers the result's id.
 */
export async function reportWithFiles(
  t: Project,
  attachments: Attachment[],
  client: Api = api(t.token),
): Promise<{ runId: string; caseId: string }> {
  const report = {
    config: { rootDir: '/ci/shop' },
    suites: [
      {
        title: FILE,
        file: FILE,
        specs: [],
        suites: [
          {
            title: TITLE_PATH[0],
            file: FILE,
            specs: [
              {
                title: TITLE_PATH[1],
                file: FILE,
                ok: false,
                tags: [],
                tests: [
                  {
                    projectName: 'chromium',
                    expectedStatus: 'passed',
                    status: 'unexpected',
                    annotations: [],
                    results: [
                      {
                        retry: 0,
                        status: 'failed',
                        duration: 1200,
                        startTime: new Date().toISOString(),
                        errors: [{ message: 'Error: expect(locator).toHaveText(expected)\n\nExpected: "Paid"\nReceived: "Pay"' }],
                        steps: [],
                        stdout: [],
                        stderr: [],
                        attachments,
                      },
                    ],
                  },
                ],
              },
            ],
          },
        ],
      },
    ],
    stats: { startTime: new Date().toISOString(), duration: 1500 },
    errors: [],
  };
  const ingested = await client.request('POST', `/api/v1/ingest/${t.projectId}/playwright`, {
    rawBody: JSON.stringify(report),
    headers: { 'content-type': 'application/json' },
  });
  expect(ingested.status, ingested.text).toBe(201);
  const runId = ingested.body.data.runId as string;
  for (const a of attachments) {
    const q = new URLSearchParams({ file: FILE, projectName: 'chromium', retry: '0', name: a.name, path: a.path });
    for (const p of TITLE_PATH) q.append('titlePath', p);
    const up = await client.request('POST', `/api/v1/ingest/${t.projectId}/runs/${runId}/artifacts?${q}`, {
      rawBody: fs.readFileSync(a.path),
      headers: { 'content-type': a.contentType },
    });
    expect(up.status, up.text).toBe(201);
  }
  const cases = await client.get(`/${t.projectId}/test-runs/${runId}/test-cases`);
  return { runId, caseId: cases.body.data[0].id };
}
