/**
 * The link between automated and manual testing through the real services: a Playwright test annotated with a
 * manual case number (`TC-1`) is ingested; the runs service links it to that case through the manual-testing
 * service's LinkAutomatedTest RPC, and the case then lists the test in `linkedTests` (`source: auto_created`).
 */
import { testAdmin, testApi, type Tenant } from '@assay/testkit';
import { realPlaywrightReport, type RealReport } from './support/playwright';

jest.setTimeout(120000);
const admin = testAdmin();

async function eventually<T>(read: () => Promise<T>, ok: (v: T) => boolean, what: string, timeoutMs = 30000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; last value: ${JSON.stringify(v).slice(0, 1000)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('runs → manual testing: tests annotated with a case number are linked to the case', () => {
  let t: Tenant;
  let report: RealReport;

  beforeAll(async () => {
    [t, report] = await Promise.all([admin.tenant('member'), realPlaywrightReport()]);
  });

  it('links the annotated test to TC-1 (auto_created), once, and leaves other cases alone', async () => {
    const api = testApi(t.token);
    expect((await api.post(`/${t.projectId}/manual-test-suites`, { name: 'Checkout' })).status).toBe(201);
    const tc1 = await api.post(`/${t.projectId}/manual-test-cases`, { title: 'Pay with a card', suiteName: 'Checkout' });
    const tc2 = await api.post(`/${t.projectId}/manual-test-cases`, { title: 'Pay with a voucher', suiteName: 'Checkout' });
    expect([tc1.body.data.caseId, tc2.body.data.caseId]).toEqual(['TC-1', 'TC-2']);

    const ingest = () =>
      api.request('POST', `/api/v1/ingest/${t.projectId}/playwright`, {
        rawBody: JSON.stringify({ ...report.json, metadata: { git: { branch: 'main' }, environment: 'ci' } }),
        headers: { 'content-type': 'application/json' },
      });
    const first = await ingest();
    expect(first.status).toBe(201);

    // The run lists the annotated test (a top-level test of its file, so its full title is its own title).
    const cases = (await api.get(`/${t.projectId}/test-runs/${first.body.data.runId}/test-cases?limit=100`)).body.data;
    const annotated = cases.filter((c: any) => c.fullTitle === 'passes with steps and an attachment');
    expect(annotated).toHaveLength(1);
    const linked = await eventually(
      async () => (await api.get(`/${t.projectId}/manual-test-cases/TC-1`)).body.data.linkedTests,
      (l: any[]) => l.length > 0,
      'TC-1 to list its linked automated test',
    );
    expect(linked).toEqual([
      {
        _id: expect.any(String),
        fullTitle: annotated[0].fullTitle,
        displayTitle: null,
        linkedAt: expect.any(String),
        source: 'auto_created',
      },
    ]);

    // A second run of the same test keeps one link (idempotent per case and test); TC-2 has none.
    expect((await ingest()).status).toBe(201);
    await new Promise((r) => setTimeout(r, 1500));
    expect((await api.get(`/${t.projectId}/manual-test-cases/TC-1`)).body.data.linkedTests).toHaveLength(1);
    expect((await api.get(`/${t.projectId}/manual-test-cases/TC-2`)).body.data.linkedTests).toEqual([]);
  });
});
