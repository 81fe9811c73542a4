/**
 * Manual test cases over HTTP against the real gateway, service and Postgres: the create and update bodies
 * of spec §4.4 (every rule, accepted and rejected side), the §2.3 read shape field by field, CONTRACT §2
 * filters, reads by `_id` and `TC-<n>`, roles, and "never half-written".
 */
import { testApi } from '@assay/testkit';
import { admin, allKeys, expectValidation, ID, ISO, makeCase, makeSuite, newProject, type Project } from './support/manual-testing';

const LIST_ITEM_KEYS = [
  '_id',
  'attachments',
  'automation',
  'caseId',
  'classification',
  'createdAt',
  'customFields',
  'description',
  'linkedTests',
  'metadata',
  'postconditions',
  'preconditions',
  'steps',
  'tags',
  'title',
  'updatedAt',
];

/** A classic step nested `levels` levels of sub-steps deep. */
function nestedClassic(levels: number): any {
  let step: any = { action: `level ${levels}` };
  for (let l = levels - 1; l >= 0; l--) step = { action: `level ${l}`, subSteps: [step] };
  return step;
}

describe('manual test cases: create', () => {
  let p: Project;
  let suite: any;
  beforeAll(async () => {
    p = await newProject('owner');
    suite = await makeSuite(p, { name: 'Checkout' });
  });

  it('answers 201 with the §2.3 fields, defaults and mapped write fields', async () => {
    const w = await p.writer();
    const res = await w.post(`${p.P}/manual-test-cases`, {
      title: 'Pay with a saved card',
      suiteName: 'Checkout',
      description: 'd',
      preconditions: 'pre',
      postconditions: 'post',
      testStepsDeclarationType: 'Classic',
      steps: [
        { action: 'Open the cart', expectedResult: 'Cart shows 1 item', data: 'sku-1', subSteps: [{ action: 'Check total' }] },
        { action: 'Pay' },
      ],
      tags: 'smoke, login,,smoke',
      flags: ['Is flaky', 'Muted', 'To be Automated'],
      customFields: { component: 'payments' },
    });
    expect(res.status).toBe(201);
    const c = res.body.data;
    expect(c).toEqual({
      _id: expect.stringMatching(ID),
      caseId: expect.stringMatching(/^TC-\d+$/),
      title: 'Pay with a saved card',
      description: 'd',
      preconditions: 'pre',
      postconditions: 'post',
      metadata: { suite: { _id: suite._id, name: 'Checkout' }, lastModifiedBy: { name: w.user.name, email: w.user.email } },
      classification: { status: 'active', severity: 'not_set', priority: 'not_set', type: 'other', layer: 'not_set', behavior: 'not_set' },
      automation: { status: 'manual', isFlaky: true, isMuted: true },
      steps: {
        type: 'classic',
        classic: [
          {
            step: 1,
            action: 'Open the cart',
            data: 'sku-1',
            expectedResult: 'Cart shows 1 item',
            subSteps: [{ step: 1, action: 'Check total', data: '', expectedResult: '', subSteps: [] }],
          },
          { step: 2, action: 'Pay', data: '', expectedResult: '', subSteps: [] },
        ],
        gherkin: [],
      },
      tags: ['smoke', 'login'],
      customFields: { component: 'payments' },
      linkedTests: [],
      attachments: [],
      createdAt: expect.stringMatching(ISO),
      updatedAt: expect.stringMatching(ISO),
      flags: ['To be Automated', 'Is flaky', 'Muted'],
      comments: [],
      issues: [],
    });
  });

  it('maps Gherkin {event, stepDescription} to {keyword, text}', async () => {
    const c = await makeCase(p, {
      title: 'Gherkin',
      suiteId: suite._id,
      testStepsDeclarationType: 'Gherkin',
      steps: [
        { event: 'Given', stepDescription: 'a cart', subSteps: [{ event: 'and', stepDescription: 'a card' }] },
        { event: 'When', stepDescription: 'I pay' },
        { event: 'Then', stepDescription: 'it is paid' },
        { event: 'But', stepDescription: 'no mail' },
      ],
    });
    expect(c.steps).toEqual({
      type: 'gherkin',
      classic: [],
      gherkin: [
        { step: 1, keyword: 'Given', text: 'a cart', subSteps: [{ step: 1, keyword: 'And', text: 'a card', subSteps: [] }] },
        { step: 2, keyword: 'When', text: 'I pay', subSteps: [] },
        { step: 3, keyword: 'Then', text: 'it is paid', subSteps: [] },
        { step: 4, keyword: 'But', text: 'no mail', subSteps: [] },
      ],
    });
  });

  it('accepts display forms of classification values and stores the canonical forms', async () => {
    const c = await makeCase(p, {
      title: 'Display forms',
      suiteId: suite._id,
      status: 'Draft',
      severity: 'Critical',
      priority: 'Not set',
      type: 'E2E',
      layer: 'API',
      behavior: 'Negative',
      automationStatus: 'Automated',
    });
    expect(c.classification).toEqual({
      status: 'draft',
      severity: 'critical',
      priority: 'not_set',
      type: 'e2e',
      layer: 'api',
      behavior: 'negative',
    });
    expect(c.automation.status).toBe('automated');
    const canonical = await makeCase(p, {
      title: 'Canonical forms',
      suiteId: suite._id,
      status: 'deprecated',
      severity: 'not_set',
      priority: 'high',
      type: 'accessibility',
      layer: 'unit',
      behavior: 'destructive',
      automationStatus: 'manual',
      flags: ['to_be_automated'],
    });
    expect(canonical.classification).toEqual({
      status: 'deprecated',
      severity: 'not_set',
      priority: 'high',
      type: 'accessibility',
      layer: 'unit',
      behavior: 'destructive',
    });
    expect(canonical.flags).toEqual(['To be Automated']);
    expect(canonical.automation).toEqual({ status: 'manual', isFlaky: false, isMuted: false });
  });

  it.each([
    ['status', 'archived'],
    ['severity', 'urgent'],
    ['priority', 'p1'],
    ['type', 'manual'],
    ['layer', 'ui'],
    ['behavior', 'neutral'],
    ['automationStatus', 'to_be_automated'],
  ])('rejects an unknown %s value (%s) with 400', async (field, value) => {
    const w = await p.writer();
    expectValidation(await w.post(`${p.P}/manual-test-cases`, { title: 'x', suiteId: suite._id, [field]: value }), `body.${field}`);
  });

  describe('suite targeting', () => {
    it('matches suiteName case-sensitively and never creates a suite', async () => {
      const w = await p.writer();
      expectValidation(await w.post(`${p.P}/manual-test-cases`, { title: 'x', suiteName: 'checkout' }), 'body.suiteName');
      expectValidation(await w.post(`${p.P}/manual-test-cases`, { title: 'x', suiteName: 'Nope' }), 'body.suiteName');
      const suites = await w.get(`${p.P}/manual-test-suites?limit=100`);
      expect(JSON.stringify(suites.body)).not.toMatch(/"(checkout|Nope)"/);
    });

    it('lets suiteId win when both are sent', async () => {
      const other = await makeSuite(p, { name: 'Other' });
      const c = await makeCase(p, { title: 'Both', suiteName: 'Checkout', suiteId: other._id });
      expect(c.metadata.suite).toEqual({ _id: other._id, name: 'Other' });
      const unknownName = await makeCase(p, { title: 'Both2', suiteName: 'No such suite', suiteId: other._id });
      expect(unknownName.metadata.suite._id).toBe(other._id);
    });

    it('requires suiteName or suiteId, refuses an unknown suiteId and a suite of another project', async () => {
      const w = await p.writer();
      expectValidation(await w.post(`${p.P}/manual-test-cases`, { title: 'x' }), 'body.suiteId');
      expectValidation(await w.post(`${p.P}/manual-test-cases`, { title: 'x', suiteId: '0123456789abcdef01234567' }), 'body.suiteId');
      const q = await newProject('owner');
      const foreign = await makeSuite(q, { name: 'Checkout' });
      expectValidation(await w.post(`${p.P}/manual-test-cases`, { title: 'x', suiteId: foreign._id }), 'body.suiteId');
    });

    it('refuses a suiteName that several suites share (send suiteId instead)', async () => {
      const q = await newProject('owner');
      const a = await makeSuite(q, { name: 'A' });
      await makeSuite(q, { name: 'Dup' });
      await makeSuite(q, { name: 'Dup', parentSuiteId: a._id });
      expectValidation(await q.api.post(`${q.P}/manual-test-cases`, { title: 'x', suiteName: 'Dup' }), 'body.suiteName');
    });

    it.each([
      ['suiteName of 500 characters', 'n'.repeat(500), 400, 'body.suiteName'],
      ['suiteName of 501 characters', 'n'.repeat(501), 400, 'body.suiteName'],
    ])('%s: length is checked before lookup', async (_l, name, status, path) => {
      // 500 passes the length rule and then names no suite (400 from the lookup); 501 fails the length rule.
      const w = await p.writer();
      const res = await w.post(`${p.P}/manual-test-cases`, { title: 'x', suiteName: name });
      expect(res.status).toBe(status);
      expectValidation(res, path);
      const msg = res.body.error.details[0].message as string;
      if (name.length === 500) expect(msg).toMatch(/names no suite/);
      else expect(msg).toMatch(/500/);
    });

    it('accepts a suiteName of exactly 500 characters naming a suite, and a suiteId up to 128 characters', async () => {
      const long = await makeSuite(p, { name: 'L'.repeat(500) });
      const c = await makeCase(p, { title: 'long suite name', suiteName: 'L'.repeat(500) });
      expect(c.metadata.suite._id).toBe(long._id);
      const w = await p.writer();
      expectValidation(await w.post(`${p.P}/manual-test-cases`, { title: 'x', suiteId: 'a'.repeat(129) }), 'body.suiteId');
      // 128 characters passes the length rule and names no suite
      const res = await w.post(`${p.P}/manual-test-cases`, { title: 'x', suiteId: 'a'.repeat(128) });
      expectValidation(res, 'body.suiteId');
      expect(res.body.error.details[0].message).toMatch(/names no suite/);
    });
  });

  describe('field rules and limits (accepted and rejected side)', () => {
    const S = () => ({ suiteName: 'Checkout' });
    it.each<[string, () => Record<string, unknown>, number, string?]>([
      ['title of 500 characters', () => ({ title: 't'.repeat(500) }), 201],
      ['title of 501 characters', () => ({ title: 't'.repeat(501) }), 400, 'body.title'],
      ['empty title', () => ({ title: '' }), 400, 'body.title'],
      ['blank title', () => ({ title: '   ' }), 400, 'body.title'],
      ['missing title', () => ({}), 400, 'body.title'],
      ['100 steps', () => ({ title: 's', steps: Array.from({ length: 100 }, (_, i) => ({ action: `a${i}` })) }), 201],
      ['101 steps', () => ({ title: 's', steps: Array.from({ length: 101 }, (_, i) => ({ action: `a${i}` })) }), 400, 'body.steps'],
      ['action of 5000 characters', () => ({ title: 's', steps: [{ action: 'a'.repeat(5000) }] }), 201],
      ['action of 5001 characters', () => ({ title: 's', steps: [{ action: 'a'.repeat(5001) }] }), 400, 'body.steps.0.action'],
      ['expectedResult of 5000', () => ({ title: 's', steps: [{ action: 'a', expectedResult: 'e'.repeat(5000) }] }), 201],
      [
        'expectedResult of 5001',
        () => ({ title: 's', steps: [{ action: 'a', expectedResult: 'e'.repeat(5001) }] }),
        400,
        'body.steps.0.expectedResult',
      ],
      ['data of 5000', () => ({ title: 's', steps: [{ action: 'a', data: 'd'.repeat(5000) }] }), 201],
      ['data of 5001', () => ({ title: 's', steps: [{ action: 'a', data: 'd'.repeat(5001) }] }), 400, 'body.steps.0.data'],
      [
        'stepDescription of 5000',
        () => ({ title: 's', testStepsDeclarationType: 'Gherkin', steps: [{ event: 'Given', stepDescription: 'g'.repeat(5000) }] }),
        201,
      ],
      [
        'stepDescription of 5001',
        () => ({ title: 's', testStepsDeclarationType: 'Gherkin', steps: [{ event: 'Given', stepDescription: 'g'.repeat(5001) }] }),
        400,
        'body.steps.0.stepDescription',
      ],
      [
        'a sub-step text of 5001',
        () => ({ title: 's', steps: [{ action: 'a', subSteps: [{ action: 'x'.repeat(5001) }] }] }),
        400,
        'body.steps.0.subSteps.0.action',
      ],
      ['sub-steps nested 5 levels', () => ({ title: 's', steps: [nestedClassic(5)] }), 201],
      [
        'sub-steps nested 6 levels',
        () => ({ title: 's', steps: [nestedClassic(6)] }),
        400,
        'body.steps.0.subSteps.0.subSteps.0.subSteps.0.subSteps.0.subSteps.0.subSteps',
      ],
      ['testStepsDeclarationType Classic', () => ({ title: 's', testStepsDeclarationType: 'Classic' }), 201],
      [
        'testStepsDeclarationType other than Classic/Gherkin',
        () => ({ title: 's', testStepsDeclarationType: 'BDD' }),
        400,
        'body.testStepsDeclarationType',
      ],
      [
        'Gherkin step fields under Classic',
        () => ({ title: 's', testStepsDeclarationType: 'Classic', steps: [{ event: 'Given', stepDescription: 'x' }] }),
        400,
        'body.steps.0.event',
      ],
      [
        'Classic step fields under Gherkin',
        () => ({ title: 's', testStepsDeclarationType: 'Gherkin', steps: [{ action: 'x' }] }),
        400,
        'body.steps.0.action',
      ],
      [
        'a Gherkin keyword that is not Given/When/Then/And/But',
        () => ({ title: 's', steps: [{ event: 'Whenever', stepDescription: 'x' }] }),
        400,
        'body.steps.0.event',
      ],
      ['a Gherkin step without stepDescription', () => ({ title: 's', steps: [{ event: 'Given' }] }), 400, 'body.steps.0.stepDescription'],
      ['an empty classic step', () => ({ title: 's', steps: [{}] }), 400, 'body.steps.0'],
      [
        'a per-step attachment (unsupported)',
        () => ({ title: 's', steps: [{ action: 'a', attachments: [] }] }),
        400,
        'body.steps.0.attachments',
      ],
      ['flags To be Automated, Is flaky, Muted', () => ({ title: 's', flags: ['To be Automated', 'Is flaky', 'Muted'] }), 201],
      ['an unknown flag', () => ({ title: 's', flags: ['Flaky sometimes'] }), 400, 'body.flags.0'],
      ['tags as a comma-separated string', () => ({ title: 's', tags: 'a,b' }), 201],
      ['tags as an array', () => ({ title: 's', tags: ['a', 'b'] }), 400, 'body.tags'],
      ['customFields with string values', () => ({ title: 's', customFields: { team: 'web', 'free text': 'x' } }), 201],
      ['a customFields value that is a number', () => ({ title: 's', customFields: { team: 3 } }), 400, 'body.customFields'],
      ['a customFields value that is null', () => ({ title: 's', customFields: { team: null } }), 400, 'body.customFields'],
      ['a customFields key starting with $', () => ({ title: 's', customFields: { $where: 'x' } }), 400, 'body.customFields'],
      ['a customFields key containing a dot', () => ({ title: 's', customFields: { 'a.b': 'x' } }), 400, 'body.customFields'],
      ['a $ inside a customFields key (not at the start)', () => ({ title: 's', customFields: { price$: 'x' } }), 201],
      ['an unknown property', () => ({ title: 's', project: 'p' }), 400, 'body.project'],
      ['createdBy (internal)', () => ({ title: 's', createdBy: 'me' }), 400, 'body.createdBy'],
      ['comments on create (update only)', () => ({ title: 's', comments: ['x'] }), 400, 'body.comments'],
      ['name on create (title is required)', () => ({ name: 's' }), 400, 'body.title'],
      ['description as a number', () => ({ title: 's', description: 5 }), 400, 'body.description'],
      // Rest parameters: jest would take a fourth declared parameter missing from a row for a `done` callback.
    ])('%s → %i', async (...[, body, status, path]) => {
      const w = await p.writer();
      const res = await w.post(`${p.P}/manual-test-cases`, { ...S(), ...body() });
      expect(res.status).toBe(status);
      if (status === 400) expectValidation(res, path);
    });
  });

  it('gives a case a number per project: TC-1, TC-2, … independent of other projects', async () => {
    const q = await newProject('owner');
    await makeSuite(q, { name: 'S' });
    const a = await makeCase(q, { title: 'a', suiteName: 'S' });
    const b = await makeCase(q, { title: 'b', suiteName: 'S' });
    expect([a.caseId, b.caseId]).toEqual(['TC-1', 'TC-2']);
    const r = await newProject('owner');
    await makeSuite(r, { name: 'S' });
    expect((await makeCase(r, { title: 'a', suiteName: 'S' })).caseId).toBe('TC-1');
  });

  it('does not use up a number on a refused create', async () => {
    const q = await newProject('owner');
    await makeSuite(q, { name: 'S' });
    expect((await makeCase(q, { title: 'a', suiteName: 'S' })).caseId).toBe('TC-1');
    expectValidation(await q.api.post(`${q.P}/manual-test-cases`, { title: 'b', suiteName: 'missing' }));
    expect((await makeCase(q, { title: 'c', suiteName: 'S' })).caseId).toBe('TC-2');
  });
});

