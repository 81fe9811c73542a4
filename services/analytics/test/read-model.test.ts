/**
 * The read model against a private database, with generated runs and a clock the test moves: after every step
 * the rolling windows (per test, per file, per project; 7, 30 and 90 days) must equal what a brute-force
 * computation over the raw results gives, figure by figure (counts, sums, exact extremes, histograms,
 * percentiles, latest timestamps). Late runs, a future-dated run, idle days, replays, batches and a rebuild
 * from a fake runs service all keep that equality. Also: the sketch's bounds and error.
 */
import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { RunSnapshotSchema } from '@assay/proto/assay/events/v1/run_lifecycle_pb';
import { RunResultSchema, type RunResult } from '@assay/proto/assay/runs/v1/runs_pb';
import { attemptStatus, testOutcome } from '@assay/contracts/runs/test-cases';
import { runStatus } from '@assay/contracts/runs/test-runs';
import { ExplorerSortBy } from '@assay/proto/assay/analytics/v1/analytics_pb';
import { createPool, migrate, type Pool } from '@assay/db';
import { createLogger } from '@assay/logger';
import { createDatabase, testSystem } from '@assay/testkit';
import { BOUNDS, bucketOf, bucketValue, histOf, quantile } from '../src/domain/histogram';
import { ReadModel } from '../src/read-model';
import { ReadCache } from '../src/cache';
import { analyticsServiceHandlers as analyticsHandlers } from '../src/routes';
import { Roller } from '../src/workers/roller';
import { MIGRATIONS_DIR } from '../src/service';
import type { RunWithResults } from '../src/store/fold';

jest.setTimeout(180000);
const DAY = 86_400_000;

