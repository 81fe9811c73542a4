/**
 * Analytics end to end: REAL Playwright reports (fixtures/analytics run three times, variants a/b/c: different
 * failing and flaky tests, a slow one) ingested as six runs on two branches, two environments and several
 * days (each report's own start time moved back by whole days: 0, 1, 3, 10, 45 and 100 days ago), plus one run
 * still running. Every figure of every analytics endpoint (and of the reports-facing RPC) is compared, field
 * by field and in order, with what this file computes from the same reports. Then: replaying the lifecycle
 * events twice changes nothing; `analytics:rebuild` gives the same figures; the date rules of spec §4.1.
 */
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { createRpcClient } from '@assay/service-kit';
import { AnalyticsAdminService, AnalyticsService } from '@assay/proto/assay/analytics/v1/analytics_pb';
import { createKafkaBus, Topics } from '@assay/events';
import { createLogger } from '@assay/logger';
import { adminCli, testAdmin, testApi, testSystem, waitUntil, type Tenant } from '@assay/testkit';
import {
  analyticsReport,
  cmp,
  counts,
  percentiles,
  rates,
  resultsOf,
  type ModelResult,
  type ModelRun,
  type Variant,
} from './support/analytics';

jest.setTimeout(300000);
const DAY = 86_400_000;
const admin = testAdmin();
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const PLAN: { variant: Variant; ago: number; branch: string; environment: string; author: string; tags: string[] }[] = [
  { variant: 'a', ago: 0, branch: 'main', environment: 'staging', author: 'Ada', tags: ['nightly'] },
  { variant: 'b', ago: 1, branch: 'main', environment: 'production', author: 'Bob', tags: [] },
  { variant: 'c', ago: 3, branch: 'feature/cart', environment: 'staging', author: 'Ada', tags: ['nightly'] },
  { variant: 'a', ago: 10, branch: 'feature/cart', environment: 'production', author: 'Cy', tags: [] },
  { variant: 'b', ago: 45, branch: 'main', environment: 'staging', author: 'Bob', tags: ['release'] },
  { variant: 'c', ago: 100, branch: 'main', environment: 'production', author: 'Dee', tags: [] },
];

interface Fact {
  run: ModelRun;
  r: ModelResult;
}

const dateOf = (day: number) => new Date(day * DAY).toISOString().slice(0, 10);
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
const maxOf = (xs: number[]) => (xs.length ? Math.max(...xs) : null);

