/**
 * Postgres access, one way for every service: a pool whose connections see only the service's own schema
 * (search_path), a transaction helper, COPY, and migrations (node-pg-migrate, plain SQL files) run under a
 * blocking advisory lock so two replicas starting together never migrate at once.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { finished } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { Logger } from '@assay/logger';
import { AppError } from '@assay/errors';

export type Pool = pg.Pool;
export type PoolClient = pg.PoolClient;
export type Queryable = Pick<pg.Pool, 'query'> | pg.PoolClient;
/** One result row, as pg returns it (column name → value). */
export type Row = pg.QueryResultRow;

// COUNT(*) and BIGINT come back as strings by default; every count we keep fits in a JS number.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number.parseInt(v, 10));

const SCHEMA_NAME = /^[a-z][a-z0-9_]{0,62}$/;

function checkSchema(schema: string): void {
  if (!SCHEMA_NAME.test(schema)) throw new Error(`invalid schema name "${schema}"`);
}

export interface PoolOptions {
  connectionString: string;
  schema: string;
  max?: number;
  applicationName: string;
  logger?: Logger;
}

export function createPool(opts: PoolOptions): Pool {
  checkSchema(opts.schema);
  const pool = new pg.Pool({
    connectionString: opts.connectionString,
    max: opts.max ?? 10,
    application_name: opts.applicationName,
    options: `-c search_path=${opts.schema}`,
    connectionTimeoutMillis: 5000,
    idleTimeoutMillis: 30000,
    // Fail fast rather than hold a request forever on a wedged statement.
    statement_timeout: 30000,
  });
  // An idle client losing its connection (Postgres restart) must not crash the process.
  pool.on('error', (err) => opts.logger?.warn({ err: { message: err.message } }, 'idle postgres client error'));
  return pool;
}

/** The companion pools made for each pool (`companionPool`), so that `endPool` ends them with it. */
const companions = new WeakMap<Pool, Pool[]>();

/**
 * A second pool of `max` connections on the database and schema of `pool`, for statements a transaction of `pool`
 * waits for: taken from `pool` itself, transactions holding all its connections would wait for one another. Its
 * idle connections do not keep the process alive.
 */
export function companionPool(pool: Pool, max: number, logger?: Logger): Pool {
  const companion = new pg.Pool({ ...pool.options, max, allowExitOnIdle: true });
  companion.on('error', (err) => logger?.warn({ err: { message: err.message } }, 'idle postgres client error'));
  companions.set(pool, [...(companions.get(pool) ?? []), companion]);
  return companion;
}

/** Ends `pool` and the companion pools made for it (a service's shutdown: no connection left open). */
export async function endPool(pool: Pool): Promise<void> {
  const mine = companions.get(pool) ?? [];
  companions.delete(pool);
  await Promise.all(mine.map((c) => c.end()));
  await pool.end();
}

/**
 * The caller a service's work is for (an RPC, a request on a service's internal HTTP port), set by the service kit
 * around each. `gaveUp` is true once the caller has given up before it was answered: it went away (its own caller's
 * connection dropped), or the time its commits still reach it in has passed (its deadline, less a margin). Work a
 * call leaves running after its answer is on its own, and commits.
 */
export interface CallScope {
  gaveUp(): boolean;
}

const callScope = new AsyncLocalStorage<CallScope>();

/** Runs `fn` for `scope`'s caller: the transactions it opens commit only while that caller still waits. */
export function runForCaller<T>(scope: CallScope, fn: () => T): T {
  return callScope.run(scope, fn);
}

/** Runs `fn` for no caller: work a call starts that must finish even if its caller goes (a rebuild of hours). */
export function runForNoCaller<T>(fn: () => T): T {
  return callScope.exit(fn);
}

/**
 * Runs `fn` in one transaction; rolls back on any error, and when the caller the work is for has given up by the
 * time `fn` is done (503 SERVICE_UNAVAILABLE, which the caller no longer reads: nothing is done that it was told
 * failed).
 */
export async function withTransaction<T>(pool: Pool, fn: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await fn(client);
    // A caller that gave up has answered (or will answer) its own caller a 5xx, which says to retry; the gateway
    // keeps no answer for a 5xx, so the retry runs again with the same Idempotency-Key: a create committed now (a
    // lock waited for past the deadline) would be stored twice.
    if (callScope.getStore()?.gaveUp())
      throw new AppError('SERVICE_UNAVAILABLE', 'the caller gave up before the transaction committed: rolled back');
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

/**
 * Rows for `COPY … FROM STDIN` in COPY's text format, gathered as bytes a `seal` at a time: the lines of a whole
 * batch joined into one string (~0.5 MB for 1,000 tests) would be allocated among V8's large objects, which only a
 * full collection frees (a 60 MiB report left ~60 MB of them).
 */
export class CopyData {
  readonly pieces: Buffer[] = [];
  private lines: string[] = [];

  /** One row: its fields in COPY's text format, tab-separated. */
  add(line: string): void {
    this.lines.push(line);
  }

  /** Turns the lines gathered so far into bytes. */
  seal(): this {
    if (this.lines.length > 0) this.pieces.push(Buffer.from(this.lines.join('\n') + '\n', 'utf8'));
    this.lines = [];
    return this;
  }
}

/** A number as a field of COPY's text format; null is `\N`. */
export const copyNumber = (v: number | null | undefined): string => (v === null || v === undefined ? '\\N' : String(v));

/**
 * Sends `data` (sealed here) through `COPY … FROM STDIN` and answers once the database has it. The pieces go as one
 * buffer: pg-copy-streams writes each piece to the socket as two writes of its own (the message header, then the
 * piece), and each wakes the database's backend.
 */
export async function copyIn(client: PoolClient, sql: string, data: CopyData): Promise<void> {
  const { pieces } = data.seal();
  if (pieces.length === 0) return;
  const stream = client.query(copyFrom(sql));
  stream.end(pieces.length === 1 ? pieces[0] : Buffer.concat(pieces));
  await finished(stream);
}

/** True when the database answers within `timeoutMs`. */
export async function ping(pool: Pool, timeoutMs = 2000): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      pool.query('SELECT 1'),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error('timeout')), timeoutMs);
      }),
    ]);
    return true;
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

