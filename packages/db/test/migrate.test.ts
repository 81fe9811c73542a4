import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { createLogger } from '@assay/logger';
import { createDatabase, testSystem } from '@assay/testkit';
import { createPool, migrate, newId, runForCaller, runForNoCaller, ID_PATTERN, withTransaction } from '../src';

const logger = createLogger('test', 'silent');

describe('migrations', () => {
  let dir: string;
  let url: string;

  beforeAll(async () => {
    url = await createDatabase(testSystem().infra.DATABASE_URL);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'migrations-'));
    fs.writeFileSync(
      path.join(dir, '1795240743316_first.sql'),
      '-- Up Migration\nCREATE TABLE things (id text PRIMARY KEY);\nSELECT pg_sleep(0.5);\n-- Down Migration\nDROP TABLE things;\n',
    );
  });

  it('applies each migration once even when several replicas migrate at the same time', async () => {
    const results = await Promise.all([1, 2, 3].map(() => migrate({ databaseUrl: url, schema: 'demo', dir, logger })));
    // Exactly one replica applied it; the others waited on the advisory lock and found nothing to do.
    expect(results.map((r) => r.length).sort()).toEqual([0, 0, 1]);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const { rows } = await client.query(`SELECT name FROM demo.pgmigrations`);
    await client.end();
    expect(rows.map((r) => r.name)).toEqual(['1795240743316_first']);
  });

  it('gives pools the service schema as search path, and rolls back failed transactions', async () => {
    const pool = createPool({ connectionString: url, schema: 'demo', applicationName: 'test' });
    try {
      await expect(
        withTransaction(pool, async (c) => {
          await c.query(`INSERT INTO things (id) VALUES ('a')`);
          throw new Error('boom');
        }),
      ).rejects.toThrow('boom');
      const { rows } = await pool.query(`SELECT count(*) AS n FROM things`);
      expect(rows[0].n).toBe(0);
    } finally {
      await pool.end();
    }
  });

  it("commits a caller's transaction only while the caller waits", async () => {
    const pool = createPool({ connectionString: url, schema: 'demo', applicationName: 'test' });
    const insert = (id: string) => withTransaction(pool, (c) => c.query(`INSERT INTO things (id) VALUES ($1)`, [id]));
    try {
      let gone = false;
      const waiting = { gaveUp: () => gone };
      await runForCaller(waiting, () => insert('waited'));
      // The caller gives up while the transaction runs: rolled back, 503.
      await expect(
        runForCaller(waiting, () =>
          withTransaction(pool, async (c) => {
            await c.query(`INSERT INTO things (id) VALUES ('gone')`);
            gone = true;
          }),
        ),
      ).rejects.toMatchObject({ reason: 'SERVICE_UNAVAILABLE' });
      // Work for no caller (a worker), or that a call hands to no caller (a rebuild), commits as before.
      await insert('worker');
      await runForCaller(waiting, () => runForNoCaller(() => insert('detached')));
      const { rows } = await pool.query(`SELECT id FROM things WHERE id = ANY($1) ORDER BY id`, [['waited', 'gone', 'worker', 'detached']]);
      expect(rows.map((r) => r.id)).toEqual(['detached', 'waited', 'worker']);
    } finally {
      await pool.end();
    }
  });

  it('refuses schema names that are not plain identifiers', async () => {
    await expect(migrate({ databaseUrl: url, schema: 'x; DROP TABLE y', dir, logger })).rejects.toThrow(/invalid schema/);
  });

  it('issues 24-hex, distinct ids', () => {
    const ids = new Set(Array.from({ length: 1000 }, newId));
    expect(ids.size).toBe(1000);
    for (const id of ids) expect(id).toMatch(ID_PATTERN);
  });
});
