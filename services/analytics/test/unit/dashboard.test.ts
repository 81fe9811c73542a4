/**
 * The `dashboard` family's handler (handlers/dashboard.ts: GetDashboard) through the in-memory transport, fed the
 * way production feeds it: run-lifecycle events through the consumer (workers/consumer.ts, the kit's EventWorker).
 * The runs running now are the runs service's (as it has them now: analytics hears only of a run's start and
 * finish), RUN_FINISHED folds a run (pulled from the runs service); replays change nothing, undecodable or
 * incomplete events are skipped.
 */
import { create, toBinary } from '@bufbuild/protobuf';
import { RunEventType, RunLifecycleEventSchema, TestStatsSchema } from '@assay/proto/assay/events/v1/run_lifecycle_pb';
import { createLogger } from '@assay/logger';
import { runEventConsumer } from '../../src/workers/consumer';
import { analyticsUnit, daysAgo, NOW, runOf, type AnalyticsUnit } from './fixture';

let u: AnalyticsUnit;
let consumer: ReturnType<typeof runEventConsumer>;
const P = 'd'.repeat(24);
const events: string[] = [];
let offset = 0;

const deliver = (value: Uint8Array) =>
  consumer.deliver({ topic: 't', partition: 0, offset: String(offset++), key: null, value: Buffer.from(value), headers: {} });
const event = (type: RunEventType, run: ReturnType<typeof runOf>['run'], projectId = P) =>
  toBinary(RunLifecycleEventSchema, create(RunLifecycleEventSchema, { eventId: `ev-${offset}`, type, projectId, run }));

beforeAll(async () => {
  u = await analyticsUnit('analytics_dashboard');
  consumer = runEventConsumer({
    bus: u.w.bus,
    model: u.w.model,
    logger: createLogger('consumer', 'silent'),
    groupId: 'unit',
    onEvent: (type, outcome) => events.push(`${type}:${outcome}`),
  });
});
afterAll(() => u.db.drop());

describe('dashboard handler (fed through the run-lifecycle consumer)', () => {
  it('a running run is active as the runs service has it now; finishing folds it into the 30-day figures', async () => {
    const [started] = u.publish(P, { id: 'run-1', at: new Date(NOW.getTime() - 90_000), status: 'running' });
    await deliver(event(RunEventType.RUN_STARTED, started!.run));
    // Its results stream in: the runs service's snapshot has them, the event had none.
    const [running] = u.publish(P, {
      id: 'run-1',
      at: new Date(NOW.getTime() - 90_000),
      status: 'running',
      results: [{ test: 'x', outcome: 'unexpected' }],
    });
    running!.run.testStats = create(TestStatsSchema, { total: 1, failed: 1 });
    let d = await u.client.getDashboard({ projectId: P });
    expect(d.runs).toMatchObject({ total: 0n, running: 1n });
    expect(d.activeRuns).toEqual([running!.run]);
    expect(d.activeRuns[0]!.testStats).toMatchObject({ total: 1, failed: 1 });

    const [done] = u.publish(P, { id: 'run-1', at: new Date(NOW.getTime() - 90_000), results: [{ test: 'x', outcome: 'unexpected' }] });
    await deliver(event(RunEventType.RUN_FINISHED, done!.run));
    d = await u.client.getDashboard({ projectId: P });
    expect(d.runs).toMatchObject({ total: 1n, failed: 1n, running: 0n });
    expect(d.activeRuns).toEqual([]);
    expect(d.topFailing.map((t) => t.title)).toEqual(['suite › x']);
    expect(events).toEqual(['started:recorded', 'finished:folded']);
  });

  it('a replayed RUN_FINISHED changes nothing; undecodable, project-less and unknown runs are skipped', async () => {
    const before = await u.client.getDashboard({ projectId: P });
    await deliver(event(RunEventType.RUN_FINISHED, runOf(P, { id: 'run-1', at: daysAgo(0) }).run));
    await deliver(new Uint8Array([0xff, 0xff, 0xff]));
    await deliver(event(RunEventType.RUN_FINISHED, runOf(P, { id: 'run-x', at: daysAgo(0) }).run, ''));
    await deliver(event(RunEventType.RUN_FINISHED, runOf(P, { id: 'never-published', at: daysAgo(0) }).run));
    expect(await u.client.getDashboard({ projectId: P })).toEqual(before);
    expect(events.slice(2)).toEqual(['finished:skipped', 'finished:skipped']);
  });

  it('covers a fixed 30-day window: the trend has 30 days and older runs do not count', async () => {
    await u.fold(
      P,
      { id: 'run-old', at: daysAgo(31), results: [{ test: 'y' }] },
      { id: 'run-29', at: daysAgo(29), results: [{ test: 'y' }] },
    );
    const d = await u.client.getDashboard({ projectId: P });
    expect(d.window).toMatchObject({ days: 30, fromDate: '2026-02-09', untilDate: '2026-03-10' });
    expect(d.trend).toHaveLength(30);
    expect(d.trend[0]).toMatchObject({ date: '2026-02-09', runs: 1n });
    expect(d.runs!.total).toBe(2n);
  });

  it('a project with nothing folded answers an empty dashboard', async () => {
    const d = await u.client.getDashboard({ projectId: 'e'.repeat(24) });
    expect(d.runs).toMatchObject({ total: 0n, running: 0n });
    expect(d.trend).toHaveLength(30);
    expect([d.topFlaky, d.topFailing, d.activeRuns]).toEqual([[], [], []]);
  });
});
