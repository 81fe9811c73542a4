/**
 * ManualTestingService.LinkAutomatedTest, the internal RPC the runs service calls when a test's annotations
 * name a case: called here exactly as another service does (internal token, no caller principal), and the
 * links read back over the public HTTP API in the spec §2.3 LinkedTest shape.
 */
import { Code, ConnectError } from '@connectrpc/connect';
import { ErrorInfoSchema } from '@assay/proto/assay/common/v1/common_pb';
import { ManualTestingService } from '@assay/proto/assay/manualtesting/v1/manual_testing_pb';
import { createRpcClient } from '@assay/service-kit';
import { testAdmin, testApi, testSystem, type Tenant } from '@assay/testkit';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

function client(token = testSystem().internalToken) {
  const s = testSystem();
  return createRpcClient(ManualTestingService, {
    baseUrl: `http://127.0.0.1:${s.ports.services['manual-testing']!.rpcPort}`,
    internalToken: token,
  });
}

async function reasonOf(call: Promise<unknown>): Promise<{ code: Code; reason?: string; paths: string[] }> {
  try {
    await call;
  } catch (err) {
    const ce = ConnectError.from(err);
    const [info] = ce.findDetails(ErrorInfoSchema);
    return { code: ce.code, reason: info?.reason, paths: info?.violations.map((v) => v.path) ?? [] };
  }
  throw new Error('the call succeeded');
}

describe('LinkAutomatedTest', () => {
  let t: Tenant;
  let caseA: any;
  let caseB: any;
  const rpc = client();
  beforeAll(async () => {
    t = await testAdmin().tenant('owner');
    const api = testApi(t.token);
    await api.post(`/${t.projectId}/manual-test-suites`, { name: 'S' });
    caseA = (await api.post(`/${t.projectId}/manual-test-cases`, { title: 'A', suiteName: 'S' })).body.data;
    caseB = (await api.post(`/${t.projectId}/manual-test-cases`, { title: 'B', suiteName: 'S' })).body.data;
  });

  it('links by TC-n (auto_created), idempotently per (case, test), and the link reads back in the §2.3 shape', async () => {
    const req = {
      projectId: t.projectId,
      caseRef: caseA.caseId,
      testId: 'test-checkout-pays',
      fullTitle: 'checkout.spec.ts > Checkout > pays with a card',
      displayTitle: 'pays with a card',
      source: 'auto_created',
    };
    expect(await rpc.linkAutomatedTest(req)).toMatchObject({ linked: true, caseId: caseA._id, created: true });
    expect(await rpc.linkAutomatedTest(req)).toMatchObject({ linked: true, caseId: caseA._id, created: false });
    const one = (await testApi(t.token).get(`/${t.projectId}/manual-test-cases/${caseA.caseId}`)).body.data;
    expect(one.linkedTests).toEqual([
      {
        _id: 'test-checkout-pays',
        fullTitle: 'checkout.spec.ts > Checkout > pays with a card',
        displayTitle: 'pays with a card',
        linkedAt: expect.stringMatching(ISO),
        source: 'auto_created',
      },
    ]);
    const list = (await testApi(t.token).get(`/${t.projectId}/manual-test-cases`)).body.data;
    expect(list.find((c: any) => c._id === caseA._id).linkedTests).toEqual(one.linkedTests);
    expect(list.find((c: any) => c._id === caseB._id).linkedTests).toEqual([]);
  });

  it('links by _id (manual_link) without a display title; a repeated link keeps its source and time and takes the new title', async () => {
    const base = { projectId: t.projectId, caseRef: caseB._id, testId: 'test-b', fullTitle: 'b.spec.ts > old', source: 'manual_link' };
    expect(await rpc.linkAutomatedTest(base)).toMatchObject({ linked: true, caseId: caseB._id, created: true });
    const first = (await testApi(t.token).get(`/${t.projectId}/manual-test-cases/${caseB._id}`)).body.data.linkedTests[0];
    expect(first).toMatchObject({ _id: 'test-b', displayTitle: null, source: 'manual_link' });
    const again = await rpc.linkAutomatedTest({ ...base, fullTitle: 'b.spec.ts > renamed', source: 'auto_created', caseRef: 'tc-2' });
    expect(again).toMatchObject({ linked: true, created: false });
    const after = (await testApi(t.token).get(`/${t.projectId}/manual-test-cases/${caseB._id}`)).body.data.linkedTests;
    expect(after).toEqual([{ ...first, fullTitle: 'b.spec.ts > renamed' }]);
  });

  it('links nothing when no case of the project matches', async () => {
    const other = await testAdmin().tenant('owner');
    for (const caseRef of ['TC-999', '0123456789abcdef01234567', 'not a ref']) {
      expect(await rpc.linkAutomatedTest({ projectId: t.projectId, caseRef, testId: 'x', fullTitle: 'x', source: 'auto_created' })).toEqual(
        expect.objectContaining({ linked: false, caseId: '', created: false }),
      );
    }
    // a case of another project is not found through this project
    expect(
      await rpc.linkAutomatedTest({ projectId: other.projectId, caseRef: caseA._id, testId: 'x', fullTitle: 'x', source: 'auto_created' }),
    ).toMatchObject({ linked: false });
  });

  it('refuses an unknown source, a missing test id or title (VALIDATION_ERROR), and callers without the internal token', async () => {
    const base = { projectId: t.projectId, caseRef: caseA.caseId, testId: 't', fullTitle: 'f', source: 'auto_created' };
    const bad = await reasonOf(rpc.linkAutomatedTest({ ...base, source: 'annotation' }));
    expect(bad).toMatchObject({ code: Code.InvalidArgument, reason: 'VALIDATION_ERROR', paths: ['source'] });
    expect((await reasonOf(rpc.linkAutomatedTest({ ...base, testId: ' ' }))).paths).toEqual(['test_id']);
    expect((await reasonOf(rpc.linkAutomatedTest({ ...base, fullTitle: '' }))).paths).toEqual(['full_title']);
    expect((await reasonOf(client('wrong-token').linkAutomatedTest(base))).code).toBe(Code.Unauthenticated);
    const links = (await testApi(t.token).get(`/${t.projectId}/manual-test-cases/${caseA._id}`)).body.data.linkedTests;
    expect(links.map((l: any) => l._id)).toEqual(['test-checkout-pays']);
  });
});
