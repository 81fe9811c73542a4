/**
 * The `workflow-rules` family's handlers (handlers/workflow-rules.ts over store/action-rules.ts): the admin CLI's
 * rule:create checks and rule:disable, and the list with the derived status (active, expired, disabled), its
 * filter and the kit's paging, in the contract's enums; and the admin CLI's `rules` in bounded keyset pages.
 */
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { RuleOperation, RuleStatus } from '@assay/proto/assay/runs/v1/runs_pb';
import { as, principal } from '@assay/testkit';
import { failure, runsUnit, type RunsUnit } from './support';

let u: RunsUnit;
const viewer = as(principal('viewer'));
const P = '2'.repeat(24);

const rule = (over: Record<string, unknown> = {}) =>
  u.admin.createRule({ projectId: P, name: 'Skip flaky login', operations: [RuleOperation.SKIP], titlePattern: 'login', ...over });

beforeAll(async () => {
  u = await runsUnit('runs_workflow_rules');
});
afterAll(() => u.db.drop());

describe('workflow-rules handlers', () => {
  it.each([
    ['no project', { projectId: '' }, ['project']],
    ['a blank name', { name: '  ' }, ['name']],
    ['no operation', { operations: [] }, ['operations']],
    ['an UNSPECIFIED operation', { operations: [RuleOperation.SKIP, RuleOperation.UNSPECIFIED] }, ['operations']],
    ['the tag operation without its tag', { operations: [RuleOperation.TAG] }, ['tag']],
    ['nothing to match', { titlePattern: '' }, ['title-pattern']],
    ['an invalid regular expression', { titlePattern: '(' }, ['title-pattern']],
    ['a lookahead (RE2 has none)', { titlePattern: 'login(?=.*sso)' }, ['title-pattern']],
    ['a backreference (RE2 has none)', { titlePattern: '(a)\\1' }, ['title-pattern']],
    ['a pattern over 500 characters', { titlePattern: 'a'.repeat(501) }, ['title-pattern']],
  ])('rule:create refuses %s, naming the flag', async (_label, over, paths) => {
    expect(await failure(rule(over))).toMatchObject({ reason: 'VALIDATION_ERROR', paths });
  });

  it('lists the rules newest first with their operations, match criteria and derived status; filters by status', async () => {
    const active = await rule({ operations: [RuleOperation.SKIP, RuleOperation.SKIP, RuleOperation.TAG], tag: '@slow', file: 'a.spec.ts' });
    const expired = await rule({ name: 'Old', expiresAt: timestampFromDate(new Date(Date.now() - 60_000)) });
    const disabled = await rule({ name: 'Off', operations: [RuleOperation.QUARANTINE], titlePattern: '', matchTag: 'smoke' });
    await u.admin.disableRule({ id: disabled.id, projectId: P });

    const all = await u.runs.listWorkflowRules({ projectId: P }, viewer);
    expect(all.page).toMatchObject({ page: 1, limit: 10, total: 3n });
    expect(all.rules.map((r) => [r.id, r.status])).toEqual([
      [disabled.id, RuleStatus.DISABLED],
      [expired.id, RuleStatus.EXPIRED],
      [active.id, RuleStatus.ACTIVE],
    ]);
    expect(all.rules[2]).toMatchObject({
      name: 'Skip flaky login',
      operations: [RuleOperation.SKIP, RuleOperation.TAG],
      titlePattern: 'login',
      file: 'a.spec.ts',
      tag: '@slow',
      enabled: true,
      createdBy: 'admin-cli',
    });
    expect(all.rules[0]).toMatchObject({ operations: [RuleOperation.QUARANTINE], matchTag: 'smoke', enabled: false });
    for (const [status, id] of [
      [RuleStatus.ACTIVE, active.id],
      [RuleStatus.EXPIRED, expired.id],
      [RuleStatus.DISABLED, disabled.id],
    ] as const) {
      expect((await u.runs.listWorkflowRules({ projectId: P, status }, viewer)).rules.map((r) => r.id)).toEqual([id]);
    }
    const paged = await u.runs.listWorkflowRules({ projectId: P, page: { page: 2, limit: 2 } }, viewer);
    expect(paged.rules.map((r) => r.id)).toEqual([active.id]);
    expect((await failure(u.runs.listWorkflowRules({ projectId: P, status: RuleStatus.UNSPECIFIED }, viewer))).paths).toEqual([
      'query.status',
    ]);
  });

  it('a rule expires by the service clock', async () => {
    const p = '3'.repeat(24);
    await u.admin.createRule({
      projectId: p,
      name: 'Soon',
      operations: [RuleOperation.SKIP],
      titlePattern: 'x',
      expiresAt: timestampFromDate(new Date(Date.now() + 3600_000)),
    });
    expect((await u.runs.listWorkflowRules({ projectId: p }, viewer)).rules[0]!.status).toBe(RuleStatus.ACTIVE);
    u.shift(2 * 3600_000);
    try {
      expect((await u.runs.listWorkflowRules({ projectId: p }, viewer)).rules[0]!.status).toBe(RuleStatus.EXPIRED);
    } finally {
      u.shift(-2 * 3600_000);
    }
  });

  it('rule:disable needs the rule, and of the project when one is given', async () => {
    const { id } = await rule();
    expect((await failure(u.admin.disableRule({ id, projectId: 'f'.repeat(24) }))).reason).toBe('NOT_FOUND');
    expect((await failure(u.admin.disableRule({ id: 'nope' }))).reason).toBe('NOT_FOUND');
    await u.admin.disableRule({ id });
    expect((await u.runs.listWorkflowRules({ projectId: P, status: RuleStatus.DISABLED }, viewer)).rules.map((r) => r.id)).toContain(id);
  });

  it("rules (the admin CLI's list): a project's rules newest first by id with their status, in bounded keyset pages", async () => {
    const p = '4'.repeat(24);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++)
      ids.push((await u.admin.createRule({ projectId: p, name: `R${i}`, operations: [RuleOperation.TAG], tag: 't', file: 'a' })).id);
    await u.admin.disableRule({ id: ids[0]! });
    const newestFirst = [...ids].sort().reverse();

    const all = await u.admin.listRules({ projectId: p });
    expect([all.rules.map((r) => r.id), all.nextPageToken]).toEqual([newestFirst, '']);
    expect(all.rules.find((r) => r.id === ids[0])).toMatchObject({ name: 'R0', enabled: false, status: RuleStatus.DISABLED });
    const first = await u.admin.listRules({ projectId: p, pageSize: 2 });
    expect([first.rules.map((r) => r.id), first.nextPageToken]).toEqual([newestFirst.slice(0, 2), newestFirst[1]]);
    const second = await u.admin.listRules({ projectId: p, pageSize: 2, pageToken: first.nextPageToken });
    expect([second.rules.map((r) => r.id), second.nextPageToken]).toEqual([newestFirst.slice(2), '']);

    // An unknown project has none (the runs service knows no projects).
    expect((await u.admin.listRules({ projectId: 'e'.repeat(24) })).rules).toEqual([]);
    expect((await failure(u.admin.listRules({ projectId: '' }))).reason).toBe('VALIDATION_ERROR');
    expect((await failure(u.admin.listRules({ projectId: p, pageToken: 'zz' }))).paths).toEqual(['page_token']);
  });
});
