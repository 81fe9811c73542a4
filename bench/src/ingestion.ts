/**
 * Ingestion end to end: generated Playwright JSON reports of 1,000, 10,000 and 50,000 tests (a tenth retried once,
 * every test with a nested steps tree) uploaded through the gateway (auth, streaming to the runs service, scanning,
 * one transaction with COPY of results and attempts, outbox). Prints, per size, tests per second and the ratio to a
 * raw `COPY` of the same rows (tests, results, attempts) into look-alike tables of the same Postgres, measured in the
 * same run two ways: three `psql` runs piping each table through `\copy … FROM STDIN` (process start and connection
 * included: how this bench has always measured it), and the three `\copy` alone, timed by psql (`\timing`) in one
 * session. Equal tests per second across sizes means a cost linear in the report's size. Beside each time, the CPU the
 * fastest upload took in the runs service, the gateway and the runs service's Postgres backends (from /proc: on a
 * machine shared with other work, the figure that changes least with the load). Each upload starts once the runs
 * and analytics processes are idle (the analytics consumer has folded the previous run). Both sides are timed ROUNDS
 * times and the best is kept: on this 2-core machine either side's time moves by a quarter from one try to the next
 * (two tries each gave ratios of 1.3–1.8× with the same code).
 *
 *   make bench BENCH=ingestion      (or: node bench/dist/run.js ingestion; BENCH_TESTS=N[,N…] for other sizes)
 *   BENCH_IDEMPOTENCY_KEY=1         every upload with a fresh Idempotency-Key, as the SDK and the reporter send
 *                                   (the gateway's Redis record and the runs service's, the body hashed by both)
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Admin, Api } from '@assay/testkit';
import { benchSystem } from './lib';
import { addFigure, times } from './summary';

const KEYED = process.env.BENCH_IDEMPOTENCY_KEY === '1';

export function generateReport(n: number) {
  const perFile = 100;
  const suites = [];
  const start = Date.now();
  for (let f = 0; f * perFile < n; f++) {
    const specs = [];
    for (let i = 0; i < perFile && f * perFile + i < n; i++) {
      const k = f * perFile + i;
      const retried = k % 10 === 0;
      const step = (title: string, inner: unknown[] = []) => ({ title, duration: 3, steps: inner });
      const steps = [step('open the page', [step('navigate'), step('wait for load')]), step('act'), step('assert', [step('expect')])];
      const results = [
        {
          workerIndex: 0,
          status: retried ? 'failed' : 'passed',
          duration: 120 + (k % 50),
          retry: 0,
          startTime: new Date(start + k).toISOString(),
          errors: retried
            ? [{ message: `Error: expect(received).toBe(expected)\n\nExpected: ${k}\nReceived: ${k + 1}`, stack: 'at test.spec.ts:10:5' }]
            : [],
          stdout: [{ text: `test ${k} log line\n` }],
          stderr: [],
          attachments: [],
          steps,
        },
      ];
      if (retried) results.push({ ...results[0]!, status: 'passed', retry: 1, errors: [] });
      specs.push({
        title: `test number ${k}`,
        ok: true,
        tags: k % 7 === 0 ? ['slow'] : [],
        tests: [
          {
            timeout: 30000,
            annotations: [],
            expectedStatus: 'passed',
            projectId: 'chromium',
            projectName: 'chromium',
            results,
            status: retried ? 'flaky' : 'expected',
          },
        ],
        id: `id-${k}`,
        file: `suite-${f}.spec.ts`,
        line: 10 + i,
        column: 5,
      });
    }
    suites.push({ title: `suite-${f}.spec.ts`, file: `suite-${f}.spec.ts`, line: 0, column: 0, specs, suites: [] });
  }
  return {
    config: {},
    suites,
    errors: [],
    stats: { startTime: new Date(start).toISOString(), duration: 60000, expected: 0, skipped: 0, unexpected: 0, flaky: 0 },
  };
}

const csv = (v: unknown) => {
  if (v === null || v === undefined) return '';
  const s = typeof v === 'string' ? v : JSON.stringify(v);
  return `"${s.replace(/"/g, '""')}"`;
};
const pgArray = (a: string[]) => `{${a.map((x) => `"${x.replace(/(["\\])/g, '\\$1')}"`).join(',')}}`;

/** Runs psql with `args`, `stdin` on its standard input; answers what it printed (what `\timing` prints). */
function psql(databaseUrl: string, args: string[], stdin = ''): Promise<string> {
  return new Promise((resolve, reject) => {
    const p = spawn('psql', [databaseUrl, '-X', '-v', 'ON_ERROR_STOP=1', '-q', ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    p.stdout.on('data', (d) => (out += d));
    p.stderr.on('data', (d) => (err += d));
    p.on('error', reject);
    // psql exiting early (a connection refused) closes its stdin: its own error says why.
    p.stdin.on('error', () => undefined);
    p.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`psql exited with ${code}: ${err}`))));
    p.stdin.end(stdin);
  });
}

