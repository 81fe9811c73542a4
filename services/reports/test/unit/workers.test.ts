/**
 * The reports workers on the kit's Loop, with in-memory sources and a clock the test moves: the generator wakes
 * at once when a report is requested (not at its next poll), stores the PDF under the requester's principal,
 * retries a transient failure after REPORT_RETRY_DELAY_SECONDS until REPORT_MAX_ATTEMPTS, fails a permanent one
 * at once, fails a report whose last lease ran out; the retention sweeper deletes expired reports at start.
 */
import { Code, ConnectError } from '@connectrpc/connect';
import { ReportStatus } from '@assay/proto/assay/reports/v1/reports_pb';
import { as, principal, waitUntil } from '@assay/testkit';
import { findReport, readPdfChunk } from '../../src/store/reports';
import { abandonedReason, Generator } from '../../src/workers/generator';
import { retentionSweeper } from '../../src/workers/sweeper';
import { PROJECT, reportsUnit, START, type ReportsUnit } from './fixture';

let u: ReportsUnit;
const requester = principal('member');
const DAY_MS = 86_400_000;

beforeAll(async () => {
  // An idle generator would look again only after a minute: only a wake-up can make a report ready in time.
  u = await reportsUnit('reports_workers', {
    REPORT_POLL_INTERVAL_MS: '60000',
    REPORT_MAX_ATTEMPTS: '2',
    REPORT_RETRY_DELAY_SECONDS: '10',
  });
});
afterAll(() => u.db.drop());
beforeEach(() => {
  u.setNow(START);
  u.analytics.getReportData = async () => ({});
  u.callers.length = 0;
});

const request = async () => (await u.client.createReport({ projectId: PROJECT, days: 3 }, as(requester))).report!;
const row = (id: string) => findReport(u.db.pool, PROJECT, id);

describe('report generator (kit Loops)', () => {
  it('is woken by a request and stores the PDF, generated under the requester', async () => {
    const generator = new Generator(u.w);
    u.w.onWake(() => generator.wake());
    await generator.start();
    try {
      const report = await request();
      await waitUntil(
        async () => (await row(report.id))?.status === 'ready',
        10000,
        () => 'the report never became ready',
      );
      const ready = (await u.client.getReport({ projectId: PROJECT, reportId: report.id }, as(requester))).report!;
      expect(ready.status).toBe(ReportStatus.READY);
      expect(ready.sizeBytes).toBeGreaterThan(1000n);
      expect((await readPdfChunk(u.db.pool, report.id, 0, 5)).toString()).toBe('%PDF-');
      expect(u.callers).toEqual([requester]);
    } finally {
      await generator.stop();
    }
  });

  it('retries a transient failure after the delay, then fails it with the reason after REPORT_MAX_ATTEMPTS', async () => {
    u.analytics.getReportData = async () => {
      throw new ConnectError('busy', Code.Unavailable);
    };
    const generator = new Generator(u.w);
    const report = await request();
    expect(await generator.tick()).toBe(true);
    expect(await row(report.id)).toMatchObject({ status: 'pending', attempts: 1, failureReason: expect.stringMatching(/^Could not get/) });
    // Not due again before REPORT_RETRY_DELAY_SECONDS.
    expect(await generator.tick()).toBe(false);
    u.setNow(new Date(START.getTime() + 10_000));
    expect(await generator.tick()).toBe(true);
    expect(await row(report.id)).toMatchObject({
      status: 'failed',
      attempts: 2,
      failureReason: expect.stringMatching(/^Could not get the report figures from the analytics service: .* \(after 2 attempts\)$/),
    });
  });

  it('fails a permanent failure (the project is gone) at the first attempt', async () => {
    u.analytics.getReportData = async () => {
      throw new ConnectError('unknown project', Code.NotFound);
    };
    const report = await request();
    await new Generator(u.w).tick();
    expect(await row(report.id)).toMatchObject({ status: 'failed', attempts: 1, failureReason: expect.not.stringMatching(/after/) });
  });

  it('fails a report whose last attempt ran out of its lease ("did not finish")', async () => {
    const report = await request();
    await u.db.pool.query(`UPDATE reports SET attempts = 2, lease_until = $2 WHERE id = $1`, [report.id, new Date(START.getTime() - 1)]);
    expect(await new Generator(u.w).tick()).toBe(true);
    expect(await row(report.id)).toMatchObject({ status: 'failed', failureReason: abandonedReason(2) });
  });
});

describe('retention sweeper (a kit Loop)', () => {
  it('deletes, at start, the reports whose retention is over, and keeps younger ones', async () => {
    const old = await request();
    u.setNow(new Date(START.getTime() + 20 * DAY_MS));
    const young = await request();
    // 31 days after the first request: only the first one is past REPORT_RETENTION_DAYS (30).
    u.setNow(new Date(START.getTime() + 31 * DAY_MS));
    const sweeper = retentionSweeper(u.w);
    await sweeper.start();
    try {
      await waitUntil(
        async () => (await row(old.id)) === undefined,
        10000,
        () => 'the expired report was never deleted',
      );
      expect(await row(young.id)).toBeDefined();
    } finally {
      await sweeper.stop();
    }
  });
});
