/**
 * The `reports` route family over `app.inject`. Request and status go to an in-memory reports service (what it is
 * asked, the report JSON with the status enum's spelling). The PDF routes stream from the reports service's
 * internal HTTP port: here a tiny local HTTP server stands in for that port (what the gateway sends it, what it
 * relays back: bytes, headers, error envelopes), and the harness's unreachable default shows the 503. The `pdf`
 * rate bucket (1 per minute here, as the spec's default) is counted on a gateway of its own.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { ReportStatus } from '@assay/proto/assay/reports/v1/reports_pb';
import { decodePrincipal, INTERNAL_AUTH_HEADER, PRINCIPAL_HEADER } from '@assay/service-kit';
import { SHARED_GATEWAY_RATE_LIMITS } from '@assay/testkit';
import { gatewayHarness, type Harness } from './harness';

const CREATED = '2026-03-10T08:00:00.000Z';
const report = (over: Record<string, unknown> = {}) => ({
  id: 'e'.repeat(24),
  projectId: 'p',
  status: ReportStatus.PENDING,
  createdAt: timestampFromDate(new Date(CREATED)),
  sizeBytes: 0n,
  failureReason: '',
  fileName: 'assay-web-shop-2026-03-04_2026-03-10.pdf',
  days: 7,
  fromDate: '2026-03-04',
  untilDate: '2026-03-10',
  filters: { branch: '', environment: '', tags: [] },
  expiresAt: timestampFromDate(new Date('2026-04-09T08:00:00.000Z')),
  ...over,
});

const reportsStub = {
  async createReport(req: { days: number; filters?: { branch: string; environment: string; tags: string[] } }) {
    return { report: report({ days: req.days, filters: req.filters }) };
  },
  async getReport(req: { reportId: string }) {
    return req.reportId === 'f'.repeat(24)
      ? {
          report: report({
            id: req.reportId,
            status: ReportStatus.FAILED,
            failureReason: 'Could not get the report figures from the analytics service: unavailable',
            completedAt: timestampFromDate(new Date('2026-03-10T08:01:00.000Z')),
          }),
        }
      : { report: report({ id: req.reportId, status: ReportStatus.READY, sizeBytes: 1234n }) };
  },
};

/** The stand-in for the reports service's internal HTTP port: records what it is asked, answers per path. */
interface PortCall {
  url: string;
  internalAuth: string | undefined;
  principal: ReturnType<typeof decodePrincipal>;
}
const portCalls: PortCall[] = [];
const PDF = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(70_000, 7), Buffer.from('\n%%EOF\n')]);
const port = http.createServer((req, res) => {
  const header = (name: string) => req.headers[name.toLowerCase()] as string | undefined;
  portCalls.push({
    url: req.url!,
    internalAuth: header(INTERNAL_AUTH_HEADER),
    principal: decodePrincipal(header(PRINCIPAL_HEADER) ?? null),
  });
  if (req.url!.endsWith(`/${'c'.repeat(24)}/download`)) {
    res.writeHead(409, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ success: false, error: { code: 'CONFLICT', message: 'The report is not ready yet (status pending)' } }));
    return;
  }
  res.writeHead(200, {
    'content-type': 'application/pdf',
    'content-length': String(PDF.length),
    'content-disposition': 'attachment; filename="assay-web-shop.pdf"',
    'cache-control': 'private, no-store',
    'x-internal-detail': 'not relayed',
  });
  res.end(PDF);
});

let h: Harness;
beforeAll(async () => {
  await new Promise<void>((resolve) => port.listen(0, '127.0.0.1', resolve));
  h = await gatewayHarness({ reports: reportsStub });
});
afterAll(async () => {
  await h.close();
  await new Promise((resolve) => port.close(resolve));
});
beforeEach(() => {
  h.calls.length = 0;
  portCalls.length = 0;
  // Each test starts against the stand-in port (the 503 test points elsewhere).
  h.app.services.reportsHttpUrl = `http://127.0.0.1:${(port.address() as AddressInfo).port}`;
});

const P = () => `/api/v1/public/${h.projectId}`;