/** CPU time (user + system) a process has used, in ms (clock ticks of 10 ms); 0 once it is gone. */
function cpuMs(pid: number): number {
  try {
    // Fields after the command (which may hold spaces) start at state (field 3): utime and stime are fields 14 and 15.
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ').pop()!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return 0;
  }
}

/** The CSV rows the ingestion writes for `report`: tests, results and attempts. */
function rowsOf(report: ReturnType<typeof generateReport>): Record<'tests' | 'results' | 'attempts', string> {
  const tests: string[] = [];
  const results: string[] = [];
  const attempts: string[] = [];
  let n = 0;
  for (const s of report.suites)
    for (const sp of s.specs)
      for (const t of sp.tests) {
        const id = `t${n}`;
        tests.push([csv(id), csv('p'), csv(sp.file), csv(pgArray([sp.title])), csv(t.projectName), csv(sp.title)].join(','));
        results.push(
          [
            csv(`r${n}`),
            csv('run'),
            csv('p'),
            csv(id),
            n,
            csv(sp.file),
            csv(pgArray([sp.title])),
            csv(t.projectName),
            csv(t.status),
            t.results.length,
          ].join(','),
        );
        for (const a of t.results)
          attempts.push(
            [
              csv(`r${n}`),
              a.retry,
              csv('run'),
              csv(a.status),
              a.duration,
              csv(a.startTime),
              csv(a.errors),
              csv(a.steps),
              csv(a.stdout.map((o) => o.text)),
              csv([]),
              csv([]),
            ].join(','),
          );
        n++;
      }
  return { tests: tests.join('\n') + '\n', results: results.join('\n') + '\n', attempts: attempts.join('\n') + '\n' };
}

const SCRATCH = `DROP SCHEMA IF EXISTS bench_copy CASCADE; CREATE SCHEMA bench_copy;
  CREATE TABLE bench_copy.tests (id text PRIMARY KEY, project_id text, file text, title_path text[], project_name text, full_title text);
  CREATE TABLE bench_copy.results (id text PRIMARY KEY, run_id text, project_id text, test_id text, seq int, file text, title_path text[], project_name text, outcome text, attempt_count int);
  CREATE TABLE bench_copy.attempts (result_id text, retry int, run_id text, status text, duration_ms bigint, started_at timestamptz, errors jsonb, steps jsonb, stdout jsonb, stderr jsonb, attachments jsonb, PRIMARY KEY (result_id, retry));`;

/**
 * The same rows COPYed raw into look-alike tables in a scratch schema, twice over: answers the seconds of three psql
 * runs each piping one table (`psql`), and the seconds psql timed the three `\copy` of one session (`copy`).
 */
