/**
 * The `reports` family's handlers (handlers/reports.ts: CreateReport, GetReport) through the in-memory transport on
 * a schema of their own: the contract's limits (days, filters, tags), the period fixed at request time from the
 * clock, the file name from the project's name, retention, the status enum, the wake-up of the generator, and
 * what is not found.
 */
import { ReportStatus } from '@assay/proto/assay/reports/v1/reports_pb';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { as, principal } from '@assay/testkit';
import { failReport } from '../../src/store/reports';
import { PROJECT, refused, reportsUnit, START, type ReportsUnit } from './fixture';

let u: ReportsUnit;
const viewer = as(principal('viewer'));

beforeAll(async () => {
  u = await reportsUnit('reports_handlers');
});
afterAll(() => u.db.drop());

const create = (over: Record<string, unknown> = {}) => u.client.createReport({ projectId: PROJECT, ...over }, viewer);

describe('reports handlers', () => {
  it('records a pending report for the period ending today (7 days by default) and wakes the generator', async () => {
    const wakes = u.wakes;
    const { report } = await create();
    expect(report).toMatchObject({
      projectId: PROJECT,
      status: ReportStatus.PENDING,
      days: 7,
      fromDate: '2026-03-04',
      untilDate: '2026-03-10',
      sizeBytes: 0n,
      failureReason: '',
      fileName: 'assay-web-shop-eu-2026-03-04_2026-03-10.pdf',
      filters: { branch: '', environment: '', tags: [] },
      createdAt: timestampFromDate(START),
      // REPORT_RETENTION_DAYS (30) after the request.
      expiresAt: timestampFromDate(new Date('2026-04-09T12:00:00.000Z')),
    });
    expect(report!.completedAt).toBeUndefined();
    expect(u.wakes).toBe(wakes + 1);
    expect((await u.client.getReport({ projectId: PROJECT, reportId: report!.id }, viewer)).report).toEqual(report);
  });

  it('normalizes the filters: trimmed, tags de-duplicated and without empty ones', async () => {
    const { report } = await create({ days: 90, filters: { branch: ' main ', environment: 'staging', tags: ['@a', ' @a', '', '@b'] } });
    expect(report).toMatchObject({
      days: 90,
      fromDate: '2025-12-11',
      filters: { branch: 'main', environment: 'staging', tags: ['@a', '@b'] },
    });
  });

  it.each([
    ['91 days', { days: 91 }, 'body.days'],
    ['negative days', { days: -3 }, 'body.days'],
    ['a branch over 200 characters', { filters: { branch: 'b'.repeat(201) } }, 'body.branch'],
    ['an environment over 200 characters', { filters: { environment: 'e'.repeat(201) } }, 'body.environment'],
    ['21 tags', { filters: { tags: Array.from({ length: 21 }, (_, i) => `t${i}`) } }, 'body.tags'],
    ['a tag over 200 characters', { filters: { tags: ['t'.repeat(201)] } }, 'body.tags'],
  ])('refuses %s with VALIDATION_ERROR at its path', async (_label, over, path) => {
    const e = await refused(create(over));
    expect([e.reason, e.details?.map((d) => d.path)]).toEqual(['VALIDATION_ERROR', [path]]);
  });

  it("answers the identity service's NOT_FOUND for a project it does not know, recording nothing", async () => {
    const wakes = u.wakes;
    expect((await refused(u.client.createReport({ projectId: 'q'.repeat(24) }, viewer))).reason).toBe('NOT_FOUND');
    expect(u.wakes).toBe(wakes);
  });

  it('needs a caller principal', async () => {
    expect((await refused(u.client.createReport({ projectId: PROJECT }))).reason).toBe('UNAUTHORIZED');
  });

  it("a failed report carries its reason; another project's report, an unknown id and a malformed one are not found", async () => {
    const { report } = await create();
    await u.db.pool.query('UPDATE reports SET attempts = 1 WHERE id = $1', [report!.id]);
    expect(await failReport(u.db.pool, report!.id, 1, 'Rendering the PDF failed (internal error)', START)).toBe(true);
    expect((await u.client.getReport({ projectId: PROJECT, reportId: report!.id }, viewer)).report).toMatchObject({
      status: ReportStatus.FAILED,
      failureReason: 'Rendering the PDF failed (internal error)',
      completedAt: timestampFromDate(START),
    });
    for (const [projectId, reportId] of [
      ['o'.repeat(24), report!.id],
      [PROJECT, 'f'.repeat(24)],
      [PROJECT, 'not-an-id'],
    ])
      expect((await refused(u.client.getReport({ projectId, reportId }, viewer))).reason).toBe('NOT_FOUND');
  });
});