describe('reports routes: request and status', () => {
  it('POST /reports: defaults (7 days, no filter) reach the service; 202 with the report pending', async () => {
    const res = await h.request({ method: 'POST', url: `${P()}/reports`, payload: {} });
    expect(res.statusCode).toBe(202);
    expect(h.calls).toEqual([
      {
        method: 'createReport',
        request: expect.objectContaining({
          projectId: h.projectId,
          days: 7,
          filters: expect.objectContaining({ branch: '', environment: '', tags: [] }),
        }),
        principal: h.caller('owner').principal,
      },
    ]);
    expect(res.json().data).toEqual({
      reportId: 'e'.repeat(24),
      status: 'pending',
      createdAt: CREATED,
      completedAt: null,
      sizeBytes: 0,
      fileName: 'assay-web-shop-2026-03-04_2026-03-10.pdf',
      failureReason: null,
      period: { days: 7, from: '2026-03-04', until: '2026-03-10' },
      filters: { branch: null, environment: null, tags: [] },
      expiresAt: '2026-04-09T08:00:00.000Z',
    });
  });

  it('POST /reports: filters and both forms of tags are forwarded; a viewer and an api key may request', async () => {
    const a = await h.request({
      as: 'viewer',
      method: 'POST',
      url: `${P()}/reports`,
      payload: { days: 30, branch: 'main', environment: 'staging', tags: '@smoke,nightly' },
    });
    expect(a.statusCode).toBe(202);
    expect(a.json().data.filters).toEqual({ branch: 'main', environment: 'staging', tags: ['@smoke', 'nightly'] });
    const b = await h.request({ as: 'api_key', method: 'POST', url: `${P()}/reports`, payload: { tags: ['@e2e'] } });
    expect(b.statusCode).toBe(202);
    expect(h.calls.map((c) => c.request)).toEqual([
      expect.objectContaining({ days: 30, filters: expect.objectContaining({ branch: 'main', tags: ['@smoke', 'nightly'] }) }),
      expect.objectContaining({ days: 7, filters: expect.objectContaining({ tags: ['@e2e'] }) }),
    ]);
  });

  it.each([
    ['days over 30', { days: 31 }, 'body.days'],
    ['days 0', { days: 0 }, 'body.days'],
    ['an unknown property', { format: 'pdf' }, 'body.format'],
    ['an empty branch', { branch: '' }, 'body.branch'],
    ['a branch over 200 characters', { branch: 'b'.repeat(201) }, 'body.branch'],
    ['21 tags', { tags: Array.from({ length: 21 }, (_, i) => `t${i}`) }, 'body.tags'],
  ])('POST /reports refuses %s with 400 before calling the service', async (_label, payload, path) => {
    const res = await h.request({ method: 'POST', url: `${P()}/reports`, payload });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('VALIDATION_ERROR');
    expect(res.json().error.details.map((d: { path: string }) => d.path)).toContain(path);
    expect(h.calls).toEqual([]);
  });

  it('GET /reports/{id}: ready and failed reports in the contract JSON (failureReason only when failed)', async () => {
    const ready = await h.request({ method: 'GET', url: `${P()}/reports/${'e'.repeat(24)}` });
    expect(ready.statusCode).toBe(200);
    expect(ready.json().data).toMatchObject({ status: 'ready', sizeBytes: 1234, failureReason: null, completedAt: null });
    expect(h.calls[0]).toMatchObject({ method: 'getReport', request: { projectId: h.projectId, reportId: 'e'.repeat(24) } });
    const failed = await h.request({ as: 'api_key', method: 'GET', url: `${P()}/reports/${'f'.repeat(24)}` });
    expect(failed.json().data).toMatchObject({
      status: 'failed',
      failureReason: 'Could not get the report figures from the analytics service: unavailable',
      completedAt: '2026-03-10T08:01:00.000Z',
    });
  });
});

