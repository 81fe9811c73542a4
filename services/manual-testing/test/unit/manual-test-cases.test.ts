/**
 * The `manual-test-cases` family's handlers (handlers/manual-test-cases.ts over store/manual-test-cases.ts):
 * defaults and numbering, the classification enums (UNSPECIFIED refused at its field), Classic and Gherkin
 * steps with the contract's limits, flags, custom fields, partial updates with comments and issues, reads by
 * `_id` and `TC-<n>`, the list filters, LinkAutomatedTest, and who may write.
 */
import { Code } from '@connectrpc/connect';
import * as mt from '@assay/proto/assay/manualtesting/v1/manual_testing_pb';
import * as limits from '@assay/contracts/manual-testing/values';
import { caseToJson } from '@assay/contracts/manual-testing/manual-test-cases';
import { failure, handlerSuite, newProject, owner, READ_ONLY, type HandlerSuite } from './support';

let s: HandlerSuite;
beforeAll(async () => {
  s = await handlerSuite('manual-test-cases');
});
afterAll(() => s.db.drop());

/** A project with one suite `S`; returns the project id and the suite id. */
async function project() {
  const projectId = newProject();
  const { suite } = await s.client.createSuite({ projectId, name: 'S' }, owner);
  return { projectId, suiteId: suite!.id };
}

const create = (projectId: string, over: Record<string, unknown> = {}) =>
  s.client.createCase({ projectId, title: 'Case', suiteName: 'S', ...over }, owner).then((r) => r.testCase!);

/** A classic step nested `levels` levels of sub-steps deep. */
function nested(levels: number): Record<string, unknown> {
  let step: Record<string, unknown> = { action: `level ${levels}` };
  for (let l = levels - 1; l >= 0; l--) step = { action: `level ${l}`, subSteps: [step] };
  return step;
}

