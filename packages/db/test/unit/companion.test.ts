/** `companionPool` and `endPool`: a service's shutdown closes the companion's connections with its own pool's. */
import { unitInfra } from '@assay/testkit';
import { companionPool, createPool, endPool } from '../../src';

test('endPool ends the pool and its companions, whose connections close', async () => {
  const pool = createPool({ connectionString: unitInfra().databaseUrl, schema: 'public', max: 2, applicationName: 'unit:companion' });
  const companion = companionPool(pool, 2);
  const { rows } = await companion.query('SELECT pg_backend_pid() AS pid');
  await pool.query('SELECT 1');
  expect(companion.totalCount).toBe(1);
  await endPool(pool);
  expect([pool.ended, companion.ended, companion.totalCount]).toEqual([true, true, 0]);
  // The companion's backend is gone from the server too.
  const check = createPool({
    connectionString: unitInfra().databaseUrl,
    schema: 'public',
    max: 1,
    applicationName: 'unit:companion-check',
  });
  try {
    const alive = await check.query('SELECT count(*)::int AS n FROM pg_stat_activity WHERE pid = $1', [rows[0].pid]);
    expect(alive.rows[0].n).toBe(0);
  } finally {
    await check.end();
  }
});
