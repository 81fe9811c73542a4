/**
 * The `usage` family's handlers (handlers/usage.ts over store/usage.ts): the caller's organization's plan (the
 * default one until plan:set), the current UTC month, the test results and runs ingested in it; plan:set's
 * checks; and the quota the ingestion enforces from the same numbers.
 */
import { timestampDate } from '@bufbuild/protobuf/wkt';
import { Code } from '@connectrpc/connect';
import { as, principal } from '@assay/testkit';
import { normalizeMetadata } from '../../src/ingest/normalize';
import { readResultBatch } from '../../src/ingest/stream';
import { bytes, failure, runsUnit, streamRun, writer, type RunsUnit } from './support';

let u: RunsUnit;
const P = '5'.repeat(24);
const ORG = '6'.repeat(24);
const ofOrg = as(principal('viewer', { orgId: ORG }));

beforeAll(async () => {
  u = await runsUnit('runs_usage', { DEFAULT_PLAN_NAME: 'starter', DEFAULT_TEST_RESULTS_PER_MONTH: '3' });
});
afterAll(() => u.db.drop());

describe('usage handlers', () => {
  it('answers the default plan, the current month and what the organization ingested in it', async () => {
    const before = await u.runs.getUsage({ projectId: P }, ofOrg);
    const now = new Date();
    expect(before).toMatchObject({ planName: 'starter', testResultsPerMonth: 3n, usedTestResults: 0n, usedRuns: 0n, remaining: 3n });
    expect(timestampDate(before.periodStart!)).toEqual(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)));
    expect(timestampDate(before.periodEnd!)).toEqual(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)));

    await streamRun(
      u,
      P,
      [
        { titlePath: ['a'], status: 'passed' },
        { titlePath: ['b'], status: 'passed' },
      ],
      { caller: writer(ORG) },
    );
    expect(await u.runs.getUsage({ projectId: P }, ofOrg)).toMatchObject({ usedTestResults: 2n, usedRuns: 1n, remaining: 1n });
    // Another organization's usage is its own.
    expect((await u.runs.getUsage({ projectId: P }, as(principal('viewer', { orgId: '7'.repeat(24) })))).usedRuns).toBe(0n);
    expect((await failure(u.runs.getUsage({ projectId: P }))).code).toBe(Code.Unauthenticated);
  });

  it('refuses a batch that would go over the plan (nothing of it is kept), and a new run once the quota is used', async () => {
    const org = '8'.repeat(24);
    const started = await u.ingestion.start(P, writer(org), { metadata: normalizeMetadata(undefined) });
    const batch = (n: number) => Array.from({ length: n }, (_, i) => ({ file: 'q.spec.ts', titlePath: [`t${i}`], status: 'passed' }));
    expect((await failure(u.ingestion.results(P, started.runId, readResultBatch(bytes({ results: batch(4) }))))).reason).toBe(
      'QUOTA_LIMIT_EXCEEDED',
    );
    const usage = await u.runs.getUsage({ projectId: P }, as(principal('viewer', { orgId: org })));
    expect(usage).toMatchObject({ usedTestResults: 0n, usedRuns: 1n });
    await u.ingestion.results(P, started.runId, readResultBatch(bytes({ results: batch(3) })));
    expect((await failure(u.ingestion.start(P, writer(org), { metadata: normalizeMetadata(undefined) }))).reason).toBe(
      'QUOTA_LIMIT_EXCEEDED',
    );
  });

  it('plan:set changes the organization’s plan and checks its flags', async () => {
    await u.admin.setPlan({ orgId: ORG, planName: ' team ', testResultsPerMonth: 100n });
    expect(await u.runs.getUsage({ projectId: P }, ofOrg)).toMatchObject({ planName: 'team', testResultsPerMonth: 100n, remaining: 98n });
    for (const [req, path] of [
      [{ orgId: '', planName: 'x' }, 'org'],
      [{ orgId: ORG, planName: ' ' }, 'plan'],
      [{ orgId: ORG, planName: 'x', testResultsPerMonth: -1n }, 'test-results-per-month'],
    ] as const) {
      expect(await failure(u.admin.setPlan(req))).toMatchObject({ reason: 'VALIDATION_ERROR', paths: [path] });
    }
  });
});