describe('manual-test-cases handlers: create', () => {
  it('numbers cases per project and answers the defaults, classic steps numbered, tags split, flags as enums', async () => {
    const { projectId, suiteId } = await project();
    const c = await create(projectId, {
      description: 'd',
      steps: [{ action: 'Open', expectedResult: 'Shown', subSteps: [{ data: 'x' }] }, { action: 'Pay' }],
      tags: 'smoke, login,,smoke',
      flags: [mt.CaseFlag.MUTED, mt.CaseFlag.TO_BE_AUTOMATED],
      customFields: { team: 'web' },
    });
    expect(c).toMatchObject({
      caseId: 'TC-1',
      title: 'Case',
      description: 'd',
      suite: { id: suiteId, name: 'S' },
      lastModifiedBy: { name: 'Ada Tester', email: 'ada@example.test' },
      classification: {
        status: mt.CaseStatus.ACTIVE,
        severity: mt.Severity.NOT_SET,
        priority: mt.Priority.NOT_SET,
        type: mt.CaseType.OTHER,
        layer: mt.Layer.NOT_SET,
        behavior: mt.Behavior.NOT_SET,
      },
      automation: { status: mt.AutomationStatus.MANUAL, isFlaky: false, isMuted: true },
      tags: ['smoke', 'login'],
      customFields: { team: 'web' },
      flags: [mt.CaseFlag.TO_BE_AUTOMATED, mt.CaseFlag.MUTED],
      comments: [],
      issues: [],
    });
    expect(c.steps!.type).toBe(mt.StepsType.CLASSIC);
    expect(c.steps!.classic.map((x) => [x.step, x.action, x.subSteps.map((y) => [y.step, y.data])])).toEqual([
      [1, 'Open', [[1, 'x']]],
      [2, 'Pay', []],
    ]);
    expect((await create(projectId)).caseId).toBe('TC-2');
    expect((await create((await project()).projectId)).caseId).toBe('TC-1');
  });

  it('stores every classification value sent', async () => {
    const { projectId } = await project();
    const classification = {
      status: mt.CaseStatus.DRAFT,
      severity: mt.Severity.CRITICAL,
      priority: mt.Priority.HIGH,
      type: mt.CaseType.E2E,
      layer: mt.Layer.API,
      behavior: mt.Behavior.NEGATIVE,
    };
    const c = await create(projectId, { ...classification, automationStatus: mt.AutomationStatus.AUTOMATED });
    expect(c.classification).toMatchObject(classification);
    expect(c.automation!.status).toBe(mt.AutomationStatus.AUTOMATED);
  });

  it('reads Gherkin steps as keywords and texts, and infers Gherkin from the first step', async () => {
    const { projectId } = await project();
    const c = await create(projectId, {
      steps: [
        {
          event: mt.GherkinKeyword.GIVEN,
          stepDescription: 'a cart',
          subSteps: [{ event: mt.GherkinKeyword.AND, stepDescription: 'a card' }],
        },
        { event: mt.GherkinKeyword.THEN, stepDescription: 'paid' },
      ],
    });
    expect(c.steps!.type).toBe(mt.StepsType.GHERKIN);
    expect(c.steps!.gherkin.map((g) => [g.step, g.keyword, g.text, g.subSteps.map((x) => x.keyword)])).toEqual([
      [1, mt.GherkinKeyword.GIVEN, 'a cart', [mt.GherkinKeyword.AND]],
      [2, mt.GherkinKeyword.THEN, 'paid', []],
    ]);
    expect(c.steps!.classic).toEqual([]);
  });

  const longText = 'x'.repeat(limits.MAX_STEP_TEXT + 1);
  it.each<[string, Record<string, unknown>, string, string?]>([
    ['an UNSPECIFIED status', { status: mt.CaseStatus.UNSPECIFIED }, 'body.status', 'active, draft, deprecated'],
    ['an UNSPECIFIED severity', { severity: mt.Severity.UNSPECIFIED }, 'body.severity', 'not_set'],
    ['an UNSPECIFIED priority', { priority: mt.Priority.UNSPECIFIED }, 'body.priority', 'critical, high, medium, low, not_set'],
    ['an UNSPECIFIED type', { type: mt.CaseType.UNSPECIFIED }, 'body.type', 'exploratory, other'],
    ['an UNSPECIFIED layer', { layer: mt.Layer.UNSPECIFIED }, 'body.layer', 'e2e, api, unit, not_set'],
    ['an UNSPECIFIED behavior', { behavior: mt.Behavior.UNSPECIFIED }, 'body.behavior', 'destructive'],
    ['an UNSPECIFIED automation status', { automationStatus: mt.AutomationStatus.UNSPECIFIED }, 'body.automationStatus', 'manual'],
    ['an unknown flag', { flags: [mt.CaseFlag.IS_FLAKY, mt.CaseFlag.UNSPECIFIED] }, 'body.flags.1', 'to_be_automated, is_flaky, muted'],
    [
      'an UNSPECIFIED declaration type',
      { testStepsDeclarationType: mt.StepsType.UNSPECIFIED },
      'body.testStepsDeclarationType',
      'Classic or Gherkin',
    ],
    ['a blank title', { title: '  ' }, 'body.title'],
    [`a title over ${limits.MAX_CASE_TITLE} characters`, { title: 't'.repeat(limits.MAX_CASE_TITLE + 1) }, 'body.title'],
    [`${limits.MAX_STEPS + 1} steps`, { steps: Array.from({ length: limits.MAX_STEPS + 1 }, () => ({ action: 'a' })) }, 'body.steps'],
    ['an empty classic step', { steps: [{}] }, 'body.steps.0', 'at least one of'],
    [`an action over ${limits.MAX_STEP_TEXT} characters`, { steps: [{ action: longText }] }, 'body.steps.0.action'],
    ['a sub-step data over the limit', { steps: [{ action: 'a', subSteps: [{ data: longText }] }] }, 'body.steps.0.subSteps.0.data'],
    [
      `sub-steps nested ${limits.MAX_SUB_STEP_DEPTH + 1} levels`,
      { steps: [nested(limits.MAX_SUB_STEP_DEPTH + 1)] },
      `body.steps.0${'.subSteps.0'.repeat(limits.MAX_SUB_STEP_DEPTH)}.subSteps`,
    ],
    [
      'Gherkin fields under Classic',
      { testStepsDeclarationType: mt.StepsType.CLASSIC, steps: [{ event: mt.GherkinKeyword.GIVEN, stepDescription: 'x' }] },
      'body.steps.0.event',
      'Gherkin step field',
    ],
    [
      'Classic fields under Gherkin',
      { testStepsDeclarationType: mt.StepsType.GHERKIN, steps: [{ action: 'x', event: mt.GherkinKeyword.GIVEN, stepDescription: 'y' }] },
      'body.steps.0.action',
    ],
    [
      'a Gherkin step without a keyword',
      { testStepsDeclarationType: mt.StepsType.GHERKIN, steps: [{ stepDescription: 'x' }] },
      'body.steps.0.event',
      'is required',
    ],
    [
      'an UNSPECIFIED Gherkin keyword',
      { steps: [{ event: mt.GherkinKeyword.UNSPECIFIED, stepDescription: 'x' }] },
      'body.steps.0.event',
      'Given, When, Then, And, But',
    ],
    ['a Gherkin step without text', { steps: [{ event: mt.GherkinKeyword.WHEN }] }, 'body.steps.0.stepDescription'],
    ['a custom field key starting with $', { customFields: { $where: 'x' } }, 'body.customFields.$where'],
    ['a custom field key with a dot', { customFields: { 'a.b': 'x' } }, 'body.customFields.a.b'],
    ['no suite', { suiteName: undefined }, 'body.suiteId', 'suiteId or suiteName'],
    ['a suite name of no suite', { suiteName: 's' }, 'body.suiteName', 'case-sensitive'],
    ['a suite id of no suite', { suiteId: '0'.repeat(24) }, 'body.suiteId', 'names no suite'],
    // Rest parameters: jest would take a fourth declared parameter missing from a row for a `done` callback.
  ])('refuses %s at its path, and uses up no case number', async (...[, over, path, message]) => {
    const { projectId } = await project();
    const res = await failure(create(projectId, over));
    expect(res).toMatchObject({ code: Code.InvalidArgument, reason: 'VALIDATION_ERROR' });
    expect(res.paths).toContain(path);
    if (message) expect(res.messages[res.paths.indexOf(path)]).toContain(message);
    expect((await create(projectId)).caseId).toBe('TC-1');
  });

  it('lets suiteId win over suiteName, and refuses a name several suites share', async () => {
    const { projectId, suiteId } = await project();
    const other = (await s.client.createSuite({ projectId, name: 'S', parentSuiteId: suiteId }, owner)).suite!;
    expect((await create(projectId, { suiteName: 'nope', suiteId: other.id })).suite!.id).toBe(other.id);
    const dup = await failure(create(projectId));
    expect(dup.paths).toEqual(['body.suiteName']);
    expect(dup.messages[0]).toContain('2 suites have this name');
  });
});

