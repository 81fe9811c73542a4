/**
 * RunsService.ScanRuns (for analytics rebuilds) on the shared test system, called as another service calls it:
 * every run of one project in counter order, page by page, running runs included; the all-projects form pages by
 * id and reaches the same runs.
 */
import { createRpcClient } from '@assay/service-kit';
import { RunsService } from '@assay/proto/assay/runs/v1/runs_pb';
import { runStatus } from '@assay/contracts/runs/test-runs';
import { testAdmin, testApi, testSystem } from '@assay/testkit';

jest.setTimeout(60000);

describe('RunsService.ScanRuns', () => {
  const s = testSystem();
  const runs = createRpcClient(RunsService, {
    baseUrl: `http://127.0.0.1:${s.ports.services.runs!.rpcPort}`,
    internalToken: s.internalToken,
  });

  it('pages through every run of a project in counter order, running ones included', async () => {
    const t = await testAdmin().tenant('member');
    const key = (await testAdmin().apiKey(t.projectId)).token;
    const api = testApi(key);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await api.post(`/api/v1/ingest/${t.projectId}/runs`, { metadata: { git: { branch: `b${i}` } } });
      expect(res.status).toBe(201);
      ids.push(res.body.data.runId);
      if (i < 3) expect((await api.post(`/api/v1/ingest/${t.projectId}/runs/${ids[i]}/finish`, {})).status).toBe(200);
    }
    const seen: { id: string; status: string; counter: number }[] = [];
    let token = '';
    let pages = 0;
    do {
      const page = await runs.scanRuns({ projectId: t.projectId, pageToken: token, pageSize: 2 });
      pages++;
      for (const r of page.runs) {
        expect(r.projectId).toBe(t.projectId);
        expect(r.orgId).toBe(t.orgId);
        seen.push({ id: r.run!.id, status: runStatus.fromProto(r.run!.status), counter: Number(r.run!.counter) });
      }
      token = page.nextPageToken;
    } while (token);
    expect(pages).toBe(3);
    expect(seen.map((r) => r.id)).toEqual(ids);
    expect(seen.map((r) => r.counter)).toEqual([1, 2, 3, 4, 5]);
    expect(seen.map((r) => r.status)).toEqual(['passed', 'passed', 'passed', 'running', 'running']);

    // Every project: by id; this project's runs are all there.
    const all = new Set<string>();
    token = '';
    do {
      const page = await runs.scanRuns({ pageToken: token, pageSize: 500 });
      for (const r of page.runs) all.add(r.run!.id);
      token = page.nextPageToken;
    } while (token);
    for (const id of ids) expect(all.has(id)).toBe(true);

    await expect(runs.scanRuns({ projectId: t.projectId, pageToken: 'x' })).rejects.toThrow(/page_token/);
  });
});