describe('manual test cases: update', () => {
  let p: Project;
  beforeAll(async () => {
    p = await newProject('owner');
    await makeSuite(p, { name: 'S' });
  });
  const fresh = (body: Record<string, unknown> = {}) => makeCase(p, { title: 'Case', suiteName: 'S', ...body });

  it('changes only the fields sent and records who changed it', async () => {
    const c = await fresh({ description: 'keep', severity: 'major', tags: 'a' });
    const w = await p.writer();
    const res = await w.patch(`${p.P}/manual-test-cases/${c._id}`, { priority: 'High', preconditions: 'pre' });
    expect(res.status).toBe(200);
    const u = res.body.data;
    expect(u.classification).toEqual({ ...c.classification, priority: 'high' });
    expect(u.description).toBe('keep');
    expect(u.preconditions).toBe('pre');
    expect(u.tags).toEqual(['a']);
    expect(u.caseId).toBe(c.caseId);
    expect(u.createdAt).toBe(c.createdAt);
    expect(Date.parse(u.updatedAt)).toBeGreaterThanOrEqual(Date.parse(c.updatedAt));
    expect(u.metadata.lastModifiedBy).toEqual({ name: w.user.name, email: w.user.email });
  });

  it('accepts name as an alias of title, and both when equal; refuses both when they differ', async () => {
    const c = await fresh();
    expect((await p.api.patch(`${p.P}/manual-test-cases/${c._id}`, { name: 'Renamed' })).body.data.title).toBe('Renamed');
    expect((await p.api.patch(`${p.P}/manual-test-cases/${c._id}`, { name: 'Same', title: 'Same' })).body.data.title).toBe('Same');
    expectValidation(await p.api.patch(`${p.P}/manual-test-cases/${c._id}`, { name: 'A', title: 'B' }), 'body.name');
    expect((await p.api.patch(`${p.P}/manual-test-cases/${c._id}`, { name: 'n'.repeat(500) })).status).toBe(200);
    expectValidation(await p.api.patch(`${p.P}/manual-test-cases/${c._id}`, { name: 'n'.repeat(501) }), 'body.name');
    expectValidation(await p.api.patch(`${p.P}/manual-test-cases/${c._id}`, { title: 't'.repeat(501) }), 'body.title');
  });

  it('replaces the whole step list', async () => {
    const c = await fresh({ steps: [{ action: 'one' }, { action: 'two' }, { action: 'three' }] });
    const u = (await p.api.patch(`${p.P}/manual-test-cases/${c._id}`, { steps: [{ action: 'only', expectedResult: 'ok' }] })).body.data;
    expect(u.steps.classic).toEqual([{ step: 1, action: 'only', data: '', expectedResult: 'ok', subSteps: [] }]);
    const cleared = (await p.api.patch(`${p.P}/manual-test-cases/${c._id}`, { steps: [] })).body.data;
    expect(cleared.steps.classic).toEqual([]);
  });

  it('switches to Gherkin steps and keeps the classic list aside', async () => {
    const c = await fresh({ steps: [{ action: 'one' }] });
    const u = (
      await p.api.patch(`${p.P}/manual-test-cases/${c._id}`, {
        testStepsDeclarationType: 'Gherkin',
        steps: [{ event: 'Given', stepDescription: 'x' }],
      })
    ).body.data;
    expect(u.steps.type).toBe('gherkin');
    expect(u.steps.gherkin).toEqual([{ step: 1, keyword: 'Given', text: 'x', subSteps: [] }]);
    expect(u.steps.classic.map((s: any) => s.action)).toEqual(['one']);
    const back = (await p.api.patch(`${p.P}/manual-test-cases/${c._id}`, { testStepsDeclarationType: 'Classic' })).body.data;
    expect(back.steps.type).toBe('classic');
  });

  it('enforces the step limits on update too', async () => {
    const c = await fresh();
    const w = await p.writer();
    const url = `${p.P}/manual-test-cases/${c._id}`;
    expect((await w.patch(url, { steps: Array.from({ length: 100 }, () => ({ action: 'a' })) })).status).toBe(200);
    expectValidation(await w.patch(url, { steps: Array.from({ length: 101 }, () => ({ action: 'a' })) }), 'body.steps');
    expect((await w.patch(url, { steps: [nestedClassic(5)] })).status).toBe(200);
    expectValidation(await w.patch(url, { steps: [nestedClassic(6)] }), 'body.steps.0');
    expectValidation(await w.patch(url, { steps: [{ action: 'a'.repeat(5001) }] }), 'body.steps.0.action');
    expectValidation(await w.patch(url, { testStepsDeclarationType: 'gherkin' }), 'body.testStepsDeclarationType');
  });

  it('appends comments (≤ 20 per update, sanitized) and links issues (≤ 50 per update)', async () => {
    const c = await fresh();
    const url = `${p.P}/manual-test-cases/TC-${c.caseId.slice(3)}`;
    const first = (await p.api.patch(url, { comments: ['<b>first</b><script>alert(1)</script>', 'second'], issues: ['JIRA-1'] })).body.data;
    expect(first.comments.map((m: any) => m.text)).toEqual(['<b>first</b>', 'second']);
    expect(first.comments[0]).toEqual({
      _id: expect.stringMatching(ID),
      text: '<b>first</b>',
      author: { name: p.t.name, email: p.t.email },
      createdAt: expect.stringMatching(ISO),
    });
    expect(first.issues).toEqual(['JIRA-1']);
    const w = await p.writer();
    const twenty = (await w.patch(url, { comments: Array.from({ length: 20 }, (_, i) => `c${i}`) })).body.data;
    expect(twenty.comments).toHaveLength(22);
    const fifty = (await w.patch(url, { issues: Array.from({ length: 50 }, (_, i) => `JIRA-${i}`) })).body.data;
    expect(fifty.issues).toHaveLength(50); // JIRA-1 was linked already
    expect(fifty.issues[0]).toBe('JIRA-1');
    expectValidation(await w.patch(url, { comments: Array.from({ length: 21 }, (_, i) => `c${i}`) }), 'body.comments');
    expectValidation(await w.patch(url, { issues: Array.from({ length: 51 }, (_, i) => `X-${i}`) }), 'body.issues');
    expectValidation(await w.patch(url, { comments: [''] }), 'body.comments.0');
    const after = (await w.get(url)).body.data;
    expect(after.comments).toHaveLength(22);
  });

  it('replaces flags and customFields and re-splits tags', async () => {
    const c = await fresh({ flags: ['Is flaky'], customFields: { a: '1', b: '2' }, tags: 'x,y' });
    const u = (await p.api.patch(`${p.P}/manual-test-cases/${c._id}`, { flags: ['Muted'], customFields: { c: '3' }, tags: ' z , ' })).body
      .data;
    expect(u.automation).toEqual({ status: 'manual', isFlaky: false, isMuted: true });
    expect(u.flags).toEqual(['Muted']);
    expect(u.customFields).toEqual({ c: '3' });
    expect(u.tags).toEqual(['z']);
    expectValidation(await p.api.patch(`${p.P}/manual-test-cases/${c._id}`, { customFields: { $x: '1' } }), 'body.customFields');
    expectValidation(await p.api.patch(`${p.P}/manual-test-cases/${c._id}`, { customFields: { 'x.y': '1' } }), 'body.customFields');
    expectValidation(await p.api.patch(`${p.P}/manual-test-cases/${c._id}`, { customFields: { x: true } }), 'body.customFields');
    expectValidation(await p.api.patch(`${p.P}/manual-test-cases/${c._id}`, { flags: ['Broken'] }), 'body.flags.0');
    expectValidation(await p.api.patch(`${p.P}/manual-test-cases/${c._id}`, { severity: 'Huge' }), 'body.severity');
    const display = (await p.api.patch(`${p.P}/manual-test-cases/${c._id}`, { severity: 'Not set', automationStatus: 'Automated' })).body
      .data;
    expect(display.classification.severity).toBe('not_set');
    expect(display.automation.status).toBe('automated');
  });

  it.each<[string, unknown]>([
    ['an empty body', {}],
    ['suite targeting (create only)', { suiteName: 'S' }],
    ['suiteId (create only)', { suiteId: '0123456789abcdef01234567' }],
    ['an unknown property', { owner: 'x' }],
  ])('refuses %s with 400', async (_label, body) => {
    const c = await fresh();
    expectValidation(await p.api.patch(`${p.P}/manual-test-cases/${c._id}`, body));
  });

  it('is never half-written: a refused update leaves the case as it was', async () => {
    const c = await fresh({ description: 'before' });
    const res = await p.api.patch(`${p.P}/manual-test-cases/${c._id}`, {
      description: 'after',
      comments: ['ok'],
      severity: 'not-a-severity',
    });
    expectValidation(res, 'body.severity');
    const now = (await p.api.get(`${p.P}/manual-test-cases/${c._id}`)).body.data;
    expect(now.description).toBe('before');
    expect(now.comments).toEqual([]);
    expect(now.updatedAt).toBe(c.updatedAt);
  });

  it('answers 404 for an unknown case, a case number never given, and a case of another project', async () => {
    expect((await p.api.patch(`${p.P}/manual-test-cases/0123456789abcdef01234567`, { title: 'x' })).status).toBe(404);
    expect((await p.api.patch(`${p.P}/manual-test-cases/TC-99999`, { title: 'x' })).body.error.code).toBe('NOT_FOUND');
    const q = await newProject('owner');
    await makeSuite(q, { name: 'S' });
    const foreign = await makeCase(q, { title: 'f', suiteName: 'S' });
    expect((await p.api.patch(`${p.P}/manual-test-cases/${foreign._id}`, { title: 'x' })).status).toBe(404);
    expect((await p.api.get(`${p.P}/manual-test-cases/${foreign._id}`)).status).toBe(404);
  });
});

