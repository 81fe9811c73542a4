/** Private databases on the shared test Postgres, for tests that run their own copy of a service. */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Creates an empty database next to the one in `databaseUrl`; returns its URL. */
export async function createDatabase(databaseUrl: string, prefix = 'assay_test'): Promise<string> {
  const name = `${prefix}_${randomBytes(5).toString('hex')}`;
  await run('psql', [databaseUrl, '-v', 'ON_ERROR_STOP=1', '-qc', `CREATE DATABASE ${name}`]);
  const url = new URL(databaseUrl);
  url.pathname = `/${name}`;
  return url.toString();
}
