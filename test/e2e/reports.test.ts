/**
 * PDF reports end to end, on REAL data: real Playwright reports (produced by @playwright/test on the fixture
 * project) are ingested through the gateway, the analytics service folds them, and the reports service renders
 * them. The PDFs are read back with a PDF library (PDF.js) and must show the figures computed here,
 * independently, from the Playwright reports themselves: run counts, the pass rate, the names of the failing
 * and flaky tests; the fonts are embedded and the text is extractable. Also: 202 → pending → ready,
 * `sizeBytes` = the download's length, the attachment file name, 404 for another project's report, filters,
 * validation, and who may generate. The PDF rate limit is in reports-rate-limit.test.ts.
 */
import { testAdmin, testApi, testSystem, waitUntil, type Tenant } from '@assay/testkit';
import { realPlaywrightReport, statsFromReport, type RealReport } from './support/playwright';
import { fontDescriptors, inspectPdf, type InspectedPdf } from './support/pdf';

jest.setTimeout(180000);
const admin = testAdmin();
const ID = /^[0-9a-f]{24}$/;
const DAY_MS = 86_400_000;

const ingest = (token: string, projectId: string, body: unknown) =>
  testApi(token).request('POST', `/api/v1/ingest/${projectId}/playwright`, {
    rawBody: JSON.stringify(body),
    headers: { 'content-type': 'application/json' },
  });

/** A GET whose answer may be binary (the Api helper decodes text). */
async function fetchBinary(token: string, path: string) {
  const res = await fetch(`${testSystem().gatewayUrl}/api/v1/public${path}`, { headers: { authorization: `Bearer ${token}` } });
  const body = Buffer.from(await res.arrayBuffer());
  const json = (res.headers.get('content-type') ?? '').includes('json') ? JSON.parse(body.toString()) : undefined;
  return { status: res.status, headers: res.headers, body, json };
}

const isoDay = (d: Date) => d.toISOString().slice(0, 10);
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const longDay = (iso: string) => {
  const [y, m, d] = iso.split('-').map(Number);
  return `${d} ${MONTHS[m! - 1]} ${y}`;
};

/** Every test of a Playwright JSON report with its title and outcome. */
function testsOf(json: any): { title: string; status: string }[] {
  const out: { title: string; status: string }[] = [];
  const walk = (s: any) => {
    for (const spec of s.specs ?? []) for (const t of spec.tests) out.push({ title: spec.title, status: t.status });
    for (const c of s.suites ?? []) walk(c);
  };
  for (const s of json.suites) walk(s);
  return out;
}

/** The PDF text with its line breaks folded to spaces (a wrapped sentence reads as one). */
const flat = (pdf: InspectedPdf) => pdf.all.replace(/\s+/g, ' ');