describe('manual test cases: reads', () => {
  let p: Project;
  let suiteA: any;
  let suiteB: any;
  const cases: any[] = [];
  beforeAll(async () => {
    p = await newProject('owner');
    suiteA = await makeSuite(p, { name: 'A' });
    suiteB = await makeSuite(p, { name: 'B' });
    const w = await p.writer();
    cases.push(
      await makeCase(p, { title: 'Login works', suiteName: 'A', priority: 'high', severity: 'critical', tags: 'smoke,login' }),
      await makeCase(p, { title: 'Logout works', suiteName: 'A', type: 'regression', layer: 'e2e', tags: 'login' }, w),
      await makeCase(
        p,
        { title: 'Search 100% match', suiteName: 'B', status: 'draft', behavior: 'negative', automationStatus: 'automated' },
        w,
      ),
      await makeCase(p, { title: 'Profile_page', suiteName: 'B', status: 'deprecated', tags: 'profile' }),
    );
  });

  it('lists cases in the exact §2.3 list-item shape, in case-number order', async () => {
    const res = await p.api.get(`${p.P}/manual-test-cases`);
    expect(res.status).toBe(200);
    expect(res.body.pagination).toEqual({ page: 1, limit: 10, total: 4, hasNext: false, hasPrev: false, hasMore: false });
    expect(res.body.data.map((c: any) => c.caseId)).toEqual(['TC-1', 'TC-2', 'TC-3', 'TC-4']);
    for (const c of res.body.data) {
      expect(Object.keys(c).sort()).toEqual(LIST_ITEM_KEYS);
      expect(Object.keys(c.metadata).sort()).toEqual(['lastModifiedBy', 'suite']);
      expect(Object.keys(c.metadata.lastModifiedBy).sort()).toEqual(['email', 'name']);
      expect(Object.keys(c.metadata.suite).sort()).toEqual(['_id', 'name']);
      expect(Object.keys(c.classification).sort()).toEqual(['behavior', 'layer', 'priority', 'severity', 'status', 'type']);
      expect(Object.keys(c.automation).sort()).toEqual(['isFlaky', 'isMuted', 'status']);
      expect(Object.keys(c.steps).sort()).toEqual(['classic', 'gherkin', 'type']);
      expect(typeof c.title).toBe('string');
      expect(typeof c.description).toBe('string');
      expect(typeof c.preconditions).toBe('string');
      expect(typeof c.postconditions).toBe('string');
      expect(Array.isArray(c.tags)).toBe(true);
      expect(c.customFields).toEqual({});
      expect(c.linkedTests).toEqual([]);
      expect(c.attachments).toEqual([]);
      expect(c.createdAt).toMatch(ISO);
      expect(c.updatedAt).toMatch(ISO);
    }
    const keys = allKeys(res.body.data);
    expect(keys.has('project')).toBe(false);
    expect(keys.has('createdBy')).toBe(false);
    expect(keys.has('projectId')).toBe(false);
  });

  it('keeps project and createdBy out of single reads and write answers too', async () => {
    const one = await p.api.get(`${p.P}/manual-test-cases/${cases[0]._id}`);
    const written = await p.api.patch(`${p.P}/manual-test-cases/${cases[0]._id}`, { postconditions: 'p' });
    for (const body of [one.body, written.body, { data: cases }]) {
      const keys = allKeys(body.data);
      expect(keys.has('project')).toBe(false);
      expect(keys.has('createdBy')).toBe(false);
    }
  });

  it('gets one case by _id and by TC-n (any letter case)', async () => {
    const byId = await p.api.get(`${p.P}/manual-test-cases/${cases[2]._id}`);
    expect(byId.status).toBe(200);
    expect(byId.body.data._id).toBe(cases[2]._id);
    expect(Object.keys(byId.body.data).sort()).toEqual([...LIST_ITEM_KEYS, 'comments', 'flags', 'issues'].sort());
    const byNumber = await p.api.get(`${p.P}/manual-test-cases/TC-3`);
    expect(byNumber.body.data._id).toBe(cases[2]._id);
    expect((await p.api.get(`${p.P}/manual-test-cases/tc-3`)).body.data._id).toBe(cases[2]._id);
    expect((await p.api.get(`${p.P}/manual-test-cases/TC-0`)).status).toBe(404);
    expect((await p.api.get(`${p.P}/manual-test-cases/nope`)).status).toBe(404);
  });

  it.each<[string, string, number[]]>([
    ['suiteId', 'suiteId=SUITE_A', [1, 2]],
    ['status', 'status=draft', [3]],
    ['status (display form)', 'status=Deprecated', [4]],
    ['priority', 'priority=high', [1]],
    ['severity', 'severity=critical', [1]],
    ['type', 'type=regression', [2]],
    ['layer', 'layer=e2e', [2]],
    ['behavior', 'behavior=negative', [3]],
    ['automationStatus', 'automationStatus=automated', [3]],
    ['tags (any of)', 'tags=smoke,profile', [1, 4]],
    ['tags', 'tags=login', [1, 2]],
    ['search in titles, case-insensitive', 'search=LOG', [1, 2]],
    ['search with LIKE wildcards taken literally', 'search=100%25', [3]],
    ['search for an underscore', 'search=_page', [4]],
    ['search by case number', 'search=TC-2', [2]],
    ['several filters together', 'suiteId=SUITE_A&tags=login&priority=high', [1]],
  ])('filters by %s', async (_label, query, numbers) => {
    const res = await p.api.get(`${p.P}/manual-test-cases?${query.replace('SUITE_A', suiteA._id)}`);
    expect(res.status).toBe(200);
    expect(res.body.data.map((c: any) => c.caseId)).toEqual(numbers.map((n) => `TC-${n}`));
    expect(res.body.pagination.total).toBe(numbers.length);
  });

  it('answers an empty page for a suite without cases, and 400 for unknown filter values', async () => {
    const empty = await makeSuite(p, { name: 'Empty', parentSuiteId: suiteB._id });
    expect((await p.api.get(`${p.P}/manual-test-cases?suiteId=${empty._id}`)).body.data).toEqual([]);
    expectValidation(await p.api.get(`${p.P}/manual-test-cases?status=archived`), 'query.status');
    expectValidation(await p.api.get(`${p.P}/manual-test-cases?severity=huge`), 'query.severity');
  });

  it('pages with page and limit (10, 25, 50, 100)', async () => {
    const q = await newProject('owner');
    await makeSuite(q, { name: 'S' });
    const writers = await Promise.all([q.writer(), q.writer()]);
    for (let i = 0; i < 12; i++) await makeCase(q, { title: `c${i}`, suiteName: 'S' }, writers[i % 2]);
    const first = await q.api.get(`${q.P}/manual-test-cases?limit=10&page=1`);
    expect(first.body.pagination).toEqual({ page: 1, limit: 10, total: 12, hasNext: true, hasPrev: false, hasMore: true });
    const second = await q.api.get(`${q.P}/manual-test-cases?limit=10&page=2`);
    expect(second.body.data.map((c: any) => c.caseId)).toEqual(['TC-11', 'TC-12']);
    expect(second.body.pagination).toMatchObject({ hasNext: false, hasPrev: true });
    expect((await q.api.get(`${q.P}/manual-test-cases?limit=25`)).body.data).toHaveLength(12);
    expect((await q.api.get(`${q.P}/manual-test-cases?limit=7`)).body.error.code).toBe('INVALID_LIMIT');
    expectValidation(await q.api.get(`${q.P}/manual-test-cases?page=0`), 'query.page');
  });
});

