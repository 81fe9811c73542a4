/**
 * The `filters` family's handler (handlers/filters.ts: GetFilters) through the in-memory transport: the values
 * seen in the project's runs, sorted, without empty names; developers are commit authors, tags run and test tags.
 */
import { analyticsUnit, daysAgo, type AnalyticsUnit } from './fixture';

let u: AnalyticsUnit;
const P = 'f'.repeat(24);

beforeAll(async () => {
  u = await analyticsUnit('analytics_filters');
  await u.fold(
    P,
    {
      id: 'r1',
      at: daysAgo(1),
      branch: 'main',
      environment: 'staging',
      author: 'Grace',
      tags: ['nightly'],
      results: [{ test: 'a', tags: ['@smoke'] }],
    },
    { id: 'r2', at: daysAgo(80), branch: 'feature/x', environment: '', author: 'Ada', results: [{ test: 'b' }] },
  );
  await u.fold('o'.repeat(24), { id: 'r3', at: daysAgo(1), branch: 'elsewhere', results: [{ test: 'c' }] });
});
afterAll(() => u.db.drop());

describe('filters handler', () => {
  it("answers the project's values of each kind, sorted, without empty names or another project's", async () => {
    expect(await u.client.getFilters({ projectId: P })).toMatchObject({
      environments: ['staging'],
      branches: ['feature/x', 'main'],
      developers: ['Ada', 'Grace'],
      tags: ['@smoke', 'nightly'],
    });
  });

  it('a project with nothing folded has no values', async () => {
    expect(await u.client.getFilters({ projectId: 'e'.repeat(24) })).toMatchObject({
      environments: [],
      branches: [],
      developers: [],
      tags: [],
    });
  });
});
