/**
 * The runs workers' units of work without Kafka (the relay's publishing is tested end to end in
 * test/events.test.ts): the sweeper turns runs that stopped reporting into `incomplete`, ended at their last
 * activity, with a RUN_FINISHED in the outbox; the linker links annotated tests through ManualTestingService and
 * retries a failed call later.
 */
import { ManualTestingService, type LinkAutomatedTestRequest } from '@assay/proto/assay/manualtesting/v1/manual_testing_pb';
import { RunStatus } from '@assay/proto/assay/events/v1/run_lifecycle_pb';
import { inMemoryClient } from '@assay/testkit';
import { pendingEvents } from '../../src/store/outbox';
import { sweepOnce } from '../../src/workers/sweeper';
import { linkOnce } from '../../src/workers/linker';
import { runsUnit, streamRun, type RunsUnit } from './support';

let u: RunsUnit;
const P = 'ab'.repeat(12);
const asked: LinkAutomatedTestRequest[] = [];

beforeAll(async () => {
  const manualTesting = inMemoryClient(ManualTestingService, (router) =>
    router.service(ManualTestingService, {
      async linkAutomatedTest(req) {
        asked.push(req);
        if (req.caseRef === 'TC-2') throw new Error('manual-testing is down');
        return { linked: true, caseId: 'm'.repeat(24), created: true };
      },
    }),
  );
  u = await runsUnit('runs_workers', { RUN_INACTIVITY_TIMEOUT_SECONDS: '60' }, { manualTesting });
});
afterAll(() => u.db.drop());

describe('runs workers', () => {
  it('sweeps a run with no activity past the timeout to incomplete, ended at its last activity, with RUN_FINISHED', async () => {
    const quiet = await streamRun(u, P, [{ titlePath: ['t'], status: 'passed' }], { finish: false });
    expect(await sweepOnce(u.w)).toBe(0);
    u.shift(120_000);
    try {
      expect(await sweepOnce(u.w)).toBe(1);
    } finally {
      u.shift(-120_000);
    }
    const snap = (await u.runs.getRunSnapshot({ runId: quiet.runId })).run!;
    expect(snap.status).toBe(RunStatus.INCOMPLETE);
    expect(snap.testStats).toMatchObject({ total: 1, passed: 1 });
    const ended = Number(snap.endTime!.seconds) * 1000;
    expect(ended).toBeLessThanOrEqual(Date.now());
    expect(ended).toBeGreaterThan(Date.now() - 60_000);
    const events = (await pendingEvents(u.db.pool, 100)).filter((e) => e.runId === quiet.runId).map((e) => e.type);
    expect(events).toEqual(['RUN_STARTED', 'RUN_FINISHED']);
    expect(await sweepOnce(u.w)).toBe(0);
  });

  it('links annotated tests to manual cases; a failed call stays pending for a later attempt', async () => {
    await streamRun(u, P, [
      { titlePath: ['first'], status: 'passed', annotations: [{ type: 'testcase', description: 'TC-1' }] },
      { titlePath: ['second'], status: 'passed', tags: ['@TC-2'] },
    ]);
    expect(await linkOnce(u.w)).toBe(2);
    expect(asked.map((r) => [r.caseRef, r.fullTitle, r.source, r.projectId])).toEqual(
      expect.arrayContaining([
        ['TC-1', 'first', 'auto_created', P],
        ['TC-2', 'second', 'auto_created', P],
      ]),
    );
    // TC-1 is settled; TC-2 waits for its retry delay.
    expect(await linkOnce(u.w)).toBe(0);
  });
});