async function rawCopy(databaseUrl: string, report: ReturnType<typeof generateReport>): Promise<{ psql: number; copy: number }> {
  const rows = rowsOf(report);
  await psql(databaseUrl, ['-c', SCRATCH]);
  const t0 = process.hrtime.bigint();
  for (const [table, csvRows] of Object.entries(rows))
    await psql(databaseUrl, ['-c', `\\copy bench_copy.${table} FROM STDIN WITH (FORMAT csv)`], csvRows);
  const piped = Number(process.hrtime.bigint() - t0) / 1e9;

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-bench-copy-'));
  try {
    for (const [table, csvRows] of Object.entries(rows)) fs.writeFileSync(path.join(dir, `${table}.csv`), csvRows);
    await psql(databaseUrl, ['-c', SCRATCH]);
    const script = [
      '\\timing on',
      ...Object.keys(rows).map((table) => `\\copy bench_copy.${table} FROM '${path.join(dir, `${table}.csv`)}' WITH (FORMAT csv)`),
    ];
    const out = await psql(databaseUrl, ['-f', '-'], script.join('\n') + '\n');
    const times = [...out.matchAll(/Time: ([\d.]+) ms/g)].map((m) => Number(m[1]));
    if (times.length !== 3) throw new Error(`expected three COPY timings from psql, got: ${out}`);
    return { psql: piped, copy: times.reduce((a, b) => a + b, 0) / 1000 };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
    await psql(databaseUrl, ['-c', 'DROP SCHEMA bench_copy CASCADE']);
  }
}

/** Tries of each side per size (the best is kept). */
const ROUNDS = 3;

