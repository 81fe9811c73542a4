/**
 * Reports at scale: generation of a 90-day PDF report for a project of 1,000,000 test results (target: under
 * 5 s). The project is the analytics benchmark's (bench/src/analytics.ts: 1,000 runs × 1,000 tests over 90 days,
 * its generator reused here), ingested THROUGH THE REAL INGESTION and folded by the analytics consumer; then
 * the reports service renders the report from the real analytics and runs RPCs.
 *
 * The public API caps `days` at 30, so the 90-day report is asked of the reports service directly:
 *   - synchronous: its internal HTTP endpoint `GET /reports/{projectId}/pdf?days=90` (what the gateway's
 *     `GET /reports/pdf` streams), timed to the last byte;
 *   - asynchronous: `ReportsService.CreateReport` (days 90), then `GetReport` until ready (queue, generation,
 *     storage).
 * Prints each figure, the median and the worst, and whether the worst is under 5 s.
 *
 *   make bench BENCH=reports   (BENCH_RUNS=N, BENCH_TESTS=M to change the size; default 1000 × 1000)
 */
import { createRpcClient, encodePrincipal, PRINCIPAL_HEADER, type Principal } from '@assay/service-kit';
import { AnalyticsAdminService } from '@assay/proto/assay/analytics/v1/analytics_pb';
import { ReportStatus, ReportsService } from '@assay/proto/assay/reports/v1/reports_pb';
import { Admin, Api } from '@assay/testkit';
import { report, testDefs } from './analytics';
import { benchSystem, percentile } from './lib';
import { mib, rssOf, withPeaks } from './memory';
import { addFigure } from './summary';

const DAY = 86_400_000;
const TARGET_MS = 5000;
const sec = (t0: bigint) => Number(process.hrtime.bigint() - t0) / 1e9;