describe('manual test cases: access', () => {
  it('lets a viewer read but not write (403); api keys may read only (403 on writes)', async () => {
    const p = await newProject('owner');
    await makeSuite(p, { name: 'S' });
    const c = await makeCase(p, { title: 'x', suiteName: 'S' });
    const viewer = await p.writer('viewer');
    expect((await viewer.get(`${p.P}/manual-test-cases`)).status).toBe(200);
    expect((await viewer.get(`${p.P}/manual-test-cases/${c._id}`)).status).toBe(200);
    const create = await viewer.post(`${p.P}/manual-test-cases`, { title: 'y', suiteName: 'S' });
    expect(create.status).toBe(403);
    expect(create.body.error.code).toBe('FORBIDDEN');
    expect((await viewer.patch(`${p.P}/manual-test-cases/${c._id}`, { title: 'z' })).status).toBe(403);
    const key = await admin.apiKey(p.t.projectId);
    const api = testApi(key.token);
    expect((await api.get(`${p.P}/manual-test-cases`)).status).toBe(200);
    expect((await api.post(`${p.P}/manual-test-cases`, { title: 'y', suiteName: 'S' })).status).toBe(403);
    for (const role of ['member', 'admin'] as const) {
      const w = await p.writer(role);
      expect((await w.post(`${p.P}/manual-test-cases`, { title: role, suiteName: 'S' })).status).toBe(201);
    }
    // nothing was written by the refused requests
    const list = await p.api.get(`${p.P}/manual-test-cases`);
    expect(list.body.data.map((x: any) => x.title)).toEqual(['x', 'member', 'admin']);
  });
});
