/**
 * The `action-rules` family's handler (handlers/action-rules.ts): active rules counted per operation (a rule with
 * several counts under each; expired and disabled ones not at all) and the distinct tests quarantined in the
 * window (7 days, or 30; anything else is 7). Quarantine is applied by the ingestion, as reports come in.
 */
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { RuleOperation } from '@assay/proto/assay/runs/v1/runs_pb';
import { as, principal } from '@assay/testkit';
import { runsUnit, streamRun, type RunsUnit } from './support';

let u: RunsUnit;
const viewer = as(principal('viewer'));
const P = '4'.repeat(24);

beforeAll(async () => {
  u = await runsUnit('runs_action_rules');
});
afterAll(() => u.db.drop());

describe('action-rules handler', () => {
  it('counts the active rules per operation and the quarantined tests of the window', async () => {
    const create = (operations: RuleOperation[], over: Record<string, unknown> = {}) =>
      u.admin.createRule({ projectId: P, name: 'r', operations, titlePattern: 'flaky', tag: '@q', ...over });
    await create([RuleOperation.QUARANTINE, RuleOperation.TAG]);
    await create([RuleOperation.SKIP]);
    await create([RuleOperation.SKIP], { expiresAt: timestampFromDate(new Date(Date.now() - 1000)) });
    const off = await create([RuleOperation.TAG]);
    await u.admin.disableRule({ id: off.id });

    const empty = await u.runs.getActionRulesSummary({ projectId: P }, viewer);
    expect(empty).toMatchObject({ skip: 1, quarantine: 1, tag: 1, quarantinedTests: 0, windowDays: 7 });

    // Two quarantined tests (the same one twice counts once), one that matches no rule.
    await streamRun(u, P, [
      { titlePath: ['flaky one'], status: 'failed', errors: [{ message: 'x' }] },
      { titlePath: ['flaky two'], status: 'passed' },
      { titlePath: ['steady'], status: 'failed', errors: [{ message: 'y' }] },
    ]);
    const second = await streamRun(u, P, [{ titlePath: ['flaky one'], status: 'failed', errors: [{ message: 'x' }] }]);
    // A quarantined failure does not fail the run.
    expect(second.finished!.status).toBe('passed');
    expect((await u.runs.getActionRulesSummary({ projectId: P }, viewer)).quarantinedTests).toBe(2);
    expect(await u.runs.getActionRulesSummary({ projectId: P, windowDays: 30 }, viewer)).toMatchObject({
      windowDays: 30,
      quarantinedTests: 2,
    });
    expect((await u.runs.getActionRulesSummary({ projectId: P, windowDays: 12 }, viewer)).windowDays).toBe(7);
    // Ten days on, the results are outside the 7-day window but inside the 30-day one.
    u.shift(10 * 86_400_000);
    try {
      expect((await u.runs.getActionRulesSummary({ projectId: P }, viewer)).quarantinedTests).toBe(0);
      expect((await u.runs.getActionRulesSummary({ projectId: P, windowDays: 30 }, viewer)).quarantinedTests).toBe(2);
    } finally {
      u.shift(-10 * 86_400_000);
    }
  });

  it('runs title patterns in linear time: a pattern that backtracks catastrophically in JavaScript still answers', async () => {
    // (a+)+$ on 40 a's and a "!" takes 2^40 steps in a backtracking engine; RE2 answers at once.
    const Q = '3'.repeat(24);
    await u.admin.createRule({ projectId: Q, name: 'nested', operations: [RuleOperation.QUARANTINE], titlePattern: '^(a+)+$' });
    const evil = await streamRun(u, Q, [{ titlePath: [`${'a'.repeat(40)}!`], status: 'failed', errors: [{ message: 'x' }] }]);
    expect(evil.finished!.status).toBe('failed');
    const plain = await streamRun(u, Q, [{ titlePath: ['AAAA'], status: 'failed', errors: [{ message: 'x' }] }]);
    expect(plain.finished!.status).toBe('passed');
  });
});
