/**
 * AnalyticsAdminService (handlers/admin.ts: Rebuild, GetReadModelStatus) through the in-memory transport: a rebuild
 * drops the read model of one project (or all) and folds again what the runs service has, and the status reports
 * the size of the read model.
 */
import { analyticsUnit, daysAgo, NOW, refused, runOf, type AnalyticsUnit } from './fixture';

let u: AnalyticsUnit;
const A = 'a'.repeat(24);
const B = 'b'.repeat(24);

beforeAll(async () => {
  u = await analyticsUnit('analytics_admin');
  await u.fold(
    A,
    { id: 'a1', at: daysAgo(1), results: [{ test: 'x' }, { test: 'y' }] },
    { id: 'a2', at: daysAgo(2), results: [{ test: 'x' }] },
  );
  await u.fold(B, { id: 'b1', at: daysAgo(1), results: [{ test: 'z' }] });
  // Folded, but unknown to the runs service (deleted there since): a rebuild drops it.
  await u.w.model.fold(A, [runOf(A, { id: 'gone', at: daysAgo(3), results: [{ test: 'x' }] })]);
});
afterAll(() => u.db.drop());

describe('analytics admin handlers', () => {
  it('reports the size of the read model, of one project or of all', async () => {
    expect(await u.admin.getReadModelStatus({ projectId: A })).toMatchObject({ projects: 1n, runs: 3n, results: 4n });
    const all = await u.admin.getReadModelStatus({});
    expect(all).toMatchObject({ projects: 2n, runs: 4n, results: 5n });
    expect(all.lastFoldedAt).toBeDefined();
  });

  it('rebuilds one project from the runs service (the run it no longer has is gone), leaving the other alone', async () => {
    const res = await u.admin.rebuild({ projectId: A });
    expect(res).toMatchObject({ projects: 1n, runs: 2n, results: 3n });
    expect(await u.admin.getReadModelStatus({ projectId: A })).toMatchObject({ runs: 2n, results: 3n });
    expect(await u.admin.getReadModelStatus({ projectId: B })).toMatchObject({ runs: 1n, results: 1n });
    expect((await u.client.getSummary({ projectId: A, days: 7 })).runs!.total).toBe(2n);
  });

  it('rebuilds every project with `all`; a running run shows as active again', async () => {
    u.publish(B, { id: 'b-running', at: new Date(NOW.getTime() - 1000), status: 'running' });
    expect(await u.admin.rebuild({ all: true })).toMatchObject({ projects: 2n, runs: 3n, results: 4n });
    expect((await u.client.getDashboard({ projectId: B })).activeRuns.map((r) => r.id)).toEqual(['b-running']);
  });

  it('needs exactly one of a project and `all`', async () => {
    expect((await refused(u.admin.rebuild({}))).details).toEqual([{ path: 'project', message: 'required unless all' }]);
    expect((await refused(u.admin.rebuild({ projectId: A, all: true }))).details).toEqual([{ path: 'project', message: 'not with all' }]);
  });
});
