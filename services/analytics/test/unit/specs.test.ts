/**
 * The `specs` family's handler (handlers/specs.ts: ListSpecs) through the in-memory transport: spec files over the
 * window (most failures first, then file name), distinct tests per file, the kit's paging (limit clamped to 100).
 */
import { analyticsUnit, daysAgo, refused, type AnalyticsUnit } from './fixture';

let u: AnalyticsUnit;
const P = 's'.repeat(24);

beforeAll(async () => {
  u = await analyticsUnit('analytics_specs');
  await u.fold(
    P,
    {
      id: 'r1',
      at: daysAgo(1),
      results: [
        { test: 'a1', file: 'a.spec.ts' },
        { test: 'b1', file: 'b.spec.ts', outcome: 'unexpected', ms: 50 },
        { test: 'b2', file: 'b.spec.ts', ms: 70 },
        { test: 'c1', file: 'c.spec.ts' },
      ],
    },
    { id: 'r2', at: daysAgo(40), results: [{ test: 'd1', file: 'd.spec.ts', outcome: 'unexpected' }] },
  );
});
afterAll(() => u.db.drop());

describe('specs handler', () => {
  it('lists the files of the window, most failures first, then by name, with their tests and figures', async () => {
    const res = await u.client.listSpecs({ projectId: P, days: 30 });
    expect(res.specs.map((s) => [s.file, s.tests, s.stats!.failed])).toEqual([
      ['b.spec.ts', 2n, 1n],
      ['a.spec.ts', 1n, 0n],
      ['c.spec.ts', 1n, 0n],
    ]);
    expect(res.specs[0]!.durations).toMatchObject({ minMs: 50n, maxMs: 70n });
    expect(res.page).toMatchObject({ page: 1, limit: 10, total: 3n });
    expect((await u.client.listSpecs({ projectId: P, days: 90 })).specs[0]!.file).toBe('b.spec.ts');
    expect((await u.client.listSpecs({ projectId: P, days: 90 })).page!.total).toBe(4n);
  });

  it('pages: page 2 of 2 per page, the total even past the end, limit clamped to 100', async () => {
    const second = await u.client.listSpecs({ projectId: P, days: 30, page: { page: 2, limit: 2 } });
    expect(second.specs.map((s) => s.file)).toEqual(['c.spec.ts']);
    expect(second.page).toMatchObject({ page: 2, limit: 2, total: 3n });
    const past = await u.client.listSpecs({ projectId: P, days: 30, page: { page: 9, limit: 2 } });
    expect([past.specs, past.page!.total]).toEqual([[], 3n]);
    expect((await u.client.listSpecs({ projectId: P, days: 30, page: { page: 1, limit: 1000 } })).page!.limit).toBe(100);
  });

  it('a project with nothing folded has no files; a window it does not keep is refused', async () => {
    expect(await u.client.listSpecs({ projectId: 'e'.repeat(24), days: 7 })).toMatchObject({ specs: [], page: { total: 0n } });
    expect((await refused(u.client.listSpecs({ projectId: P, days: 8 }))).details).toEqual([
      { path: 'query.days', message: 'must be 7, 30 or 90' },
    ]);
  });
});