describe('manual-test-cases handlers: update and reads', () => {
  it('changes only what is sent, by `_id` or `TC-<n>`, and records the writer', async () => {
    const { projectId } = await project();
    const c = await create(projectId, { description: 'keep', severity: mt.Severity.MAJOR, tags: 'a' });
    const u = await s.client.updateCase({ projectId, caseRef: 'tc-1', priority: mt.Priority.LOW, preconditions: 'pre' }, owner);
    expect(u.testCase).toMatchObject({
      id: c.id,
      description: 'keep',
      preconditions: 'pre',
      tags: ['a'],
      classification: { severity: mt.Severity.MAJOR, priority: mt.Priority.LOW },
    });
    const renamed = await s.client.updateCase({ projectId, caseRef: c.id, name: 'Renamed' }, owner);
    expect(renamed.testCase!.title).toBe('Renamed');
  });

  it('refuses title and name that differ, an UNSPECIFIED value, and an empty update, writing nothing', async () => {
    const { projectId } = await project();
    const c = await create(projectId, { description: 'before' });
    expect((await failure(s.client.updateCase({ projectId, caseRef: c.id, title: 'A', name: 'B' }, owner))).paths).toEqual(['body.name']);
    const bad = await failure(s.client.updateCase({ projectId, caseRef: c.id, description: 'after', layer: mt.Layer.UNSPECIFIED }, owner));
    expect(bad.paths).toEqual(['body.layer']);
    expect(await failure(s.client.updateCase({ projectId, caseRef: c.id }, owner))).toMatchObject({
      reason: 'VALIDATION_ERROR',
      paths: ['body'],
    });
    const now = await s.client.getCase({ projectId, caseRef: c.id }, owner);
    expect(now.testCase).toMatchObject({ description: 'before', title: 'Case' });
  });

  it('replaces steps, flags and custom fields; switching to Gherkin keeps the classic list aside', async () => {
    const { projectId } = await project();
    const c = await create(projectId, {
      steps: [{ action: 'one' }, { action: 'two' }],
      flags: [mt.CaseFlag.IS_FLAKY],
      customFields: { a: '1' },
    });
    const u = await s.client.updateCase(
      {
        projectId,
        caseRef: c.id,
        testStepsDeclarationType: mt.StepsType.GHERKIN,
        steps: { steps: [{ event: mt.GherkinKeyword.GIVEN, stepDescription: 'x' }] },
        flags: { flags: [mt.CaseFlag.MUTED] },
        customFields: { values: { b: '2' } },
      },
      owner,
    );
    expect(u.testCase!.steps!.type).toBe(mt.StepsType.GHERKIN);
    expect(u.testCase!.steps!.classic.map((x) => x.action)).toEqual(['one', 'two']);
    expect(u.testCase!.steps!.gherkin.map((x) => x.text)).toEqual(['x']);
    expect(u.testCase).toMatchObject({
      flags: [mt.CaseFlag.MUTED],
      automation: { isFlaky: false, isMuted: true },
      customFields: { b: '2' },
    });
    const back = await s.client.updateCase({ projectId, caseRef: c.id, testStepsDeclarationType: mt.StepsType.CLASSIC }, owner);
    expect(back.testCase!.steps!.type).toBe(mt.StepsType.CLASSIC);
  });

  it('appends sanitized comments and merges issue keys, within the per-update limits', async () => {
    const { projectId } = await project();
    const c = await create(projectId);
    const first = await s.client.updateCase(
      { projectId, caseRef: c.id, comments: ['<b>ok</b><script>alert(1)</script>', 'second'], issues: ['JIRA-1', ' JIRA-2 '] },
      owner,
    );
    expect(first.testCase!.comments.map((m) => [m.text, m.author?.name])).toEqual([
      ['<b>ok</b>', 'Ada Tester'],
      ['second', 'Ada Tester'],
    ]);
    const again = await s.client.updateCase({ projectId, caseRef: c.id, issues: ['JIRA-2', 'JIRA-3'] }, owner);
    expect(again.testCase!.issues).toEqual(['JIRA-1', 'JIRA-2', 'JIRA-3']);
    const many = (n: number) => Array.from({ length: n }, (_, i) => `k${i}`);
    for (const [over, path] of [
      [{ comments: many(limits.MAX_COMMENTS_PER_UPDATE + 1) }, 'body.comments'],
      [{ issues: many(limits.MAX_ISSUES_PER_UPDATE + 1) }, 'body.issues'],
      [{ issues: ['ok', ' '] }, 'body.issues.1'],
    ] satisfies [Record<string, string[]>, string][]) {
      expect((await failure(s.client.updateCase({ projectId, caseRef: c.id, ...over }, owner))).paths).toEqual([path]);
    }
    expect(
      (await s.client.updateCase({ projectId, caseRef: c.id, comments: many(limits.MAX_COMMENTS_PER_UPDATE) }, owner)).testCase!.comments,
    ).toHaveLength(2 + limits.MAX_COMMENTS_PER_UPDATE);
  });

  it('answers NOT_FOUND for an unknown case, a number never given and a case of another project', async () => {
    const { projectId } = await project();
    const c = await create(projectId);
    for (const [p, ref] of [
      [projectId, '0'.repeat(24)],
      [projectId, 'TC-99'],
      [newProject(), c.id],
    ]) {
      expect((await failure(s.client.getCase({ projectId: p!, caseRef: ref! }, owner))).reason).toBe('NOT_FOUND');
      expect((await failure(s.client.updateCase({ projectId: p!, caseRef: ref!, title: 'x' }, owner))).reason).toBe('NOT_FOUND');
    }
  });

  it('lists in number order, filtered by the classification enums, tags, suite and search, without detail fields', async () => {
    const { projectId, suiteId } = await project();
    const other = (await s.client.createSuite({ projectId, name: 'Other' }, owner)).suite!;
    await create(projectId, { title: 'Login works', priority: mt.Priority.HIGH, tags: 'smoke,login' });
    await create(projectId, { title: 'Logout', suiteId: other.id, status: mt.CaseStatus.DRAFT, tags: 'login' });
    await create(projectId, { title: '100% match', layer: mt.Layer.E2E, flags: [mt.CaseFlag.MUTED] });
    const numbers = async (filter: Record<string, unknown>) =>
      (await s.client.listCases({ projectId, ...filter }, owner)).testCases.map((c) => c.caseId);
    expect(await numbers({})).toEqual(['TC-1', 'TC-2', 'TC-3']);
    expect(await numbers({ priority: mt.Priority.HIGH })).toEqual(['TC-1']);
    expect(await numbers({ status: mt.CaseStatus.DRAFT })).toEqual(['TC-2']);
    expect(await numbers({ layer: mt.Layer.E2E })).toEqual(['TC-3']);
    expect(await numbers({ suiteId })).toEqual(['TC-1', 'TC-3']);
    expect(await numbers({ tags: 'smoke, nothing' })).toEqual(['TC-1']);
    expect(await numbers({ search: 'LOG' })).toEqual(['TC-1', 'TC-2']);
    expect(await numbers({ search: '100%' })).toEqual(['TC-3']);
    expect(await numbers({ search: 'tc-2' })).toEqual(['TC-2']);
    const list = await s.client.listCases({ projectId, page: { page: 2, limit: 2 } }, owner);
    expect(list.page).toMatchObject({ page: 2, limit: 2, total: 3n });
    expect(list.testCases[0]).toMatchObject({ caseId: 'TC-3', flags: [], comments: [], issues: [] });
    expect((await failure(s.client.listCases({ projectId, severity: mt.Severity.UNSPECIFIED }, owner))).paths).toEqual(['query.severity']);
  });

  it('answers the list as the public §2.3 items with `json`: what the gateway made of the messages, byte for byte', async () => {
    const { projectId } = await project();
    await create(projectId, {
      title: 'Pay “with” ü',
      description: '<p>d</p>',
      preconditions: 'pre',
      steps: [
        { action: 'Open', expectedResult: 'Shown', data: 'x', subSteps: [{ action: 'Inner', subSteps: [{ data: 'deep' }] }] },
        { action: 'Pay' },
      ],
      tags: 'smoke,login',
      flags: [mt.CaseFlag.IS_FLAKY, mt.CaseFlag.MUTED],
      customFields: { team: 'web', zone: 'eu' },
      priority: mt.Priority.HIGH,
    });
    await create(projectId, {
      testStepsDeclarationType: mt.StepsType.GHERKIN,
      steps: [
        {
          event: mt.GherkinKeyword.GIVEN,
          stepDescription: 'a cart',
          subSteps: [{ event: mt.GherkinKeyword.AND, stepDescription: 'a card' }],
        },
        { event: mt.GherkinKeyword.THEN, stepDescription: 'paid' },
      ],
    });
    await create(projectId);
    const link = { projectId, caseRef: 'TC-1', testId: 't-2', fullTitle: 'a.spec > pays', source: 'auto_created' };
    await s.client.linkAutomatedTest({ ...link, displayTitle: 'pays' });
    await s.client.linkAutomatedTest({ ...link, testId: 't-1', caseRef: 'TC-2', source: 'manual_link' });
    await s.client.linkAutomatedTest({ ...link, testId: 't-3' });
    for (const req of [{ projectId }, { projectId, page: { page: 2, limit: 2 } }, { projectId, search: 'pay' }]) {
      const messages = await s.client.listCases(req, owner);
      const answer = await s.client.listCases({ ...req, json: true }, owner);
      expect(answer.testCases).toEqual([]);
      expect(answer.page).toEqual(messages.page);
      expect(Buffer.from(answer.testCasesJson).toString('utf8')).toBe(JSON.stringify(messages.testCases.map(caseToJson)));
    }
    const items = JSON.parse(Buffer.from((await s.client.listCases({ projectId, json: true }, owner)).testCasesJson).toString('utf8'));
    expect(items.map((c: { linkedTests: { _id: string }[] }) => c.linkedTests.map((l) => l._id))).toEqual([['t-2', 't-3'], ['t-1'], []]);
    expect(items[1].steps.gherkin[0].subSteps[0]).toEqual({ step: 1, keyword: 'And', text: 'a card', subSteps: [] });
  });

  it.each(READ_ONLY)('refuses writes by %s (FORBIDDEN) but lets it read', async (_label, caller) => {
    const { projectId } = await project();
    const c = await create(projectId);
    expect((await failure(s.client.createCase({ projectId, title: 'x', suiteName: 'S' }, caller))).reason).toBe('FORBIDDEN');
    expect((await failure(s.client.updateCase({ projectId, caseRef: c.id, title: 'x' }, caller))).reason).toBe('FORBIDDEN');
    expect((await s.client.getCase({ projectId, caseRef: c.caseId }, caller)).testCase!.id).toBe(c.id);
  });
});

