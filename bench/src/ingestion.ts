/**
 * Ingestion end to end: a generated Playwright JSON report of 10,000 tests (a tenth retried once, every test with
 * a nested steps tree) uploaded through the gateway (auth, streaming to the runs service, parsing, one
 * transaction with multi-row INSERT … SELECT FROM jsonb_to_recordset, outbox). Prints tests per second and the
 * ratio to a raw `COPY` of the same rows (tests, results, attempts) into the same Postgres.
 *
 *   make bench BENCH=ingestion      (or: node bench/dist/run.js ingestion; BENCH_TESTS=N to change the size)
 */
import { spawn } from 'node:child_process';
import { Admin, Api } from '@assay/testkit';
import { benchSystem } from './lib';

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

function psql(databaseUrl: string, sql: string, stdin?: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const p = spawn('psql', [databaseUrl, '-v', 'ON_ERROR_STOP=1', '-qc', sql], { stdio: ['pipe', 'ignore', 'pipe'] });
    let err = '';
    p.stderr.on('data', (d) => (err += d));
    p.on('close', (code) => (code === 0 ? resolve() : reject(new Error(err))));
    p.stdin.end(stdin ?? '');
  });
}

/** The same rows the ingestion writes, COPYed raw into look-alike tables in a scratch schema. */
async function rawCopy(databaseUrl: string, report: ReturnType<typeof generateReport>): Promise<number> {
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
  await psql(
    databaseUrl,
    `DROP SCHEMA IF EXISTS bench_copy CASCADE; CREATE SCHEMA bench_copy;
     CREATE TABLE bench_copy.tests (id text PRIMARY KEY, project_id text, file text, title_path text[], project_name text, full_title text);
     CREATE TABLE bench_copy.results (id text PRIMARY KEY, run_id text, project_id text, test_id text, seq int, file text, title_path text[], project_name text, outcome text, attempt_count int);
     CREATE TABLE bench_copy.attempts (result_id text, retry int, run_id text, status text, duration_ms bigint, started_at timestamptz, errors jsonb, steps jsonb, stdout jsonb, stderr jsonb, attachments jsonb, PRIMARY KEY (result_id, retry));`,
  );
  const t0 = process.hrtime.bigint();
  await psql(databaseUrl, `\\copy bench_copy.tests FROM STDIN WITH (FORMAT csv)`, tests.join('\n') + '\n');
  await psql(databaseUrl, `\\copy bench_copy.results FROM STDIN WITH (FORMAT csv)`, results.join('\n') + '\n');
  await psql(databaseUrl, `\\copy bench_copy.attempts FROM STDIN WITH (FORMAT csv)`, attempts.join('\n') + '\n');
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  await psql(databaseUrl, 'DROP SCHEMA bench_copy CASCADE');
  return seconds;
}

export async function run(): Promise<void> {
  const n = Number(process.env.BENCH_TESTS ?? 10000);
  const bench = await benchSystem({ gateway: { RATE_LIMITS: 'reads=1000000,writes=1000000,ip=1000000,ingest=1000000' } });
  try {
    const admin = new Admin(bench.system.adminUrl, bench.system.internalToken);
    const t = await admin.tenant('owner');
    const key = (await admin.apiKey(t.projectId)).token;
    const report = generateReport(n);
    const body = JSON.stringify(report);
    const attempts = report.suites.reduce((m, s) => m + s.specs.reduce((k, sp) => k + sp.tests[0]!.results.length, 0), 0);
    console.log(`report: ${n} tests, ${attempts} attempts, ${(body.length / 1024 / 1024).toFixed(1)} MiB`);
    const api = new Api(bench.system.gatewayUrl, key);
    const upload = async () => {
      const t0 = process.hrtime.bigint();
      const res = await api.request('POST', `/api/v1/ingest/${t.projectId}/playwright`, {
        rawBody: body,
        headers: { 'content-type': 'application/json' },
      });
      const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
      if (res.status !== 201) throw new Error(`ingestion failed: ${res.status} ${res.text.slice(0, 500)}`);
      if (res.body.data.testStats.total !== n) throw new Error(`ingested ${res.body.data.testStats.total} of ${n} tests`);
      return seconds;
    };
    await upload(); // warm-up (JIT, pools, first project rows)
    const runs = [await upload(), await upload()];
    const ingest = Math.min(...runs);
    const copy = Math.min(await rawCopy(bench.infra.env.DATABASE_URL, report), await rawCopy(bench.infra.env.DATABASE_URL, report));
    console.log(
      `end-to-end ingestion: ${ingest.toFixed(2)} s = ${(n / ingest).toFixed(0)} tests/s (best of ${runs.length}: ${runs.map((s) => s.toFixed(2)).join(', ')} s)`,
    );
    console.log(`raw COPY of the same rows: ${copy.toFixed(2)} s = ${(n / copy).toFixed(0)} tests/s`);
    console.log(`ratio ingestion / raw COPY: ${(ingest / copy).toFixed(2)}x`);
  } finally {
    await bench.close();
  }
}