describe('reports routes: PDFs from the service port (a local stand-in)', () => {
  it('download: streams the bytes with the PDF headers only; the port gets the internal token and the caller', async () => {
    const res = await h.request({ as: 'viewer', method: 'GET', url: `${P()}/reports/${'e'.repeat(24)}/download` });
    expect(res.statusCode).toBe(200);
    expect(res.rawPayload.equals(PDF)).toBe(true);
    expect(res.headers).toMatchObject({
      'content-type': 'application/pdf',
      'content-length': String(PDF.length),
      'content-disposition': 'attachment; filename="assay-web-shop.pdf"',
      'cache-control': 'private, no-store',
    });
    expect(res.headers['x-internal-detail']).toBeUndefined();
    expect(portCalls).toEqual([
      {
        url: `/reports/${h.projectId}/${'e'.repeat(24)}/download`,
        internalAuth: `Bearer ${h.app.services.serviceHttp.internalToken}`,
        principal: h.caller('viewer').principal,
      },
    ]);
    expect(h.calls).toEqual([]);
  });

  it("download: the service's error envelope is relayed with its status (409 not ready)", async () => {
    const res = await h.request({ method: 'GET', url: `${P()}/reports/${'c'.repeat(24)}/download` });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({ success: false, error: { code: 'CONFLICT', message: 'The report is not ready yet (status pending)' } });
  });

  it('download: an id that cannot be one is 404 without reaching the port', async () => {
    const res = await h.request({ method: 'GET', url: `${P()}/reports/not-an-id/download` });
    expect(res.statusCode).toBe(404);
    expect(portCalls).toEqual([]);
  });

  it('GET /reports/pdf: days (default 7), branch and environment reach the port; 400 for days over 30 without reaching it', async () => {
    expect((await h.request({ method: 'GET', url: `${P()}/reports/pdf` })).statusCode).toBe(200);
    const res = await h.request({ method: 'GET', url: `${P()}/reports/pdf?days=14&branch=main&environment=staging&unknown=1` });
    expect(res.statusCode).toBe(200);
    expect(res.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
    expect(portCalls.map((c) => c.url)).toEqual([
      `/reports/${h.projectId}/pdf?days=7`,
      `/reports/${h.projectId}/pdf?days=14&branch=main&environment=staging`,
    ]);
    portCalls.length = 0;
    expect((await h.request({ method: 'GET', url: `${P()}/reports/pdf?days=31` })).statusCode).toBe(400);
    expect(portCalls).toEqual([]);
  });

  it('an unreachable port is 503 SERVICE_UNAVAILABLE with Retry-After', async () => {
    h.app.services.reportsHttpUrl = 'http://127.0.0.1:1';
    const res = await h.request({ method: 'GET', url: `${P()}/reports/${'e'.repeat(24)}/download` });
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toBe('5');
    expect(res.json().error.code).toBe('SERVICE_UNAVAILABLE');
  });
});

describe('reports routes: the pdf rate bucket (1 per minute per token)', () => {
  let limited: Harness;
  beforeAll(async () => {
    const limits = { ...SHARED_GATEWAY_RATE_LIMITS, pdf: 1 };
    limited = await gatewayHarness(
      { reports: reportsStub },
      {
        RATE_LIMITS: Object.entries(limits)
          .map(([k, v]) => `${k}=${v}`)
          .join(','),
      },
    );
  });
  afterAll(() => limited.close());

  it('POST /reports and GET /reports/pdf share the bucket; status reads and downloads do not count', async () => {
    const P2 = `/api/v1/public/${limited.projectId}`;
    const first = await limited.request({ method: 'POST', url: `${P2}/reports`, payload: {} });
    expect(first.statusCode).toBe(202);
    const second = await limited.request({ method: 'POST', url: `${P2}/reports`, payload: { days: 3 } });
    expect(second.statusCode).toBe(429);
    expect(second.json().error.code).toBe('RATE_LIMIT_EXCEEDED');
    expect(second.headers['retry-after']).toBeDefined();
    // The synchronous form counts in the same bucket: refused before any call to the port (still port 1 here).
    const sync = await limited.request({ method: 'GET', url: `${P2}/reports/pdf` });
    expect(sync.statusCode).toBe(429);
    expect(limited.calls.map((c) => c.method)).toEqual(['createReport']);
    // Reads are not in the bucket.
    expect((await limited.request({ method: 'GET', url: `${P2}/reports/${'e'.repeat(24)}` })).statusCode).toBe(200);
    // The bucket is per token: another caller may still request one.
    expect((await limited.request({ as: 'viewer', method: 'POST', url: `${P2}/reports`, payload: {} })).statusCode).toBe(202);
  });
});