/** Deterministic pseudo-random numbers (mulberry32). */
function rng(seed: number) {
  let a = seed;
  return () => {
    a |= 0;
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('duration sketch', () => {
  it('has integer bounds, one millisecond wide below 39 ms, about 5 % wide above, fewer than 400 buckets', () => {
    expect(BOUNDS.slice(0, 4)).toEqual([0, 1, 2, 3]);
    for (let i = 1; i < BOUNDS.length - 1; i++) {
      const width = BOUNDS[i + 1]! - BOUNDS[i]!;
      expect(width).toBeGreaterThanOrEqual(1);
      if (BOUNDS[i]! < 39) expect(width).toBe(1);
      else expect(width).toBeLessThanOrEqual(Math.ceil(BOUNDS[i]! * 0.052));
    }
    expect(BOUNDS.length).toBeLessThan(400);
  });

  it('stands every value up to 2,000,000 ms for one within 2.5 %', () => {
    for (let v = 1; v <= 2_000_000; v++) {
      const b = bucketOf(v);
      if (Math.abs(bucketValue(b) - v) > 0.025 * v) throw new Error(`${v} → ${bucketValue(b)}`);
    }
  });

  it('maps a value into the bucket that holds it, and back within 2.5 %', () => {
    const r = rng(1);
    for (let k = 0; k < 20000; k++) {
      const v = Math.floor(Math.exp(r() * 20));
      const b = bucketOf(v);
      expect(BOUNDS[b]!).toBeLessThanOrEqual(v);
      if (b + 1 < BOUNDS.length) expect(BOUNDS[b + 1]!).toBeGreaterThan(v);
      if (v > 0) expect(Math.abs(bucketValue(b) - v) / v).toBeLessThanOrEqual(0.025);
      else expect(bucketValue(b)).toBe(0);
    }
  });

  it('estimates nearest-rank percentiles within 2.5 % (exactly below 20 ms)', () => {
    const r = rng(2);
    const values = Array.from({ length: 5000 }, () => Math.floor(50 + r() * r() * 20000));
    const sorted = [...values].sort((a, b) => a - b);
    const h = histOf(values);
    for (const q of [0.5, 0.9, 0.95, 0.99]) {
      const exact = sorted[Math.ceil(q * sorted.length) - 1]!;
      expect(Math.abs(quantile(h, q) - exact) / exact).toBeLessThanOrEqual(0.025);
    }
    expect(quantile(histOf([3, 1, 2, 19]), 0.5)).toBe(2);
  });
});

// ---- brute force ------------------------------------------------------------------------------------------

interface Raw {
  runId: string;
  day: number;
  at: number;
  testId: string;
  file: string;
  cls: 'passed' | 'failed' | 'flaky' | 'skipped';
  ms: number;
}

function expectedOf(rows: Raw[]) {
  const ran = rows.filter((r) => r.cls !== 'skipped');
  const sorted = ran.map((r) => r.ms).sort((a, b) => a - b);
  const q = (p: number) => (sorted.length ? bucketValue(bucketOf(sorted[Math.max(1, Math.ceil(p * sorted.length)) - 1]!)) : 0);
  const last = (c?: string) => {
    const xs = rows.filter((r) => !c || r.cls === c).map((r) => r.at);
    return xs.length ? Math.max(...xs) : null;
  };
  const h = histOf(ran.map((r) => r.ms));
  return {
    executions: rows.length,
    passed: rows.filter((r) => r.cls === 'passed').length,
    failed: rows.filter((r) => r.cls === 'failed').length,
    flaky: rows.filter((r) => r.cls === 'flaky').length,
    skipped: rows.filter((r) => r.cls === 'skipped').length,
    dur_sum: ran.reduce((s, r) => s + r.ms, 0),
    dur_min: sorted.length ? sorted[0] : null,
    dur_max: sorted.length ? sorted[sorted.length - 1] : null,
    h_idx: h.idx,
    h_cnt: h.cnt,
    p50: q(0.5),
    p90: q(0.9),
    p95: q(0.95),
    p99: q(0.99),
    last_run_at: last(),
    last_failed_at: last('failed'),
    last_flaky_at: last('flaky'),
  };
}

describe('read model: rolling windows equal brute force through folds, late runs, idle days, replays and a rebuild', () => {
  let pool: Pool;
  let model: ReadModel;
  let fakeRuns: unknown;
  let url: string;
  const logger = createLogger('analytics-test', 'warn');
  let now = 0;
  const folded = new Map<string, RunWithResults>();
  const raw: Raw[] = [];
  const PROJECT = 'p1';
  const START = Date.UTC(2026, 0, 1);
  const tests = Array.from({ length: 24 }, (_, i) => ({ id: `t${i}`, file: `f${i % 5}.spec.ts`, title: ['suite', `test ${i}`] }));

  const makeRun = (id: string, at: number, r: () => number): RunWithResults => {
    const classes = ['passed', 'passed', 'passed', 'failed', 'flaky', 'skipped'] as const;
    const outcome = { passed: 'expected', failed: 'unexpected', flaky: 'flaky', skipped: 'skipped' } as const;
    const results: RunResult[] = [];
    for (const t of tests) {
      if (r() < 0.25) continue;
      const cls = classes[Math.floor(r() * classes.length)]!;
      const ms = cls === 'skipped' ? 0 : Math.floor(r() < 0.1 ? r() * 20 : 100 + r() * 4000 * (Number(t.id.slice(1)) % 3 === 0 ? 10 : 1));
      results.push(
        create(RunResultSchema, {
          id: `${id}-${t.id}`,
          runId: id,
          projectId: PROJECT,
          testId: t.id,
          file: t.file,
          titlePath: t.title,
          projectName: 'chromium',
          status: attemptStatus.toProto(cls === 'failed' ? 'failed' : cls === 'skipped' ? 'skipped' : 'passed'),
          outcome: testOutcome.toProto(outcome[cls]),
          durationMs: BigInt(ms),
          attempts: cls === 'flaky' ? 2 : 1,
          tags: r() < 0.3 ? ['@smoke'] : [],
        }),
      );
    }
    const run = create(RunSnapshotSchema, {
      id,
      status: runStatus.toProto(results.some((x) => testOutcome.fromProto(x.outcome) === 'unexpected') ? 'failed' : 'passed'),
      startTime: timestampFromDate(new Date(at)),
      git: { branch: r() < 0.5 ? 'main' : 'feature', environment: r() < 0.5 ? 'staging' : 'production', commit: { author: 'Ada' } },
      tags: r() < 0.5 ? ['nightly'] : [],
    });
    return { run, results };
  };

  const rawOf = (i: RunWithResults): Raw[] =>
    i.results.map((x) => {
      const at = Number(i.run.startTime!.seconds) * 1000 + Math.floor(i.run.startTime!.nanos / 1e6);
      const cls = ({ expected: 'passed', unexpected: 'failed', flaky: 'flaky', skipped: 'skipped' } as const)[
        testOutcome.fromProto(x.outcome)
      ];
      return { runId: i.run.id, day: Math.floor(at / DAY), at, testId: x.testId, file: x.file, cls, ms: Number(x.durationMs) };
    });

  const fold = async (inputs: RunWithResults[]) => {
    await model.fold(PROJECT, inputs);
    for (const i of inputs)
      if (!folded.has(i.run.id)) {
        folded.set(i.run.id, i);
        raw.push(...rawOf(i));
      }
  };

  const dbRows = async (table: string, keyCol: string | null, w: number) => {
    const keySql = keyCol === 'test_key' ? 't.test_id' : keyCol === 'file_key' ? 'f.file' : "'project'";
    const join =
      keyCol === 'test_key'
        ? 'JOIN tests t ON t.test_key = w.test_key'
        : keyCol === 'file_key'
          ? 'JOIN files f ON f.file_key = w.file_key'
          : '';
    const { rows } = await pool.query(
      `SELECT ${keySql} AS k, w.* FROM ${table} w ${join} JOIN projects p ON p.project_key = w.project_key
        WHERE p.project_id = $1 AND w.window_days = $2`,
      [PROJECT, w],
    );
    const out: Record<string, unknown> = {};
    for (const r of rows) {
      const e: Record<string, unknown> = {};
      for (const c of Object.keys(expectedOf([]))) {
        if (!(c in r)) continue;
        const v = r[c];
        e[c] = v instanceof Date ? v.getTime() : v === null ? null : Array.isArray(v) ? v : Number(v);
      }
      out[r.k as string] = e;
    }
    return out;
  };

  const check = async (label: string) => {
    const today = Math.floor(now / DAY);
    await model.current(PROJECT);
    for (const w of [7, 30, 90]) {
      const inWindow = raw.filter((r) => r.day > today - w && r.day <= today);
      for (const [table, keyCol, keyOf] of [
        ['test_windows', 'test_key', (r: Raw) => r.testId],
        ['file_windows', 'file_key', (r: Raw) => r.file],
        ['project_windows', null, () => 'project'],
      ] as const) {
        const groups = new Map<string, Raw[]>();
        for (const r of inWindow) groups.set(keyOf(r), [...(groups.get(keyOf(r)) ?? []), r]);
        const expected: Record<string, unknown> = {};
        const actual = await dbRows(table, keyCol, w);
        for (const [k, rows] of groups) {
          const e: Record<string, unknown> = expectedOf(rows);
          for (const c of Object.keys(e)) if (!(c in ((actual[k] as object) ?? {}))) delete e[c];
          expected[k] = e;
        }
        try {
          expect(actual).toEqual(expected);
        } catch (err) {
          throw new Error(`${label}: ${table} w=${w} differs\n${(err as Error).message}`);
        }
      }
    }
  };

  beforeAll(async () => {
    url = await createDatabase(testSystem().infra.DATABASE_URL, 'assay_analytics_rm');
    await migrate({ databaseUrl: url, schema: 'analytics', dir: MIGRATIONS_DIR, logger });
    pool = createPool({ connectionString: url, schema: 'analytics', applicationName: 'analytics-test' });
    // A fake runs service for the rebuild: what was folded so far.
    const runs = {
      async scanRuns(req: { pageToken: string }) {
        const all = [...folded.values()];
        const from = Number(req.pageToken || 0);
        const page = all.slice(from, from + 7);
        return {
          runs: page.map((i) => ({ projectId: PROJECT, orgId: 'o', run: i.run })),
          nextPageToken: from + 7 < all.length ? String(from + 7) : '',
        };
      },
      async listRunResults(req: { runId: string; pageToken: string; pageSize: number }) {
        const i = folded.get(req.runId)!;
        const from = Number(req.pageToken || 0);
        const size = 5;
        return {
          run: i.run,
          results: i.results.slice(from, from + size),
          nextPageToken: from + size < i.results.length ? String(from + size) : '',
        };
      },
    };
    fakeRuns = runs;
    model = new ReadModel({
      pool,
      runs: runs as never,
      logger,
      now: () => new Date(now),
      batchResults: 150,
      // Bounds smaller than a run: every fold and the rebuild (pages of 5) add and merge in several parts.
      foldLimits: { chunkResults: 8, mergeRows: 10 },
    });
  });

  afterAll(async () => {
    await pool?.end();
  });

  it('folds day by day with late, future-dated and replayed runs, and rolls over idle days', async () => {
    const r = rng(42);
    let n = 0;
    const id = () => `run-${++n}`;
    // 120 days; runs on most days, some late (up to 40 days back), one 2 days in the future.
    for (let d = 0; d < 120; d++) {
      now = START + d * DAY + 12 * 3600_000;
      if (d % 11 === 5) {
        await check(`idle day ${d}`);
        continue;
      }
      const batch: RunWithResults[] = [];
      const count = 1 + Math.floor(r() * 3);
      for (let k = 0; k < count; k++) batch.push(makeRun(id(), START + d * DAY + Math.floor(r() * 11 * 3600_000), r));
      if (d % 7 === 3) batch.push(makeRun(id(), START + (d - 1 - Math.floor(r() * 40)) * DAY + 3600_000, r));
      if (d === 50) batch.push(makeRun(id(), START + (d + 2) * DAY + 3600_000, r));
      if (d % 5 === 0) await fold(batch);
      else for (const b of batch) await fold([b]);
      if (d % 9 === 0 && folded.size > 2) await fold([...folded.values()].slice(-3)); // replays
      if (d % 3 === 0 || d > 110) await check(`day ${d}`);
    }
    // An idle stretch: the 7-day window empties, the 30- and 90-day ones shrink.
    now = START + 135 * DAY;
    await check('after 15 idle days');
  });

  it('replaying every run changes nothing', async () => {
    const before = await pool.query('SELECT * FROM test_days ORDER BY project_key, day, test_key, branch_key, env_key, tagset_key');
    await fold([...folded.values()]);
    const after = await pool.query('SELECT * FROM test_days ORDER BY project_key, day, test_key, branch_key, env_key, tagset_key');
    expect(after.rows).toEqual(before.rows);
    await check('after replay');
  });

  it('answers cached per read-model version are the answers of the current read model', async () => {
    const opts = { slowTestMinMs: 1000, slowTestFactor: 2 };
    const cache = new ReadCache(50);
    const cached = analyticsHandlers(model, opts, cache) as any;
    const direct = analyticsHandlers(model, opts, new ReadCache(0)) as any;
    const calls: [string, object][] = [
      ['getSummary', { projectId: PROJECT, days: 30 }],
      ['listExplorerTests', { projectId: PROJECT, days: 7, sortBy: ExplorerSortBy.P95_DURATION, page: { page: 1, limit: 25 } }],
      ['listSpecs', { projectId: PROJECT, days: 90, page: { page: 1, limit: 10 } }],
      ['getTestPerformance', { projectId: PROJECT, days: 90, columnar: true }],
      ['getTestPerformance', { projectId: PROJECT, days: 90 }],
    ];
    const answers = async (h: any) => {
      const out = [];
      for (const [rpc, req] of calls)
        out.push(JSON.parse(JSON.stringify(await h[rpc](req), (_k, v) => (typeof v === 'bigint' ? String(v) : v))));
      return out;
    };
    const r = rng(7);
    for (let step = 0; step < 3; step++) {
      const first = await answers(cached);
      expect(await answers(cached)).toEqual(first); // hits
      expect(first).toEqual(await answers(direct));
      await fold([makeRun(`cache-${step}`, now - 3600_000 * (step + 1), r)]);
      const after = await answers(cached);
      expect(after).toEqual(await answers(direct));
      expect(after).not.toEqual(first);
    }
    expect(cache.hits).toBeGreaterThan(0);
    await check('after cached reads');
  });

  it('a rebuild (from the fake runs service, in batches) gives the same windows', async () => {
    await check('before rebuild');
    const res = await model.rebuild(PROJECT);
    expect(res).toEqual({ projects: 1, runs: folded.size, results: raw.length, ms: expect.any(Number) });
    await check('after rebuild');
    const all = await model.rebuild(undefined);
    expect(all.runs).toBe(folded.size);
    await check('after rebuild --all');
  });

  it('an empty read model rebuilds itself at start (and a filled one does not)', async () => {
    const fresh = await createDatabase(testSystem().infra.DATABASE_URL, 'assay_analytics_boot');
    await migrate({ databaseUrl: fresh, schema: 'analytics', dir: MIGRATIONS_DIR, logger });
    const pool2 = createPool({ connectionString: fresh, schema: 'analytics', applicationName: 'analytics-test' });
    try {
      const model2 = new ReadModel({ pool: pool2, runs: fakeRuns as never, logger, now: () => new Date(now), batchResults: 1000 });
      const roller = new Roller({ model: model2, logger, intervalMs: 60000, rebuildOnEmpty: true });
      expect(await model2.isEmpty()).toBe(true);
      await roller.bootstrap();
      expect(await model2.status(PROJECT)).toEqual({ projects: 1, runs: folded.size, results: raw.length, lastFoldedAt: expect.any(Date) });
      const windows = async (p: Pool) =>
        (
          await p.query(
            'SELECT window_days, executions, passed, failed, flaky, skipped, dur_sum, h_idx, h_cnt, p95 FROM project_windows ORDER BY 1',
          )
        ).rows;
      expect(await windows(pool2)).toEqual(await windows(pool));
      // Not empty any more: a second start leaves it alone.
      const before = await model2.status();
      await roller.bootstrap();
      expect(await model2.status()).toEqual(before);
    } finally {
      await pool2.end();
    }
  });
});