export interface MigrateOptions {
  databaseUrl: string;
  schema: string;
  /** Folder of `NNNN_name.sql` files with `-- Up Migration` / `-- Down Migration` sections. */
  dir: string;
  logger: Logger;
}

/** Applies pending migrations of one schema; returns the names applied. Safe to call from many replicas. */
export async function migrate(opts: MigrateOptions): Promise<string[]> {
  checkSchema(opts.schema);
  const client = new pg.Client({ connectionString: opts.databaseUrl, application_name: `migrate:${opts.schema}` });
  await client.connect();
  try {
    // Blocking lock: a second replica waits here, then finds nothing left to apply.
    await client.query('SELECT pg_advisory_lock(hashtext($1))', [`assay:migrate:${opts.schema}`]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${opts.schema}`);
    const log = opts.logger.child({ component: 'migrate', schema: opts.schema });
    // node-pg-migrate (148 modules) is loaded only by the processes that migrate, and only then (require, not
    // import(): jest's CommonJS runtime refuses a dynamic import).
    const { runner } = createRequire(__filename)('node-pg-migrate') as typeof import('node-pg-migrate');
    const applied = await runner({
      dbClient: client,
      dir: opts.dir,
      direction: 'up',
      schema: opts.schema,
      migrationsSchema: opts.schema,
      migrationsTable: 'pgmigrations',
      checkOrder: true,
      noLock: true,
      singleTransaction: true,
      logger: {
        debug: () => undefined,
        info: (m: string) => log.debug(m),
        warn: (m: string) => log.warn(m),
        error: (m: string) => log.error(m),
      },
    });
    return applied.map((m) => m.name);
  } finally {
    await client.query('SELECT pg_advisory_unlock(hashtext($1))', [`assay:migrate:${opts.schema}`]).catch(() => undefined);
    await client.end();
  }
}

/**
 * Identifiers: 24 lower-case hex digits (4 bytes of seconds since the epoch + 8 random bytes), the shape
 * clients of the hosted product already handle for `_id`; roughly time-ordered, unguessable.
 */
export function newId(): string {
  const time = Math.floor(Date.now() / 1000)
    .toString(16)
    .padStart(8, '0');
  return time + randomBytes(8).toString('hex');
}

export const ID_PATTERN = /^[0-9a-f]{24}$/;

/**
 * Postgres refusals caused by the caller's input (a NUL character in a text, a number out of range, a value
 * that does not parse), as 400 VALIDATION_ERROR; undefined for anything else (a real server error).
 * SQLSTATE class 22 is "data exception".
 */
const INPUT_ERRORS: Record<string, string> = {
  '22021': 'a text contains a character that cannot be stored (such as NUL)',
  '22P05': 'a text contains a character that cannot be stored',
  '22001': 'a value is too long',
  '22003': 'a number is out of range',
  '22P02': 'a value has the wrong format',
  '22007': 'a date or time has the wrong format',
  '22008': 'a date or time is out of range',
};

/**
 * The database cannot be reached or is going away: connection refused or reset, a pool that found no connection
 * in time, SQLSTATE class 08 (connection exception) and 57P01–57P03 (shutdown, cannot connect now). The caller
 * should retry, so these become 503 SERVICE_UNAVAILABLE with Retry-After, never a 500.
 */
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  '57P01',
  '57P02',
  '57P03',
]);
const UNAVAILABLE_MESSAGES = [
  /^Connection terminated/,
  /^timeout exceeded when trying to connect/,
  /Client has encountered a connection error/,
];

export function fromDatabaseError(err: unknown): AppError | undefined {
  if (!(err instanceof Error)) return undefined;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && code in INPUT_ERRORS) {
    const message = INPUT_ERRORS[code]!;
    return new AppError('VALIDATION_ERROR', `The request is invalid: ${message}`, { details: [{ path: 'body', message }], cause: err });
  }
  if (
    (typeof code === 'string' && (UNAVAILABLE_CODES.has(code) || code.startsWith('08'))) ||
    UNAVAILABLE_MESSAGES.some((m) => m.test(err.message))
  ) {
    return new AppError('SERVICE_UNAVAILABLE', undefined, { cause: err, headers: { 'Retry-After': '5' } });
  }
  return undefined;
}