describe('PDF reports of real ingested Playwright runs', () => {
  let t: Tenant;
  let report: RealReport;
  let one: ReturnType<typeof statsFromReport>;
  const project = `Checkout ${Math.random().toString(16).slice(2, 8)}`;
  // Three uploads of the real report: main on staging and on production today, feature/login on staging yesterday.
  const uploads = [
    { branch: 'main', environment: 'staging', daysAgo: 0 },
    { branch: 'main', environment: 'production', daysAgo: 0 },
    { branch: 'feature/login', environment: 'staging', daysAgo: 1 },
  ];

  beforeAll(async () => {
    const orgId = await admin.org();
    const projectId = await admin.project(orgId, project);
    const m = await admin.member(orgId, 'owner', { projects: [projectId] });
    t = { orgId, projectId, ...m };
    report = await realPlaywrightReport();
    one = statsFromReport(report.json);
    const key = (await admin.apiKey(t.projectId)).token;
    for (const u of uploads) {
      const start = new Date(new Date(report.json.stats.startTime).getTime() - u.daysAgo * DAY_MS);
      const res = await ingest(key, t.projectId, {
        ...report.json,
        stats: { ...report.json.stats, startTime: start.toISOString() },
        metadata: {
          git: { branch: u.branch, commit: { hash: 'abc123def4', message: 'Checkout', author: 'Ada' } },
          environment: u.environment,
        },
      });
      expect(res.status).toBe(201);
    }
    // Analytics folds finished runs shortly after their RUN_FINISHED event: wait until a report counts all three.
    await waitUntil(
      async () => {
        const res = await fetchBinary(t.token, `/${t.projectId}/reports/pdf?days=7`);
        return res.status === 200 && flat(await inspectPdf(res.body)).includes(`${uploads.length} runs in this period`);
      },
      90000,
      () => 'analytics never folded the three ingested runs',
      1000,
    );
  });

  let reportId: string;
  let pdf: Buffer;
  let read: InspectedPdf;

  it('POST /reports answers 202 with the report pending, which becomes ready', async () => {
    const res = await testApi(t.token).post(`/${t.projectId}/reports`, { days: 7 });
    expect(res.status).toBe(202);
    const today = isoDay(new Date());
    const from = isoDay(new Date(Date.now() - 6 * DAY_MS));
    expect(res.body).toEqual({
      success: true,
      data: {
        reportId: expect.stringMatching(ID),
        status: 'pending',
        createdAt: expect.any(String),
        completedAt: null,
        sizeBytes: 0,
        fileName: `assay-${project.toLowerCase().replace(' ', '-')}-${from}_${today}.pdf`,
        failureReason: null,
        period: { days: 7, from, until: today },
        filters: { branch: null, environment: null, tags: [] },
        expiresAt: expect.any(String),
      },
    });
    reportId = res.body.data.reportId;
    let status: any;
    await waitUntil(
      async () => {
        status = (await testApi(t.token).get(`/${t.projectId}/reports/${reportId}`)).body.data;
        return status.status !== 'pending';
      },
      60000,
      () => `report still pending: ${JSON.stringify(status)}`,
    );
    expect(status).toEqual({ ...res.body.data, status: 'ready', completedAt: expect.any(String), sizeBytes: expect.any(Number) });
    expect(status.sizeBytes).toBeGreaterThan(1000);
    // Retention: REPORT_RETENTION_DAYS (30) after the request.
    expect(new Date(status.expiresAt).getTime() - new Date(status.createdAt).getTime()).toBe(30 * DAY_MS);
  });

  it('downloads it as an application/pdf attachment whose length is sizeBytes', async () => {
    const status = (await testApi(t.token).get(`/${t.projectId}/reports/${reportId}`)).body.data;
    const res = await fetchBinary(t.token, `/${t.projectId}/reports/${reportId}/download`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    // An ASCII file name needs no RFC 5987 `filename*` (the content-disposition library adds it for others).
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="${status.fileName}"`);
    expect(res.body.length).toBe(status.sizeBytes);
    expect(Number(res.headers.get('content-length'))).toBe(status.sizeBytes);
    expect(res.body.subarray(0, 5).toString()).toBe('%PDF-');
    pdf = res.body;
    read = await inspectPdf(pdf);
  });

  it('puts the project and the period on the cover', () => {
    const cover = read.text[0]!.replace(/\s+/g, ' ');
    expect(cover).toContain(project);
    expect(cover).toContain(`${longDay(isoDay(new Date(Date.now() - 6 * DAY_MS)))} – ${longDay(isoDay(new Date()))}`);
    expect(cover).toContain('7 days (UTC) · All branches, environments and tags');
    expect(read.info.Title).toBe(`Test report: ${project}, ${isoDay(new Date(Date.now() - 6 * DAY_MS))} to ${isoDay(new Date())}`);
  });

  it('shows the run counts and the pass rate computed from the Playwright reports', () => {
    const n = uploads.length;
    const passed = one.passed * n;
    const failed = one.failed * n;
    const flaky = one.flaky * n;
    const skipped = one.skipped * n;
    const results = one.total * n;
    const passRate = ((passed / (results - skipped)) * 100).toFixed(2);
    // Every upload has a failed test, so every run failed.
    expect(flat(read)).toContain(
      `${n} runs in this period: 0 passed, ${n} failed, 0 interrupted, 0 incomplete. ${results} test results of ${one.total} tests: ` +
        `${passed} passed, ${failed} failed, ${flaky} flaky, ${skipped} skipped; pass rate ${passRate}%.`,
    );
    // The headline tile, and the run table newest first: #2 and #1 started today (same time: higher counter
    // first), #3 yesterday.
    expect(read.text[0]).toContain(`PASS RATE\n\n${passRate}%`);
    expect(flat(read)).toMatch(
      /#2 \d+ \w+ \d\d:\d\d failed main abc123def4 production .*#1 .* staging .*#3 .* failed feature\/login abc123def4 staging/,
    );
  });

  it('names the failing and the flaky tests with their counts', () => {
    const tests = testsOf(report.json);
    const failing = tests.filter((x) => x.status === 'unexpected').map((x) => x.title);
    const flakyTests = tests.filter((x) => x.status === 'flaky').map((x) => x.title);
    expect(failing.length).toBeGreaterThan(0);
    expect(flakyTests.length).toBeGreaterThan(0);
    const text = flat(read);
    const failingSection = text.slice(text.indexOf('Failing tests'), text.indexOf('Flaky tests'));
    for (const title of failing)
      expect(failingSection).toMatch(new RegExp(`${title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} .*? ${uploads.length} `));
    const flakySection = text.slice(text.indexOf('Flaky tests'), text.indexOf('Slowest tests'));
    for (const title of flakyTests) expect(flakySection).toContain(title);
    // Tests that never failed are not in the failing list.
    for (const x of tests.filter((y) => y.status === 'expected')) expect(failingSection).not.toContain(x.title);
  });

  it('has the trend by day, the slowest tests and the breakdowns by environment and branch', () => {
    const text = flat(read);
    for (const heading of ['Pass rate by day', 'Test results by day', 'Runs', 'Slowest tests', 'By environment', 'By branch'])
      expect(text).toContain(heading);
    const env = text.slice(text.indexOf('By environment'), text.indexOf('By branch'));
    expect(env).toMatch(/staging 2 /);
    expect(env).toMatch(/production 1 /);
    const branch = text.slice(text.indexOf('By branch'));
    expect(branch).toMatch(/main 2 /);
    expect(branch).toMatch(/feature\/login 1 /);
  });

  it('embeds its fonts (font objects with a font program) and its text is extractable', () => {
    expect(read.fonts.length).toBeGreaterThan(0);
    for (const f of read.fonts)
      expect(f).toEqual(expect.objectContaining({ embedded: true, name: expect.stringMatching(/^[A-Z]{6}\+DejaVuSans/) }));
    const descriptors = fontDescriptors(pdf);
    expect(descriptors.length).toBeGreaterThanOrEqual(2);
    for (const d of descriptors) expect(d).toEqual({ fontName: expect.stringMatching(/^[A-Z]{6}\+DejaVuSans/), embedded: true });
    // Text a viewer can select and search: the page footers.
    expect(read.all).toContain(`Page 1 of ${read.pages}`);
  });

  it('GET /reports/pdf answers the same report synchronously, and filters by branch and environment', async () => {
    const all = await fetchBinary(t.token, `/${t.projectId}/reports/pdf`);
    expect(all.status).toBe(200);
    expect(all.headers.get('content-type')).toBe('application/pdf');
    expect(all.headers.get('content-disposition')).toMatch(
      /^attachment; filename="assay-checkout-[0-9a-f]+-\d{4}-\d{2}-\d{2}_\d{4}-\d{2}-\d{2}\.pdf"/,
    );
    expect(Number(all.headers.get('content-length'))).toBe(all.body.length);
    expect(flat(await inspectPdf(all.body))).toContain(`${uploads.length} runs in this period`);

    const feature = await fetchBinary(t.token, `/${t.projectId}/reports/pdf?days=3&branch=feature%2Flogin`);
    expect(feature.status).toBe(200);
    const text = flat(await inspectPdf(feature.body));
    expect(text).toContain('3 days (UTC) · Branch: feature/login');
    expect(text).toContain(`1 run in this period: 0 passed, 1 failed`);
    expect(text).toContain(`${one.total} test results of ${one.total} tests`);

    const production = flat(await inspectPdf((await fetchBinary(t.token, `/${t.projectId}/reports/pdf?environment=production`)).body));
    expect(production).toContain('1 run in this period');
    const nothing = flat(await inspectPdf((await fetchBinary(t.token, `/${t.projectId}/reports/pdf?days=1&branch=none-such`)).body));
    expect(nothing).toContain('0 runs in this period');
    expect(nothing).toContain('No test failed in this period.');
  });

  it('filters an asynchronous report by branch, environment and tags (array or comma-separated)', async () => {
    const res = await testApi(t.token).post(`/${t.projectId}/reports`, {
      days: 2,
      branch: 'main',
      environment: 'staging',
      tags: 'nightly, smoke',
    });
    expect(res.status).toBe(202);
    expect(res.body.data.filters).toEqual({ branch: 'main', environment: 'staging', tags: ['nightly', 'smoke'] });
    expect(res.body.data.period.days).toBe(2);
  });

  it('answers 404 for another project’s report, an unknown id and a malformed id', async () => {
    const other = await admin.tenant('owner');
    for (const path of [`/${other.projectId}/reports/${reportId}`, `/${other.projectId}/reports/${reportId}/download`]) {
      const res = await fetchBinary(other.token, path);
      expect([path, res.status, res.json?.error?.code]).toEqual([path, 404, 'NOT_FOUND']);
    }
    for (const id of ['0'.repeat(24), 'not-an-id', '..']) {
      expect((await fetchBinary(t.token, `/${t.projectId}/reports/${id}`)).status).toBe(404);
      expect((await fetchBinary(t.token, `/${t.projectId}/reports/${id}/download`)).status).toBe(404);
    }
    // The other project's token does not cover this project at all.
    expect((await fetchBinary(other.token, `/${t.projectId}/reports/${reportId}`)).status).toBe(404);
  });

  it('validates the parameters: days 1–30, known body properties only, filter lengths', async () => {
    const api = testApi(t.token);
    for (const body of [{ days: 0 }, { days: 31 }, { days: 7.5 }, { unknown: 1 }, { branch: '' }, { tags: Array(21).fill('x') }]) {
      const res = await api.post(`/${t.projectId}/reports`, body);
      expect([body, res.status, res.body.error.code]).toEqual([body, 400, 'VALIDATION_ERROR']);
    }
    for (const q of ['days=0', 'days=31', 'days=abc', `branch=${'b'.repeat(201)}`]) {
      const res = await api.get(`/${t.projectId}/reports/pdf?${q}`);
      expect([q, res.status, res.body.error.code]).toEqual([q, 400, 'VALIDATION_ERROR']);
    }
    // A body is required (as the API document says); `{}` means every default.
    const none = await api.request('POST', `/${t.projectId}/reports`);
    expect([none.status, none.body.error.code]).toEqual([400, 'VALIDATION_ERROR']);
    const empty = await api.post(`/${t.projectId}/reports`, {});
    expect(empty.status).toBe(202);
    expect(empty.body.data.period.days).toBe(7);
  });

  it('lets every reader generate and download reports: a viewer and the project api key', async () => {
    const viewer = await admin.member(t.orgId, 'viewer', { projects: [t.projectId] });
    const key = (await admin.apiKey(t.projectId)).token;
    for (const token of [viewer.token, key]) {
      const created = await testApi(token).post(`/${t.projectId}/reports`, { days: 1 });
      expect(created.status).toBe(202);
      expect((await fetchBinary(token, `/${t.projectId}/reports/${reportId}/download`)).status).toBe(200);
    }
  });
});