describe('analytics over real Playwright reports', () => {
  const s = testSystem();
  const rpc = createRpcClient(AnalyticsService, {
    baseUrl: `http://127.0.0.1:${s.ports.services.analytics!.rpcPort}`,
    internalToken: s.internalToken,
  });
  const adminRpc = createRpcClient(AnalyticsAdminService, {
    baseUrl: `http://127.0.0.1:${s.ports.services.analytics!.rpcPort}`,
    internalToken: s.internalToken,
  });
  let t: Tenant;
  let today: number;
  const runs: ModelRun[] = [];
  const testIds = new Map<string, string>();
  let runningId: string;
  let pid: string;
  const get = (p: string) => testApi(t.token).get(`/${pid}${p}`);

  beforeAll(async () => {
    t = await admin.tenant('member');
    pid = t.projectId;
    const key = (await admin.apiKey(pid)).token;
    const reports = { a: analyticsReport('a'), b: analyticsReport('b'), c: analyticsReport('c') };
    today = Math.floor(Date.now() / DAY);
    for (const [i, p] of PLAN.entries()) {
      const report = structuredClone(reports[p.variant]);
      const at = (today - p.ago) * DAY + 3600_000 + i * 60_000;
      report.stats.startTime = new Date(at).toISOString();
      const metadata = {
        git: { branch: p.branch, commit: { hash: `c${i}`, message: `commit ${i}`, author: p.author } },
        environment: p.environment,
        tags: p.tags,
      };
      const res = await testApi(key).post(`/api/v1/ingest/${pid}/playwright`, { ...report, metadata });
      expect(res.status).toBe(201);
      const results = resultsOf(report);
      runs.push({
        id: res.body.data.runId,
        day: today - p.ago,
        at,
        branch: p.branch,
        environment: p.environment,
        author: p.author,
        runTags: p.tags,
        status: results.some((r) => r.cls === 'failed') ? 'failed' : 'passed',
        results,
      });
      expect(res.body.data.status).toBe(runs[i]!.status);
    }
    const started = await testApi(key).post(`/api/v1/ingest/${pid}/runs`, {
      metadata: { git: { branch: 'main', commit: { hash: 'live', message: 'wip', author: 'Eve' } }, environment: 'staging' },
    });
    expect(started.status).toBe(201);
    runningId = started.body.data.runId;
    const cases = await get(`/test-runs/${runs[0]!.id}/test-cases?limit=50`);
    for (const c of cases.body.data) testIds.set(`${c.file}\u0000${c.fullTitle}`, c.testId);
    expect(testIds.size).toBe(8);
    await waitUntil(
      async () => {
        const st = await adminRpc.getReadModelStatus({ projectId: pid });
        const dash = await get('/dashboard');
        return Number(st.runs) === PLAN.length && dash.body.data.activeRuns.length === 1;
      },
      60000,
      () => 'analytics did not fold the runs',
    );
  });

  // ---- the model ------------------------------------------------------------------------------------------

  const facts = (from: number, until: number, keep: (f: Fact) => boolean = () => true): Fact[] =>
    runs.filter((r) => r.day >= from && r.day <= until).flatMap((run) => run.results.map((r) => ({ run, r })).filter(keep));
  const last = (fs: Fact[], cls?: string) => iso(maxOf(fs.filter((f) => !cls || f.r.cls === cls).map((f) => f.run.at)));
  const key = (r: ModelResult) => `${r.file}\u0000${r.title}`;
  const latestTags = (k: string) => {
    const all = runs.flatMap((run) => run.results.filter((r) => key(r) === k).map((r) => ({ at: run.at, tags: r.tags })));
    return all.sort((a, b) => b.at - a.at)[0]!.tags;
  };

  function testRows(fs: Fact[]) {
    const groups = new Map<string, Fact[]>();
    for (const f of fs) groups.set(key(f.r), [...(groups.get(key(f.r)) ?? []), f]);
    return [...groups.entries()].map(([k, g]) => {
      const rs = g.map((f) => f.r);
      return {
        testId: testIds.get(k)!,
        title: g[0]!.r.title,
        titlePath: g[0]!.r.titlePath,
        file: g[0]!.r.file,
        projectName: 'node',
        tags: latestTags(k),
        ...counts(rs),
        ...rates(rs),
        ...percentiles(rs),
        lastRunAt: last(g),
        lastFailedAt: last(g, 'failed'),
        lastFlakyAt: last(g, 'flaky'),
      };
    });
  }
  type Row = ReturnType<typeof testRows>[number];
  const ran = (x: Row) => x.executions - x.skipped;
  const byTitle = (a: Row, b: Row) => cmp(a.title, b.title) || cmp(a.testId, b.testId);
  const exact = (part: number, x: Row) => (ran(x) > 0 ? part / ran(x) : 0);

  const topFailing = (rows: Row[]) =>
    rows
      .filter((x) => x.failed > 0)
      .sort((a, b) => b.failed - a.failed || exact(b.failed, b) - exact(a.failed, a) || byTitle(a, b))
      .slice(0, 10);
  const topFlaky = (rows: Row[]) =>
    rows
      .filter((x) => x.flaky > 0)
      .sort((a, b) => b.flaky - a.flaky || exact(b.flaky, b) - exact(a.flaky, a) || byTitle(a, b))
      .slice(0, 10);
  const slowest = (rows: Row[]) =>
    rows
      .filter((x) => ran(x) > 0)
      .sort((a, b) => b.p95Duration - a.p95Duration || b.avgDuration - a.avgDuration || byTitle(a, b))
      .slice(0, 10);

  function trend(from: number, until: number) {
    const out = [];
    for (let d = from; d <= until; d++) {
      const rs = facts(d, d).map((f) => f.r);
      out.push({ date: dateOf(d), runs: runs.filter((r) => r.day === d).length, ...counts(rs), ...rates(rs) });
    }
    return out;
  }

  function breakdown(fs: Fact[], runsIn: ModelRun[], namesOf: (f: Fact) => string[], runNames: (r: ModelRun) => string[]) {
    const names = new Set([...fs.flatMap(namesOf), ...runsIn.flatMap(runNames)]);
    return [...names]
      .map((name) => {
        const rs = fs.filter((f) => namesOf(f).includes(name)).map((f) => f.r);
        return { name, runs: runsIn.filter((r) => runNames(r).includes(name)).length, ...counts(rs), ...rates(rs) };
      })
      .sort((a, b) => b.runs - a.runs || b.executions - a.executions || cmp(a.name, b.name));
  }
  const tagsOf = (f: Fact) => [...new Set([...f.r.tags, ...f.run.runTags])];
  const runTagsOf = (r: ModelRun) => [...new Set([...r.runTags, ...r.results.flatMap((x) => x.tags)])];

  function runCounts(from: number, until: number) {
    const rs = runs.filter((r) => r.day >= from && r.day <= until);
    return {
      total: rs.length,
      passed: rs.filter((r) => r.status === 'passed').length,
      failed: rs.filter((r) => r.status === 'failed').length,
      interrupted: 0,
      incomplete: 0,
    };
  }

  // ---- the endpoints --------------------------------------------------------------------------------------

  it('the fixture reports have what the tests need (sanity of the real reports)', () => {
    const cls = (v: number) => Object.fromEntries(runs[v]!.results.map((r) => [r.title, r.cls]));
    expect(cls(0)).toEqual({
      'adds an item': 'passed',
      'applies a coupon': 'passed',
      'checks out': 'flaky',
      'totals › computes totals slowly': 'passed',
      'finds by name': 'passed',
      'finds by tag': 'passed',
      'is skipped': 'skipped',
      indexes: 'passed',
    });
    expect(cls(1)['applies a coupon']).toBe('failed');
    expect(cls(1).indexes).toBe('flaky');
    expect(cls(2)['finds by tag']).toBe('failed');
    const slow = runs[0]!.results.find((r) => r.title === 'totals › computes totals slowly')!;
    expect(slow.ms).toBeGreaterThanOrEqual(1300);
  });

  it('GET /dashboard: fixed 30 days: run counts, totals, pass-rate trend, top flaky and failing, active runs', async () => {
    const res = await get('/dashboard');
    expect(res.status).toBe(200);
    const from = today - 29;
    const rows = testRows(facts(from, today));
    const rs = facts(from, today).map((f) => f.r);
    const listed = (await get('/test-runs?limit=10')).body.data.find((r: any) => r.id === runningId);
    expect(res.body).toEqual({
      success: true,
      data: {
        days: 30,
        from: dateOf(from),
        until: dateOf(today),
        runCounts: { ...runCounts(from, today), running: 1 },
        totals: { ...counts(rs), ...rates(rs) },
        passRateTrend: trend(from, today),
        topFlaky: topFlaky(rows),
        topFailing: topFailing(rows),
        activeRuns: [{ ...listed, duration: expect.any(Number) }],
      },
    });
    expect(res.body.data.runCounts).toEqual({ total: 4, passed: 2, failed: 2, interrupted: 0, incomplete: 0, running: 1 });
    expect(res.body.data.topFailing.map((x: Row) => x.title)).toEqual(['applies a coupon', 'finds by tag']);
    expect(res.body.data.activeRuns[0]).toEqual(
      expect.objectContaining({ id: runningId, status: 'running', startTime: expect.stringMatching(ISO) }),
    );
  });

  it('GET /filters and /filters/{kind}: values seen in every run (100 days ago too), sorted, empty ones left out', async () => {
    const res = await get('/filters');
    const expected = {
      environments: ['production', 'staging'],
      branches: ['feature/cart', 'main'],
      developers: ['Ada', 'Bob', 'Cy', 'Dee', 'Eve'],
      tags: ['checkout', 'nightly', 'release', 'smoke'],
    };
    expect(res.body).toEqual({ success: true, data: expected });
    for (const kind of ['environments', 'branches', 'developers', 'tags'] as const) {
      const one = await get(`/filters/${kind}`);
      expect(one.status).toBe(200);
      expect(one.body).toEqual({ success: true, data: expected[kind] });
    }
  });

  it('GET /test-case-explorer: every test per window, every status filter, every sort, both orders', async () => {
    for (const days of [7, 30, 90]) {
      const from = today - days + 1;
      const rows = testRows(facts(from, today));
      const all = facts(from, today).map((f) => f.r);
      const threshold = Math.max(1000, Math.round(2 * percentiles(all).p50Duration));
      const filters: Record<string, (x: Row) => boolean> = {
        '': () => true,
        failing: (x) => x.failed > 0,
        flaky: (x) => x.flaky > 0,
        stable: (x) => x.failed === 0 && x.flaky === 0 && ran(x) > 0,
        slow: (x) => ran(x) > 0 && x.p95Duration >= threshold,
      };
      const metrics: Record<string, (x: Row) => number> = {
        executions: (x) => x.executions,
        flaky_rate: (x) => exact(x.flaky, x),
        failure_rate: (x) => exact(x.failed, x),
        p95_duration: (x) => x.p95Duration,
      };
      for (const [status, keep] of Object.entries(filters))
        for (const [sortBy, metric] of Object.entries(metrics))
          for (const order of ['desc', 'asc']) {
            const expected = rows
              .filter(keep)
              .sort((a, b) => (order === 'desc' ? metric(b) - metric(a) : metric(a) - metric(b)) || byTitle(a, b));
            const q = `days=${days}&limit=50&sortBy=${sortBy}&order=${order}${status ? `&status=${status}` : ''}`;
            const res = await get(`/test-case-explorer?${q}`);
            expect({ q, body: res.body }).toEqual({
              q,
              body: {
                success: true,
                data: expected,
                pagination: { page: 1, limit: 50, total: expected.length, hasNext: false, hasPrev: false, hasMore: false },
              },
            });
          }
      // Defaults: executions, descending.
      const dflt = await get(`/test-case-explorer?days=${days}`);
      expect(dflt.body.data).toEqual(rows.sort((a, b) => b.executions - a.executions || byTitle(a, b)));
    }
    const slow = await get('/test-case-explorer?status=slow');
    expect(slow.body.data.map((x: Row) => x.title)).toEqual(['totals › computes totals slowly']);
    const seven = await get('/test-case-explorer?days=7&status=failing');
    expect(seven.body.data.map((x: Row) => [x.title, x.failed])).toEqual([
      ['applies a coupon', 1],
      ['finds by tag', 1],
    ]);
  });

  it('GET /test-case-explorer: pages and the explorer page sizes (10, 25, 50; others INVALID_LIMIT)', async () => {
    const p1 = await get('/test-case-explorer?limit=10&page=1');
    expect(p1.body.pagination).toEqual({ page: 1, limit: 10, total: 8, hasNext: false, hasPrev: false, hasMore: false });
    const p2 = await get('/test-case-explorer?limit=10&page=2');
    expect(p2.body).toEqual({
      success: true,
      data: [],
      pagination: { page: 2, limit: 10, total: 8, hasNext: false, hasPrev: true, hasMore: false },
    });
    expect((await get('/test-case-explorer?limit=25')).status).toBe(200);
    for (const limit of ['100', '5', '20', 'abc']) {
      const res = await get(`/test-case-explorer?limit=${limit}`);
      expect({ limit, status: res.status, code: res.body.error?.code }).toEqual({ limit, status: 400, code: 'INVALID_LIMIT' });
    }
    expect((await get('/test-case-explorer?status=broken')).body.error.code).toBe('VALIDATION_ERROR');
    expect((await get('/test-case-explorer?sortBy=name')).body.error.code).toBe('VALIDATION_ERROR');
  });

  it('GET /specs: per spec file per window, most failures first', async () => {
    for (const days of [7, 30, 90]) {
      const fs = facts(today - days + 1, today);
      const files = [...new Set(fs.map((f) => f.r.file))];
      const expected = files
        .map((file) => {
          const g = fs.filter((f) => f.r.file === file);
          const rs = g.map((f) => f.r);
          return {
            file,
            tests: new Set(rs.map((r) => r.title)).size,
            ...counts(rs),
            ...rates(rs),
            ...percentiles(rs),
            lastRunAt: last(g),
          };
        })
        .sort((a, b) => b.failed - a.failed || cmp(a.file, b.file));
      const res = await get(`/specs?days=${days}&limit=25`);
      expect(res.body).toEqual({
        success: true,
        data: expected,
        pagination: { page: 1, limit: 25, total: expected.length, hasNext: false, hasPrev: false, hasMore: false },
      });
    }
    expect((await get('/specs?limit=7')).body.error.code).toBe('INVALID_LIMIT');
  });

  it('GET /analytics/summary: totals, rates, percentiles, tops, breakdowns, trend, per window', async () => {
    for (const days of [7, 30, 90]) {
      const from = today - days + 1;
      const fs = facts(from, today);
      const rs = fs.map((f) => f.r);
      const rows = testRows(fs);
      const runsIn = runs.filter((r) => r.day >= from);
      const p = percentiles(rs);
      const res = await get(`/analytics/summary?days=${days}`);
      expect(res.body).toEqual({
        success: true,
        data: {
          days,
          from: dateOf(from),
          until: dateOf(today),
          totals: { runs: runsIn.length, ...counts(rs) },
          runsByStatus: runCounts(from, today),
          ...rates(rs),
          durationPercentiles: {
            p50: p.p50Duration,
            p90: p.p90Duration,
            p95: p.p95Duration,
            p99: p.p99Duration,
            min: p.minDuration,
            max: p.maxDuration,
          },
          topFailing: topFailing(rows),
          topFlaky: topFlaky(rows),
          slowest: slowest(rows),
          byTag: breakdown(fs, runsIn, tagsOf, runTagsOf),
          byEnvironment: breakdown(
            fs,
            runsIn,
            (f) => [f.run.environment],
            (r) => [r.environment],
          ),
          byBranch: breakdown(
            fs,
            runsIn,
            (f) => [f.run.branch],
            (r) => [r.branch],
          ),
          trend: trend(from, today),
        },
      });
    }
    const s90 = (await get('/analytics/summary?days=90')).body.data;
    expect(s90.totals.runs).toBe(5);
    expect(s90.slowest[0].title).toBe('totals › computes totals slowly');
  });

  it('GET /analytics/test-cases/performance: percentiles and failure statistics per test id, within 2.5 % of exact', async () => {
    for (const days of [7, 30, 90]) {
      const fs = facts(today - days + 1, today);
      const expected = testRows(fs)
        .filter((x) => ran(x) > 0)
        .sort((a, b) => b.p95Duration - a.p95Duration || byTitle(a, b))
        // eslint-disable-next-line @typescript-eslint/no-unused-vars -- the lean performance row leaves these out
        .map(({ titlePath, tags, lastFailedAt, lastFlakyAt, ...lean }) => lean);
      const res = await get(`/analytics/test-cases/performance?days=${days}`);
      expect(res.body).toEqual({ success: true, data: expected });
      for (const row of res.body.data) {
        const ms = fs
          .filter((f) => f.r.title === row.title && f.r.cls !== 'skipped')
          .map((f) => f.r.ms)
          .sort((a, b) => a - b);
        const p95 = ms[Math.ceil(0.95 * ms.length) - 1]!;
        expect(Math.abs(row.p95Duration - p95)).toBeLessThanOrEqual(0.025 * p95);
      }
    }
    // Every row links to the test's history.
    const rows = (await get('/analytics/test-cases/performance?days=90')).body.data;
    const h = await get(`/test-cases/history?testId=${rows[0].testId}`);
    expect(h.status).toBe(200);
    expect(h.body.pagination.total).toBe(PLAN.length);
    const byTitle2 = await get(`/test-cases/history?title=${encodeURIComponent(rows[0].title)}`);
    expect(byTitle2.body.pagination.total).toBe(PLAN.length);
  });

  it('GetReportData (the reports service’s RPC): exact windows (not snapped), from/until, branch, environment and tag filters', async () => {
    const cases: {
      label: string;
      from: number;
      until: number;
      req: Record<string, unknown>;
      keep: (f: Fact) => boolean;
      keepRun: (r: ModelRun) => boolean;
    }[] = [
      { label: 'days 1', from: today, until: today, req: { days: 1 }, keep: () => true, keepRun: () => true },
      { label: 'days 5', from: today - 4, until: today, req: { days: 5 }, keep: () => true, keepRun: () => true },
      { label: 'days 90', from: today - 89, until: today, req: { days: 90 }, keep: () => true, keepRun: () => true },
      {
        label: 'from/until',
        from: today - 45,
        until: today - 3,
        req: {
          from: timestampFromDate(new Date((today - 45) * DAY + 5000)),
          until: timestampFromDate(new Date((today - 3) * DAY + 80000000)),
        },
        keep: () => true,
        keepRun: () => true,
      },
      {
        label: 'branch main',
        from: today - 29,
        until: today,
        req: { days: 30, branch: 'main' },
        keep: (f) => f.run.branch === 'main',
        keepRun: (r) => r.branch === 'main',
      },
      {
        label: 'environment staging',
        from: today - 29,
        until: today,
        req: { days: 30, environment: 'staging' },
        keep: (f) => f.run.environment === 'staging',
        keepRun: (r) => r.environment === 'staging',
      },
      {
        label: 'tags',
        from: today - 89,
        until: today,
        req: { days: 90, tags: ['checkout', 'release'] },
        keep: (f) => tagsOf(f).some((x) => ['checkout', 'release'].includes(x)),
        keepRun: (r) => runTagsOf(r).some((x) => ['checkout', 'release'].includes(x)),
      },
    ];
    for (const c of cases) {
      const fs = facts(c.from, c.until, c.keep);
      const rs = fs.map((f) => f.r);
      const runsIn = runs.filter((r) => r.day >= c.from && r.day <= c.until && c.keepRun(r));
      const rows = testRows(fs);
      const res = await rpc.getReportData({ projectId: pid, ...c.req });
      const n = (v: bigint | undefined) => Number(v ?? 0);
      const stats = (x: any) => ({
        executions: n(x.executions),
        passed: n(x.passed),
        failed: n(x.failed),
        flaky: n(x.flaky),
        skipped: n(x.skipped),
        passRate: x.passRate,
        failureRate: x.failureRate,
        flakyRate: x.flakyRate,
        avgDuration: x.avgDurationMs,
      });
      const row = (x: any) => ({
        title: x.title,
        ...stats(x.stats),
        p95Duration: n(x.durations.p95Ms),
        lastRunAt: x.lastRunAt ? new Date(Number(x.lastRunAt.seconds) * 1000 + x.lastRunAt.nanos / 1e6).toISOString() : null,
        testId: x.testId,
        file: x.file,
      });
      const pick = (x: Row) => ({
        title: x.title,
        executions: x.executions,
        passed: x.passed,
        failed: x.failed,
        flaky: x.flaky,
        skipped: x.skipped,
        passRate: x.passRate,
        failureRate: x.failureRate,
        flakyRate: x.flakyRate,
        avgDuration: x.avgDuration,
        p95Duration: x.p95Duration,
        lastRunAt: x.lastRunAt,
        testId: x.testId,
        file: x.file,
      });
      const p = percentiles(rs);
      const bd = (b: any) => ({ name: b.name, runs: n(b.runs), ...stats(b.stats) });
      const strip = (x: any) => {
        const { name, runs: r, executions, passed, failed, flaky, skipped, passRate, failureRate, flakyRate, avgDuration } = x;
        return { name, runs: r, executions, passed, failed, flaky, skipped, passRate, failureRate, flakyRate, avgDuration };
      };
      expect({
        label: c.label,
        window: [res.window!.fromDate, res.window!.untilDate, res.window!.days],
        runs: res.totals!.runs,
        stats: stats(res.totals!.stats),
        p: [res.totals!.durations!.p50Ms, res.totals!.durations!.p95Ms, res.totals!.durations!.minMs, res.totals!.durations!.maxMs].map(
          Number,
        ),
        tests: n(res.totals!.tests),
        specFiles: n(res.totals!.specFiles),
        trend: res.trend.map((d) => ({ date: d.date, runs: n(d.runs), ...stats(d.stats) })),
        topFailing: res.topFailing.map(row),
        topFlaky: res.topFlaky.map(row),
        slowest: res.slowest.map(row),
        byEnvironment: res.byEnvironment.map(bd),
        byBranch: res.byBranch.map(bd),
        byTag: res.byTag.map(bd),
      }).toEqual({
        label: c.label,
        window: [dateOf(c.from), dateOf(c.until), c.until - c.from + 1],
        runs: expect.objectContaining({
          total: BigInt(runsIn.length),
          passed: BigInt(runsIn.filter((r) => r.status === 'passed').length),
          failed: BigInt(runsIn.filter((r) => r.status === 'failed').length),
        }),
        stats: { ...counts(rs), ...rates(rs) },
        p: [p.p50Duration, p.p95Duration, p.minDuration, p.maxDuration],
        tests: rows.length,
        specFiles: new Set(rs.map((r) => r.file)).size,
        trend: trend(c.from, c.until).map((d) => {
          const dayFacts = fs.filter((f) => f.run.day === dateToDay(d.date)).map((f) => f.r);
          return {
            date: d.date,
            runs: runsIn.filter((r) => dateOf(r.day) === d.date).length,
            ...counts(dayFacts),
            ...rates(dayFacts),
          };
        }),
        topFailing: topFailing(rows).map(pick),
        topFlaky: topFlaky(rows).map(pick),
        slowest: slowest(rows).map(pick),
        byEnvironment: breakdown(
          fs,
          runsIn,
          (f) => [f.run.environment],
          (r) => [r.environment],
        ).map(strip),
        byBranch: breakdown(
          fs,
          runsIn,
          (f) => [f.run.branch],
          (r) => [r.branch],
        ).map(strip),
        byTag: breakdown(fs, runsIn, tagsOf, runTagsOf).map(strip),
      });
    }
    await expect(rpc.getReportData({ projectId: pid, days: 91 })).rejects.toThrow(/days/);
    await expect(rpc.getReportData({ projectId: pid, from: timestampFromDate(new Date()) })).rejects.toThrow(/together/);
  });

  // ---- replays and rebuilds ---------------------------------------------------------------------------------

  const everything = async () => {
    const paths = [
      '/dashboard',
      '/filters',
      ...[7, 30, 90].flatMap((d) => [
        `/test-case-explorer?days=${d}&limit=50`,
        `/test-case-explorer?days=${d}&limit=50&status=slow`,
        `/specs?days=${d}`,
        `/analytics/summary?days=${d}`,
        `/analytics/test-cases/performance?days=${d}`,
      ]),
    ];
    const out: Record<string, unknown> = {};
    for (const p of paths) {
      const res = await get(p);
      expect(res.status).toBe(200);
      out[p] = res.body;
    }
    // The running run's duration grows with time: not part of the comparison.
    (out['/dashboard'] as any).data.activeRuns = (out['/dashboard'] as any).data.activeRuns.map((r: any) => ({ ...r, duration: 0 }));
    return out;
  };

  const metric = async (outcome: string) => {
    const text = await (await fetch(`http://127.0.0.1:${s.ports.services.analytics!.httpPort}/metrics`)).text();
    const line = text
      .split('\n')
      .find((l) => l.startsWith('analytics_run_events_total{') && l.includes('type="finished"') && l.includes(`outcome="${outcome}"`));
    if (process.env.DEBUG_METRICS)
      console.log(
        text
          .split('\n')
          .filter((l) => l.startsWith('analytics_'))
          .join('\n'),
      );
    return line ? Number(line.split(' ').pop()) : 0;
  };

  it('replaying the lifecycle events of the project twice changes no figure', async () => {
    const before = await everything();
    // Read this project's events back from the topic, then publish each of them twice more.
    const bus = createKafkaBus({
      brokers: s.infra.KAFKA_BROKERS.split(','),
      clientId: 'analytics-replay-test',
      logger: createLogger('test', 'warn'),
    });
    const ours = new Set([...runs.map((r) => r.id), runningId]);
    const events: { key: string; value: Buffer }[] = [];
    const consumer = bus.consumer({ groupId: `analytics-replay-${Date.now()}`, topics: [Topics.RUN_LIFECYCLE], fromBeginning: true });
    await consumer.start(async (m) => {
      if (m.key && ours.has(m.key)) events.push({ key: m.key, value: m.value });
    });
    await waitUntil(
      async () => events.length >= PLAN.length * 2 + 1,
      60000,
      () => `found ${events.length} events`,
    );
    await consumer.stop();
    const finished = events.length - PLAN.length - 1;
    expect(finished).toBe(PLAN.length);
    const skippedBefore = await metric('skipped');
    const publisher = await bus.publisher();
    await publisher.publish(Topics.RUN_LIFECYCLE, [...events, ...events]);
    await publisher.disconnect();
    await bus.close();
    // Every replayed RUN_FINISHED is seen and skipped (its run is folded already).
    let seen = 0;
    await waitUntil(
      async () => (seen = await metric('skipped')) >= skippedBefore + 2 * PLAN.length,
      60000,
      () => `replays not consumed: skipped ${skippedBefore} → ${seen}`,
    );
    expect(await everything()).toEqual(before);
  });

  it('npm run admin -- analytics:rebuild --project P drops and refolds the project: same figures', async () => {
    const before = await everything();
    const rebuilt = await adminCli(s, ['analytics:rebuild', '--project', pid]);
    const total = runs.reduce((n, r) => n + r.results.length, 0);
    expect([rebuilt.code, rebuilt.json]).toEqual([0, { projects: 1, runs: PLAN.length, results: total, durationMs: expect.any(Number) }]);
    expect(await everything()).toEqual(before);
    const bad = await adminCli(s, ['analytics:rebuild']);
    expect(bad.code).toBe(2);
    expect([bad.stdout, bad.json.error.code]).toEqual(['', 'USAGE']);
  });

  // ---- spec §4.1 date rules ---------------------------------------------------------------------------------

  it('days snaps to the nearest of 7, 30, 90 (a tie to the longer); absent or invalid means 30', async () => {
    const cases: [string, number][] = [
      ['', 30],
      ['days=1', 7],
      ['days=7', 7],
      ['days=18', 7],
      ['days=19', 30],
      ['days=30', 30],
      ['days=59', 30],
      ['days=60', 90],
      ['days=90', 90],
      ['days=365', 90],
      ['days=99999999999999999999', 90],
      ['days=007', 7],
      ['days=abc', 30],
      ['days=7d', 30],
      ['days=1.5', 30],
      ['days=0', 30],
      ['days=-7', 30],
      ['days=', 30],
      ['days=7&days=90', 30],
      ['dateRange=7d', 30],
      ['dateRange=7d&days=7', 7],
      ['startDate=2020-01-01&endDate=2020-01-31&period=7d&foo=bar', 30],
    ];
    for (const [q, days] of cases) {
      const res = await get(`/analytics/summary${q ? `?${q}` : ''}`);
      expect({ q, status: res.status, days: res.body.data?.days, from: res.body.data?.from }).toEqual({
        q,
        status: 200,
        days,
        from: dateOf(today - days + 1),
      });
    }
    // The same rule on the explorer, specs and performance (their answers differ by window).
    for (const [q, days] of [
      ['days=10', 7],
      ['days=bogus', 30],
      ['days=75', 90],
    ] as const) {
      const expected = (await get(`/test-case-explorer?days=${days}&limit=50`)).body;
      expect((await get(`/test-case-explorer?${q}&limit=50`)).body).toEqual(expected);
      expect((await get(`/specs?${q}`)).body).toEqual((await get(`/specs?days=${days}`)).body);
      expect((await get(`/analytics/test-cases/performance?${q}`)).body).toEqual(
        (await get(`/analytics/test-cases/performance?days=${days}`)).body,
      );
    }
    const seven = (await get('/test-case-explorer?days=7&limit=50')).body.data;
    const ninety = (await get('/test-case-explorer?days=90&limit=50')).body.data;
    expect(seven).not.toEqual(ninety);
  });

  it('dashboard and filters take no query parameters: any given are stripped', async () => {
    const dash = async (q: string) => {
      const body = (await get(`/dashboard${q}`)).body;
      body.data.activeRuns = body.data.activeRuns.map((r: any) => ({ ...r, duration: 0 }));
      return body;
    };
    const plain = await dash('');
    for (const q of [
      '?days=7',
      '?dateRange=7d',
      '?startDate=2020-01-01&endDate=2020-02-01',
      '?environment=staging&branch=main',
      '?page=2&limit=5',
    ])
      expect({ q, body: await dash(q) }).toEqual({ q, body: plain });
    const filters = (await get('/filters')).body;
    for (const q of ['?days=7', '?environment=staging', '?limit=3']) {
      expect((await get(`/filters${q}`)).body).toEqual(filters);
      expect((await get(`/filters/tags${q}`)).body).toEqual({ success: true, data: filters.data.tags });
    }
  });

  it('a project without runs answers zeros and empty lists, not errors', async () => {
    const other = await admin.tenant('viewer');
    const api = testApi(other.token);
    const dash = (await api.get(`/${other.projectId}/dashboard`)).body.data;
    expect(dash.runCounts).toEqual({ total: 0, passed: 0, failed: 0, interrupted: 0, incomplete: 0, running: 0 });
    expect(dash.passRateTrend).toHaveLength(30);
    expect(dash.passRateTrend[29]).toEqual({
      date: dateOf(today),
      runs: 0,
      executions: 0,
      passed: 0,
      failed: 0,
      flaky: 0,
      skipped: 0,
      passRate: 0,
      failureRate: 0,
      flakyRate: 0,
      avgDuration: 0,
    });
    expect((await api.get(`/${other.projectId}/filters`)).body.data).toEqual({ environments: [], branches: [], developers: [], tags: [] });
    expect((await api.get(`/${other.projectId}/test-case-explorer`)).body.pagination.total).toBe(0);
    expect((await api.get(`/${other.projectId}/analytics/test-cases/performance`)).body.data).toEqual([]);
    // Another tenant's project stays invisible.
    expect((await api.get(`/${pid}/dashboard`)).status).toBe(404);
  });
});

const dateToDay = (date: string) => Math.floor(Date.parse(`${date}T00:00:00Z`) / DAY);