describe('manual-test-cases handlers: LinkAutomatedTest', () => {
  it('links once per case and test (by TC-n or _id), reads back with the link source enum, keeps the first source', async () => {
    const { projectId } = await project();
    const c = await create(projectId);
    const req = { projectId, caseRef: 'TC-1', testId: 't-1', fullTitle: 'a.spec > pays', displayTitle: 'pays', source: 'auto_created' };
    expect(await s.client.linkAutomatedTest(req)).toMatchObject({ linked: true, caseId: c.id, created: true });
    expect(await s.client.linkAutomatedTest({ ...req, caseRef: c.id, source: 'manual_link', fullTitle: 'renamed' })).toMatchObject({
      linked: true,
      created: false,
    });
    const read = await s.client.getCase({ projectId, caseRef: c.id }, owner);
    expect(read.testCase!.linkedTests).toMatchObject([
      { id: 't-1', fullTitle: 'renamed', displayTitle: 'pays', source: mt.LinkSource.AUTO_CREATED },
    ]);
    expect(await s.client.linkAutomatedTest({ ...req, caseRef: 'TC-9' })).toMatchObject({ linked: false, caseId: '', created: false });
  });

  it.each([
    ['an unknown source', { source: 'annotation' }, 'source'],
    ['a blank test id', { testId: ' ' }, 'test_id'],
    ['no full title', { fullTitle: '' }, 'full_title'],
    ['no project', { projectId: '' }, 'project_id'],
  ])('refuses %s (VALIDATION_ERROR)', async (_label, over, path) => {
    const req = { projectId: newProject(), caseRef: 'TC-1', testId: 't', fullTitle: 'f', source: 'manual_link', ...over };
    expect((await failure(s.client.linkAutomatedTest(req))).paths).toEqual([path]);
  });
});