export async function run(): Promise<void> {
  const runs = Number(process.env.BENCH_RUNS ?? 1000);
  const perRun = Number(process.env.BENCH_TESTS ?? 1000);
  const bench = await benchSystem({
    gateway: { RATE_LIMITS: 'reads=1000000,writes=1000000,ip=1000000,ingest=1000000,pdf=1000000', REQUEST_TIMEOUT_MS: '120000' },
    runs: { DEFAULT_TEST_RESULTS_PER_MONTH: '1000000000' },
  });
  try {
    const sys = bench.system;
    const admin = new Admin(sys.adminUrl, sys.internalToken);
    const t = await admin.tenant('owner');
    const principal: Principal = {
      tokenId: t.tokenId,
      tokenType: 'pat',
      userId: t.userId,
      userName: t.name,
      userEmail: t.email,
      orgId: t.orgId,
      role: 'owner',
    };
    const ingestApi = new Api(sys.gatewayUrl, (await admin.apiKey(t.projectId)).token);
    const analyticsAdmin = createRpcClient(AnalyticsAdminService, {
      baseUrl: `http://127.0.0.1:${sys.ports.services.analytics!.rpcPort}`,
      internalToken: sys.internalToken,
      timeoutMs: 60000,
    });
    // The reports service answers the gateway alone (least privilege between services): the bench calls it as the gateway.
    const asGateway = sys.credentials.gateway!;
    const reports = createRpcClient(ReportsService, {
      baseUrl: `http://127.0.0.1:${sys.ports.services.reports!.rpcPort}`,
      internalToken: asGateway,
      timeoutMs: 60000,
    });

    // ---- the analytics benchmark's project, through the real ingestion
    const defs = testDefs(perRun);
    const now = Date.now();
    const branches = ['main', 'main', 'main', 'release', 'feature/a', 'feature/b', 'feature/c'];
    console.log(
      `generating ${runs} runs × ${perRun} tests = ${(runs * perRun).toLocaleString('en')} results over 90 days, through the gateway`,
    );
    let next = 0;
    const t0 = process.hrtime.bigint();
    await Promise.all(
      Array.from({ length: 3 }, async () => {
        for (;;) {
          const i = next++;
          if (i >= runs) return;
          const startMs = now - 89.9 * DAY + (i / runs) * 89.8 * DAY;
          const body = {
            ...report(defs, startMs, 1000 + i),
            metadata: {
              git: { branch: branches[i % branches.length], commit: { hash: `h${i}`, message: `commit ${i}`, author: 'Ada' } },
              environment: i % 3 === 0 ? 'production' : 'staging',
              tags: i % 10 === 0 ? ['nightly'] : [],
            },
          };
          const res = await ingestApi.request('POST', `/api/v1/ingest/${t.projectId}/playwright`, {
            rawBody: JSON.stringify(body),
            headers: { 'content-type': 'application/json' },
          });
          if (res.status !== 201) throw new Error(`ingestion failed: ${res.status} ${res.text.slice(0, 300)}`);
          if ((i + 1) % 100 === 0) console.log(`  ${i + 1} runs uploaded (${sec(t0).toFixed(0)} s)`);
        }
      }),
    );
    for (;;) {
      const st = await analyticsAdmin.getReadModelStatus({ projectId: t.projectId });
      if (Number(st.runs) >= runs) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    console.log(`project ready: ${runs} runs ingested and folded in ${sec(t0).toFixed(0)} s`);

    // ---- synchronous: the reports service's internal endpoint, 90 days
    const headers = { authorization: `Bearer ${asGateway}`, [PRINCIPAL_HEADER]: encodePrincipal(principal) };
    const httpBase = `http://127.0.0.1:${sys.ports.services.reports!.httpPort}/reports/${t.projectId}/pdf`;
    const sync = async (query: string) => {
      const t1 = process.hrtime.bigint();
      const res = await fetch(`${httpBase}?${query}`, { headers });
      const body = Buffer.from(await res.arrayBuffer());
      const ms = sec(t1) * 1000;
      if (res.status !== 200) throw new Error(`report failed: ${res.status} ${body.toString().slice(0, 300)}`);
      return { ms, bytes: body.length, pages: (body.toString('latin1').match(/\/Type \/Page\b/g) ?? []).length };
    };
    await sync('days=90'); // warm-up: connections, font files
    const reportsPid = sys.processes.get('reports')!.child.pid!;
    // Settled as between requests (service-kit memory.ts gives idle memory back after a few seconds).
    await new Promise((r) => setTimeout(r, 12_000));
    const idleBefore = rssOf(reportsPid);
    const syncMs: number[] = [];
    const { peaks: syncPeak } = await withPeaks({ reports: reportsPid }, async () => {
      for (let i = 0; i < 5; i++) {
        const r = await sync('days=90');
        syncMs.push(r.ms);
        console.log(
          `GET /reports/{projectId}/pdf?days=90 (sync): ${r.ms.toFixed(0)} ms, ${(r.bytes / 1024).toFixed(0)} KiB, ${r.pages} pages`,
        );
      }
    });
    const filtered = await sync('days=90&branch=main&environment=staging');
    console.log(`GET /reports/{projectId}/pdf?days=90&branch=main&environment=staging (sync): ${filtered.ms.toFixed(0)} ms`);

    // ---- asynchronous: CreateReport (90 days) → ready
    const asyncMs: number[] = [];
    const opts = { headers: { [PRINCIPAL_HEADER]: encodePrincipal(principal) } };
    // The worker renders outside any request: no stream-buffer watcher (service-kit memory.ts) runs for it.
    const { peaks: asyncPeak } = await withPeaks({ reports: reportsPid }, async () => {
      for (let i = 0; i < 3; i++) {
        const t2 = process.hrtime.bigint();
        const created = (await reports.createReport({ projectId: t.projectId, days: 90 }, opts)).report!;
        let status = created.status;
        let size = 0n;
        while (status === ReportStatus.PENDING) {
          await new Promise((r) => setTimeout(r, 20));
          const got = (await reports.getReport({ projectId: t.projectId, reportId: created.id }, opts)).report!;
          status = got.status;
          size = got.sizeBytes;
        }
        const ms = sec(t2) * 1000;
        if (status !== ReportStatus.READY) throw new Error(`report ${created.id} ${ReportStatus[status]}`);
        asyncMs.push(ms);
        console.log(`CreateReport days=90 → ready (async): ${ms.toFixed(0)} ms, ${(Number(size) / 1024).toFixed(0)} KiB stored`);
      }
    });
    await new Promise((r) => setTimeout(r, 12_000));
    const idleAfter = rssOf(reportsPid);
    console.log(
      `reports RSS: idle ${mib(idleBefore)}; peak rendering sync ${mib(syncPeak.reports)}, async ${mib(asyncPeak.reports)}; idle after ${mib(idleAfter)}`,
    );
    addFigure({
      bench: 'reports',
      figure: 'reports: peak RSS rendering 90-day PDFs, sync / async (idle after)',
      assay: `${mib(syncPeak.reports)} / ${mib(asyncPeak.reports)} (${mib(idleAfter)})`,
      goal: 'idle ≤ 120 MB',
      met: idleAfter <= 120e6,
    });

    const all = [...syncMs, ...asyncMs].sort((a, b) => a - b);
    syncMs.sort((a, b) => a - b);
    const worst = all[all.length - 1]!;
    console.log(
      `90-day report of ${(runs * perRun).toLocaleString('en')} results: sync median ${percentile(syncMs, 50).toFixed(0)} ms, ` +
        `worst of sync and async ${worst.toFixed(0)} ms — ${worst < TARGET_MS ? 'under' : 'OVER'} the ${TARGET_MS / 1000} s target`,
    );
    addFigure({
      bench: 'reports',
      figure: `90-day PDF of ${(runs * perRun).toLocaleString('en')} results: median sync (worst of all)`,
      assay: `${percentile(syncMs, 50).toFixed(0)} ms (${worst.toFixed(0)} ms)`,
      goal: `< ${TARGET_MS / 1000} s`,
      met: worst < TARGET_MS,
    });
  } finally {
    await bench.close();
  }
}
