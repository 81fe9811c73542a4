/**
 * @assay/client against the whole running system: the typed calls, a create with its automatic
 * Idempotency-Key, the page iterator over real lists, and the error envelope of a 4xx (sent once).
 */
import { AssayApiError, createAssayClient, type AssayClient, type RetryInfo } from '@assay/client';
import { testAdmin, testSystem, type Tenant } from '@assay/testkit';

const admin = testAdmin();

describe('@assay/client against the running system', () => {
  let t: Tenant;
  let assay: AssayClient;
  const retries: RetryInfo[] = [];
  const sent: Request[] = [];
  beforeAll(async () => {
    t = await admin.tenant('owner');
    assay = createAssayClient({
      baseUrl: testSystem().gatewayUrl,
      token: t.token,
      onRetry: (info) => retries.push(info),
      fetch: (request, init) => {
        sent.push(request.clone());
        return fetch(request, init);
      },
    });
  });
  const projectId = () => t.projectId;

  it('reads token info and an empty list of runs', async () => {
    const info = await assay.GET('/api/v1/public/{projectId}/token-info', { params: { path: { projectId: projectId() } } });
    expect(info.response.status).toBe(200);
    expect(info.data?.data.type).toBe('pat');
    const runs = await assay.GET('/api/v1/public/{projectId}/test-runs', { params: { path: { projectId: projectId() } } });
    expect(runs.error).toBeUndefined();
    expect(runs.data).toMatchObject({ success: true, data: [], pagination: { page: 1, total: 0, hasNext: false } });
  });

  it('creates a manual test suite (201) with an automatic Idempotency-Key, and lists it', async () => {
    sent.length = 0;
    const created = await assay.POST('/api/v1/public/{projectId}/manual-test-suites', {
      params: { path: { projectId: projectId() } },
      body: { name: 'Checkout', description: 'made by @assay/client' },
    });
    expect(created.response.status).toBe(201);
    expect(created.data?.data).toMatchObject({ name: 'Checkout', description: 'made by @assay/client' });
    expect(sent).toHaveLength(1);
    const key = sent[0]!.headers.get('idempotency-key');
    expect(key).toMatch(/^[0-9a-f-]{36}$/);

    // The same key again (what a retry sends) replays the first answer instead of creating a second suite.
    const replay = await assay.POST('/api/v1/public/{projectId}/manual-test-suites', {
      params: { path: { projectId: projectId() } },
      body: { name: 'Checkout', description: 'made by @assay/client' },
      headers: { 'Idempotency-Key': key! },
    });
    expect(replay.response.status).toBe(201);
    expect(replay.response.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.data?.data._id).toBe(created.data?.data._id);
    const suites = await assay.GET('/api/v1/public/{projectId}/manual-test-suites', { params: { path: { projectId: projectId() } } });
    expect(suites.data?.data.map((s) => s.name)).toEqual(['Checkout']);
  });

  it('pages through real lists: 23 suites by 10, then 12 started runs by 10', async () => {
    for (let i = 1; i <= 22; i++) {
      const res = await assay.POST('/api/v1/public/{projectId}/manual-test-suites', {
        params: { path: { projectId: projectId() } },
        body: { name: `Suite ${String(i).padStart(2, '0')}` },
      });
      expect(res.response.status).toBe(201);
    }
    const names: string[] = [];
    for await (const suite of assay.paginate('/api/v1/public/{projectId}/manual-test-suites', {
      params: { path: { projectId: projectId() }, query: { limit: 10 } },
    }))
      names.push(suite.name);
    expect(names).toHaveLength(23);
    expect(new Set(names).size).toBe(23);

    const runIds = new Set<string>();
    for (let i = 0; i < 12; i++) {
      const res = await assay.POST('/api/v1/ingest/{projectId}/runs', {
        params: { path: { projectId: projectId() } },
        body: { metadata: { git: { branch: 'main', commit: { hash: `c${i}`, message: 'm', author: 'Ada' } }, environment: 'ci' } } as never,
      });
      expect(res.response.status).toBe(201);
      runIds.add((res.data as { data: { runId: string } }).data.runId);
    }
    const pages = [];
    for await (const page of assay.pages('/api/v1/public/{projectId}/test-runs', {
      params: { path: { projectId: projectId() }, query: { limit: 10 } },
    }))
      pages.push(page);
    expect(pages.map((p) => p.items.length)).toEqual([10, 2]);
    expect(pages.map((p) => p.pagination.page)).toEqual([1, 2]);
    expect(new Set(pages.flatMap((p) => p.items.map((r) => r.id)))).toEqual(runIds);
  });

  it('answers a project the token does not cover with the 404 envelope, asked once', async () => {
    sent.length = 0;
    const res = await assay.GET('/api/v1/public/{projectId}/test-runs', { params: { path: { projectId: '0123456789abcdef01234567' } } });
    expect(res.response.status).toBe(404);
    expect(res.error?.error.code).toBe('NOT_FOUND');
    expect(sent).toHaveLength(1);
    const err = await (async () => {
      for await (const _ of assay.paginate('/api/v1/public/{projectId}/test-runs', {
        params: { path: { projectId: '0123456789abcdef01234567' } },
      }));
    })().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AssayApiError);
    expect(err).toMatchObject({ status: 404, code: 'NOT_FOUND' });
    expect(retries).toEqual([]);
  });
});