export async function run(): Promise<void> {
  const sizes = (process.env.BENCH_TESTS ?? '1000,10000,50000').split(',').map(Number);
  const bench = await benchSystem({ gateway: { RATE_LIMITS: 'reads=1000000,writes=1000000,ip=1000000,ingest=1000000' } });
  try {
    const admin = new Admin(bench.system.adminUrl, bench.system.internalToken);
    const t = await admin.tenant('owner');
    const key = (await admin.apiKey(t.projectId)).token;
    const api = new Api(bench.system.gatewayUrl, key);
    const databaseUrl = bench.infra.env.DATABASE_URL;
    const runsPid = bench.system.processes.get('runs')!.child.pid!;
    const gatewayPid = bench.system.processes.get('gateway')!.child.pid!;
    const analyticsPid = bench.system.processes.get('analytics')!.child.pid!;
    /** Waits until the previous upload's aftermath (the analytics consumer folding the run, reading it from runs) is over. */
    const settle = async () => {
      const busy = () => cpuMs(runsPid) + cpuMs(analyticsPid);
      for (let last = busy(), waited = 0; waited < 60_000; waited += 500) {
        await new Promise((r) => setTimeout(r, 500));
        const now = busy();
        if (now - last <= 20) return;
        last = now;
      }
    };
    const table: { n: number; ingest: number; psql: number; copy: number }[] = [];
    const best = (xs: number[]) => Math.min(...xs);
    const list = (xs: number[], digits: number) => xs.map((x) => x.toFixed(digits)).join(', ');
    for (const n of sizes) {
      const report = generateReport(n);
      const body = JSON.stringify(report);
      const attempts = report.suites.reduce((m, s) => m + s.specs.reduce((k, sp) => k + sp.tests[0]!.results.length, 0), 0);
      console.log(`report: ${n} tests, ${attempts} attempts, ${(body.length / 1024 / 1024).toFixed(1)} MiB`);
      const cpuOf = async () => {
        const backends = (await psql(databaseUrl, ['-Atc', "SELECT pid FROM pg_stat_activity WHERE application_name = 'runs'"]))
          .split('\n')
          .filter(Boolean)
          .map(Number);
        return { runs: cpuMs(runsPid), gateway: cpuMs(gatewayPid), postgres: new Map(backends.map((pid) => [pid, cpuMs(pid)])) };
      };
      const upload = async () => {
        await settle();
        const before = await cpuOf();
        const t0 = process.hrtime.bigint();
        const res = await api.request('POST', `/api/v1/ingest/${t.projectId}/playwright`, {
          rawBody: body,
          headers: { 'content-type': 'application/json', ...(KEYED ? { 'idempotency-key': randomUUID() } : {}) },
        });
        const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
        if (res.status !== 201) throw new Error(`ingestion failed: ${res.status} ${res.text.slice(0, 500)}`);
        if (res.body.data.testStats.total !== n) throw new Error(`ingested ${res.body.data.testStats.total} of ${n} tests`);
        const after = await cpuOf();
        let postgres = 0;
        for (const [pid, ms] of after.postgres) postgres += ms - (before.postgres.get(pid) ?? 0);
        return { seconds, cpu: { runs: after.runs - before.runs, gateway: after.gateway - before.gateway, postgres } };
      };
      await upload(); // warm-up (JIT, pools; the report's tests become known to the project, as in every CI run after the first)
      const uploads = [];
      for (let i = 0; i < ROUNDS; i++) uploads.push(await upload());
      const runs = uploads.map((u) => u.seconds);
      const cpu = uploads.reduce((a, b) => (a.seconds <= b.seconds ? a : b)).cpu;
      const copies = [];
      for (let i = 0; i < ROUNDS; i++) copies.push(await rawCopy(databaseUrl, report));
      const row = { n, ingest: best(runs), psql: best(copies.map((c) => c.psql)), copy: best(copies.map((c) => c.copy)) };
      table.push(row);
      console.log(
        `  end-to-end ingestion: ${row.ingest.toFixed(3)} s = ${(n / row.ingest).toFixed(0)} tests/s (best of ${list(runs, 3)} s); ` +
          `CPU of that upload: runs ${cpu.runs} ms, gateway ${cpu.gateway} ms, Postgres (the runs service's connections) ${cpu.postgres} ms`,
      );
      console.log(
        `  raw COPY, three psql runs: ${row.psql.toFixed(3)} s = ${(n / row.psql).toFixed(0)} tests/s (best of ${list(
          copies.map((c) => c.psql),
          3,
        )} s); ratio ${(row.ingest / row.psql).toFixed(2)}x`,
      );
      console.log(
        `  raw COPY, the three \\copy alone: ${row.copy.toFixed(3)} s = ${(n / row.copy).toFixed(0)} tests/s (best of ${list(
          copies.map((c) => c.copy),
          3,
        )} s); ratio ${(row.ingest / row.copy).toFixed(2)}x`,
      );
    }
    // The goal (issue 19): 10,000 tests in ≤ 1.5× the COPY time, and a cost linear in the report's size: a larger
    // report takes at most 10 % more than its share of the 10,000-test time. Smaller ones are printed for scale (a
    // request's fixed cost is most of 1,000 tests).
    const base = table.find((r) => r.n === 10_000);
    for (const r of table)
      addFigure({
        bench: 'ingestion',
        figure: `${r.n} tests, end to end (tests/s)`,
        assay: `${r.ingest.toFixed(2)} s (${(r.n / r.ingest).toFixed(0)})`,
        baseline: `raw COPY ${r.psql.toFixed(2)} s`,
        ratio: times(r.ingest, r.psql),
        ...(r.n === 10_000
          ? { goal: '≤ 1.5× the COPY time', met: r.ingest <= 1.5 * r.psql }
          : base && r.n > base.n
            ? {
                goal: `linear: ≤ 1.1 × ${r.n / base.n} × the 10,000-test time`,
                met: r.ingest <= 1.1 * (r.n / base.n) * base.ingest,
              }
            : { goal: 'for scale' }),
      });
    console.log('\n   tests   ingestion tests/s   COPY (psql runs) tests/s   ratio   COPY (\\copy alone) tests/s   ratio');
    for (const r of table)
      console.log(
        [
          String(r.n).padStart(8),
          (r.n / r.ingest).toFixed(0).padStart(19),
          (r.n / r.psql).toFixed(0).padStart(26),
          `${(r.ingest / r.psql).toFixed(2)}x`.padStart(7),
          (r.n / r.copy).toFixed(0).padStart(28),
          `${(r.ingest / r.copy).toFixed(2)}x`.padStart(7),
        ].join(''),
      );
  } finally {
    await bench.close();
  }
}
