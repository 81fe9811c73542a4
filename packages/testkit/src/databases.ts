/** Private databases on the shared test Postgres, for tests that run their own copy of a service. */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * Runs one SQL statement with psql; resolves to its rows, one a line, columns `|`-separated. For what no API can
 * arrange (a database of its own, a link's expiry moved into the past) from workspaces without a Postgres client.
 */
export async function psql(databaseUrl: string, statement: string): Promise<string> {
  const { stdout } = await run('psql', [databaseUrl, '-v', 'ON_ERROR_STOP=1', '-qAtc', statement]);
  return stdout.trim();
}

/** Creates an empty database next to the one in `databaseUrl`; returns its URL. */
export async function createDatabase(databaseUrl: string, prefix = 'assay_test'): Promise<string> {
  const name = `${prefix}_${randomBytes(5).toString('hex')}`;
  await psql(databaseUrl, `CREATE DATABASE ${name}`);
  const url = new URL(databaseUrl);
  url.pathname = `/${name}`;
  return url.toString();
}
