/**
 * The `manual-test-cases` route family over `app.inject`, with an in-memory manual-testing service: display
 * forms of the classification values, flags and Gherkin keywords become the proto enums (a value that names
 * nothing becomes UNSPECIFIED, which the service refuses at its field), the list item and the detail JSON with
 * the JSON spellings, and what the gateway refuses before any call.
 */
import { create } from '@bufbuild/protobuf';
import { notFound, validation } from '@assay/errors';
import { caseToJson } from '@assay/contracts/manual-testing/manual-test-cases';
import * as mt from '@assay/proto/assay/manualtesting/v1/manual_testing_pb';
import { AT, AT_JSON, expectRefusedBeforeCall, expectWritesForbidden, familyHarness, pathsOf } from './manual-testing';

const testCase = (over: Record<string, unknown> = {}) => ({
  id: 'a'.repeat(24),
  caseId: 'TC-7',
  title: 'Pay',
  suite: { id: 's'.repeat(24), name: 'Checkout' },
  lastModifiedBy: { id: 'u', name: 'Ada', email: 'ada@example.test' },
  classification: {
    status: mt.CaseStatus.ACTIVE,
    severity: mt.Severity.MINOR,
    priority: mt.Priority.LOW,
    type: mt.CaseType.SMOKE,
    layer: mt.Layer.UNIT,
    behavior: mt.Behavior.POSITIVE,
  },
  automation: { status: mt.AutomationStatus.MANUAL, isFlaky: true, isMuted: false },
  steps: {
    type: mt.StepsType.GHERKIN,
    gherkin: [
      {
        step: 1,
        keyword: mt.GherkinKeyword.GIVEN,
        text: 'a cart',
        subSteps: [{ step: 1, keyword: mt.GherkinKeyword.AND, text: 'a card' }],
      },
    ],
  },
  tags: ['smoke'],
  customFields: { team: 'web' },
  linkedTests: [{ id: 't-1', fullTitle: 'a.spec > pays', linkedAt: AT, source: mt.LinkSource.AUTO_CREATED }],
  createdAt: AT,
  updatedAt: AT,
  flags: [mt.CaseFlag.TO_BE_AUTOMATED, mt.CaseFlag.IS_FLAKY],
  comments: [{ id: 'c'.repeat(24), text: '<b>hi</b>', createdAt: AT }],
  issues: ['JIRA-1'],
  ...over,
});

/** What the real service does with an UNSPECIFIED classification value: 400 at its field. */
function refuseUnspecified(req: Pick<mt.CreateCaseRequest, 'status' | 'priority'>) {
  if (req.status === mt.CaseStatus.UNSPECIFIED) throw validation('status', [{ path: 'body.status', message: 'must be one of …' }]);
  if (req.priority === mt.Priority.UNSPECIFIED) throw validation('priority', [{ path: 'query.priority', message: 'must be one of …' }]);
}

/** The manual-testing service answers as one from before ListCases' `json` field (it ignores it). */
let olderService = false;

const f = familyHarness('manual-test-cases', {
  async createCase(req) {
    refuseUnspecified(req);
    return { testCase: testCase() };
  },
  async updateCase() {
    return { testCase: testCase() };
  },
  async getCase(req) {
    if (req.caseRef === 'TC-404') throw notFound('Test case');
    return { testCase: testCase() };
  },
  async listCases(req) {
    refuseUnspecified(req);
    const testCases = [
      testCase({ flags: [], comments: [], issues: [] }),
      testCase({ id: 'b'.repeat(24), suite: undefined, linkedTests: [] }),
    ];
    const page = { page: 1, limit: 25, total: 2n };
    // Asked for JSON, the service renders the public items itself (its toCaseListItemJson, held equal to this there).
    if (req.json && !olderService)
      return { testCasesJson: Buffer.from(JSON.stringify(testCases.map((c) => caseToJson(create(mt.TestCaseSchema, c))))), page };
    return { testCases, page };
  },
});

describe('manual-test-cases routes', () => {
  it('create: display forms, flags and Gherkin keywords become the proto enums; the caller is forwarded', async () => {
    const res = await f.h.request({
      as: 'member',
      method: 'POST',
      url: f.url,
      payload: {
        title: 'Pay',
        suiteName: 'Checkout',
        status: 'Draft',
        severity: 'CRITICAL',
        priority: 'Not set',
        type: 'E2E',
        layer: 'api',
        behavior: 'Negative',
        automationStatus: 'Automated',
        testStepsDeclarationType: 'Gherkin',
        steps: [
          { event: 'Given', stepDescription: 'a cart', subSteps: [{ event: 'and', stepDescription: 'a card' }] },
          { event: 'Whenever' },
        ],
        tags: 'smoke',
        flags: ['Is flaky', 'to_be_automated', 'Broken'],
      },
    });
    expect(res.statusCode).toBe(201);
    expect(f.h.calls[0]!.principal).toEqual(f.h.caller('member').principal);
    const req = f.h.calls[0]!.request as mt.CreateCaseRequest;
    expect(req).toMatchObject({
      projectId: f.h.projectId,
      title: 'Pay',
      suiteName: 'Checkout',
      status: mt.CaseStatus.DRAFT,
      severity: mt.Severity.CRITICAL,
      priority: mt.Priority.NOT_SET,
      type: mt.CaseType.E2E,
      layer: mt.Layer.API,
      behavior: mt.Behavior.NEGATIVE,
      automationStatus: mt.AutomationStatus.AUTOMATED,
      testStepsDeclarationType: mt.StepsType.GHERKIN,
      tags: 'smoke',
      flags: [mt.CaseFlag.IS_FLAKY, mt.CaseFlag.TO_BE_AUTOMATED, mt.CaseFlag.UNSPECIFIED],
    });
    expect(req.steps.map((s) => [s.event, s.stepDescription, s.subSteps.map((x) => x.event)])).toEqual([
      [mt.GherkinKeyword.GIVEN, 'a cart', [mt.GherkinKeyword.AND]],
      [mt.GherkinKeyword.UNSPECIFIED, undefined, []],
    ]);
    expect(req.steps[0]!.action).toBeUndefined();
  });

  it('create: answers the detail with the JSON spellings (classification, keywords, flags in their write form)', async () => {
    const res = await f.h.request({ method: 'POST', url: f.url, payload: { title: 'Pay', suiteId: 's'.repeat(24) } });
    expect(res.statusCode).toBe(201);
    expect(res.json().data).toEqual({
      _id: 'a'.repeat(24),
      caseId: 'TC-7',
      title: 'Pay',
      description: '',
      preconditions: '',
      postconditions: '',
      metadata: { suite: { _id: 's'.repeat(24), name: 'Checkout' }, lastModifiedBy: { name: 'Ada', email: 'ada@example.test' } },
      classification: { status: 'active', severity: 'minor', priority: 'low', type: 'smoke', layer: 'unit', behavior: 'positive' },
      automation: { status: 'manual', isFlaky: true, isMuted: false },
      steps: {
        type: 'gherkin',
        classic: [],
        gherkin: [{ step: 1, keyword: 'Given', text: 'a cart', subSteps: [{ step: 1, keyword: 'And', text: 'a card', subSteps: [] }] }],
      },
      tags: ['smoke'],
      customFields: { team: 'web' },
      linkedTests: [{ _id: 't-1', fullTitle: 'a.spec > pays', displayTitle: null, linkedAt: AT_JSON, source: 'auto_created' }],
      attachments: [],
      createdAt: AT_JSON,
      updatedAt: AT_JSON,
      flags: ['To be Automated', 'Is flaky'],
      comments: [{ _id: 'c'.repeat(24), text: '<b>hi</b>', author: null, createdAt: AT_JSON }],
      issues: ['JIRA-1'],
    });
  });

  it('create: a value that names nothing reaches the service as UNSPECIFIED, whose refusal is the 400', async () => {
    const res = await f.h.request({ method: 'POST', url: f.url, payload: { title: 'x', suiteName: 'S', status: 'archived' } });
    expect((f.h.calls[0]!.request as mt.CreateCaseRequest).status).toBe(mt.CaseStatus.UNSPECIFIED);
    expect(res.statusCode).toBe(400);
    expect(pathsOf(res)).toEqual(['body.status']);
  });

  it('update: steps, flags and custom fields are wrapped (present = replace), comments and issues default to none', async () => {
    const res = await f.h.request({
      method: 'PATCH',
      url: `${f.url}/TC-7`,
      payload: {
        name: 'Renamed',
        steps: [{ action: 'a', expectedResult: 'b' }],
        flags: ['Muted'],
        customFields: { a: '1' },
        severity: 'not-set',
      },
    });
    expect(res.statusCode).toBe(200);
    expect(f.h.calls[0]!.request).toMatchObject({
      caseRef: 'TC-7',
      name: 'Renamed',
      severity: mt.Severity.NOT_SET,
      steps: { steps: [{ action: 'a', expectedResult: 'b', subSteps: [] }] },
      flags: { flags: [mt.CaseFlag.MUTED] },
      customFields: { values: { a: '1' } },
      comments: [],
      issues: [],
    });
    const bare = await f.h.request({ method: 'PATCH', url: `${f.url}/TC-7`, payload: { comments: ['x'] } });
    expect(bare.statusCode).toBe(200);
    const req = f.h.calls[1]!.request as Record<string, unknown>;
    expect([req.steps, req.flags, req.customFields, req.status]).toEqual([undefined, undefined, undefined, undefined]);
  });

  it('get: by `_id` or `TC-<n>`; a case the service does not find is 404', async () => {
    expect((await f.h.request({ as: 'api_key', method: 'GET', url: `${f.url}/tc-7` })).statusCode).toBe(200);
    expect(f.h.calls[0]!.request).toMatchObject({ projectId: f.h.projectId, caseRef: 'tc-7' });
    const missing = await f.h.request({ method: 'GET', url: `${f.url}/TC-404` });
    expect(missing.statusCode).toBe(404);
    expect(missing.json().error.code).toBe('NOT_FOUND');
  });

  it('list: filters reach the service as enums (unknown keys stripped), items have no detail fields', async () => {
    const res = await f.h.request({
      method: 'GET',
      url: `${f.url}?limit=25&status=Deprecated&layer=E2E&tags=a,b&search=TC-2&suiteId=s1&x=1`,
    });
    expect(res.statusCode).toBe(200);
    expect(f.h.calls[0]!.request).toMatchObject({
      page: { page: 1, limit: 25 },
      status: mt.CaseStatus.DEPRECATED,
      layer: mt.Layer.E2E,
      tags: 'a,b',
      search: 'TC-2',
      suiteId: 's1',
    });
    expect((f.h.calls[0]!.request as Record<string, unknown>).priority).toBeUndefined();
    const item = res.json().data[0];
    expect(item).not.toHaveProperty('flags');
    expect(item).not.toHaveProperty('comments');
    expect(res.json().pagination).toMatchObject({ page: 1, limit: 25, total: 2 });
    const unknown = await f.h.request({ method: 'GET', url: `${f.url}?priority=p1` });
    expect(unknown.statusCode).toBe(400);
    expect(pathsOf(unknown)).toEqual(['query.priority']);
  });

  it("list: the service's JSON items are passed on as they are, byte for byte what an older service's messages give", async () => {
    const current = await f.h.request({ method: 'GET', url: `${f.url}?limit=25` });
    expect(f.h.calls[0]!.request).toMatchObject({ json: true });
    olderService = true;
    try {
      const older = await f.h.request({ method: 'GET', url: `${f.url}?limit=25` });
      expect([current.statusCode, older.statusCode]).toEqual([200, 200]);
      expect(current.headers['content-type']).toBe(older.headers['content-type']);
      expect(current.body).toBe(older.body);
      expect(current.json().data.map((c: { metadata: { suite: unknown } }) => c.metadata.suite)).toEqual([
        { _id: 's'.repeat(24), name: 'Checkout' },
        null,
      ]);
      expect(current.json().pagination).toEqual({ page: 1, limit: 25, total: 2, hasNext: false, hasPrev: false, hasMore: false });
    } finally {
      olderService = false;
    }
  });

  it.each([
    ['no title', 'POST', '', { suiteName: 'S' }, 'body.title'],
    ['a title over 500 characters', 'POST', '', { title: 't'.repeat(501) }, 'body.title'],
    ['comments on create', 'POST', '', { title: 't', comments: ['x'] }, 'body.comments'],
    ['a lower-case declaration type', 'POST', '', { title: 't', testStepsDeclarationType: 'gherkin' }, 'body.testStepsDeclarationType'],
    ['tags as an array', 'POST', '', { title: 't', tags: ['a'] }, 'body.tags'],
    ['a custom field that is a number', 'POST', '', { title: 't', customFields: { a: 1 } }, 'body.customFields.a'],
    ['a step attachment', 'POST', '', { title: 't', steps: [{ action: 'a', attachments: [] }] }, 'body.steps.0.attachments'],
    ['101 steps', 'POST', '', { title: 't', steps: Array.from({ length: 101 }, () => ({ action: 'a' })) }, 'body.steps'],
    ['a step text over 5000 characters', 'POST', '', { title: 't', steps: [{ data: 'd'.repeat(5001) }] }, 'body.steps.0.data'],
    ['an empty update', 'PATCH', '/TC-1', {}, 'body'],
    ['21 comments', 'PATCH', '/TC-1', { comments: Array.from({ length: 21 }, () => 'c') }, 'body.comments'],
    ['51 issues', 'PATCH', '/TC-1', { issues: Array.from({ length: 51 }, () => 'i') }, 'body.issues'],
    ['suite targeting on update', 'PATCH', '/TC-1', { suiteName: 'S' }, 'body.suiteName'],
  ] as const)('refuses %s with 400 before calling the service', (_label, method, suffix, payload, path) =>
    expectRefusedBeforeCall(f, method, suffix, payload, path),
  );

  it('refuses sub-steps nested deeper than 5 levels before any call', async () => {
    let step: Record<string, unknown> = { action: 'deepest' };
    for (let l = 0; l < 6; l++) step = { action: `level ${l}`, subSteps: [step] };
    const res = await f.h.request({ method: 'POST', url: f.url, payload: { title: 't', steps: [step] } });
    expect(res.statusCode).toBe(400);
    expect(f.h.calls).toEqual([]);
  });

  it('writes need a member or more (403 for viewers and api keys, no call)', () =>
    expectWritesForbidden(f, [
      ['POST', '', { title: 'x', suiteName: 'S' }],
      ['PATCH', '/TC-1', { title: 'x' }],
    ]));
});
