/**
 * The `manual-test-suites` family's handlers (handlers/manual-test-suites.ts over store/manual-test-suites.ts):
 * creation with depth and sibling order, the contract's limits, moves (never under itself, depth ≤ 6), the
 * paged tree list, and who may write.
 */
import { Code } from '@connectrpc/connect';
import { MAX_SUITE_DEPTH, MAX_SUITE_DESCRIPTION, MAX_SUITE_NAME } from '@assay/contracts/manual-testing/values';
import { failure, handlerSuite, newProject, owner, READ_ONLY, type HandlerSuite } from './support';

let s: HandlerSuite;
beforeAll(async () => {
  s = await handlerSuite('manual-test-suites');
});
afterAll(() => s.db.drop());

const create = (projectId: string, name: string, over: Record<string, unknown> = {}) =>
  s.client.createSuite({ projectId, name, ...over }, owner).then((r) => r.suite!);

/** A chain of `n` suites, each under the previous one; returns them root first. */
async function chain(projectId: string, n: number) {
  const out = [await create(projectId, 'level 1')];
  for (let i = 2; i <= n; i++) out.push(await create(projectId, `level ${i}`, { parentSuiteId: out[out.length - 1]!.id }));
  return out;
}

describe('manual-test-suites handlers', () => {
  it('creates root suites and children with depth, sibling order and the caller as last modifier', async () => {
    const p = newProject();
    const a = await create(p, 'A', { description: 'first' });
    const b = await create(p, 'B');
    const child = await create(p, 'A1', { parentSuiteId: a.id });
    expect(a).toMatchObject({ name: 'A', description: 'first', depth: 1, order: 1, childSuitesCount: 0 });
    expect(a.parentSuite).toBeUndefined();
    expect(a.lastModifiedBy).toMatchObject({ name: 'Ada Tester', email: 'ada@example.test' });
    expect(b).toMatchObject({ depth: 1, order: 2 });
    expect(child).toMatchObject({ depth: 2, order: 1, parentSuite: { id: a.id, name: 'A' } });

    const list = await s.client.listSuites({ projectId: p }, owner);
    expect(list.suites.map((x) => [x.name, x.childSuitesCount, x.children.map((c) => c.name)])).toEqual([
      ['A', 1, ['A1']],
      ['B', 0, []],
    ]);
    expect(list.page).toMatchObject({ page: 1, limit: 10, total: 2n });
  });

  it(`nests at most ${MAX_SUITE_DEPTH} levels`, async () => {
    const p = newProject();
    const levels = await chain(p, MAX_SUITE_DEPTH);
    expect(levels.map((l) => l.depth)).toEqual([1, 2, 3, 4, 5, 6]);
    const deeper = await failure(create(p, 'too deep', { parentSuiteId: levels[MAX_SUITE_DEPTH - 1]!.id }));
    expect(deeper).toMatchObject({ reason: 'VALIDATION_ERROR', paths: ['body.parentSuiteId'] });
    expect(deeper.messages[0]).toContain(`max ${MAX_SUITE_DEPTH}`);
  });

  it.each([
    ['a blank name', { name: '   ' }, 'body.name'],
    [`a name over ${MAX_SUITE_NAME} characters`, { name: 'n'.repeat(MAX_SUITE_NAME + 1) }, 'body.name'],
    [`a description over ${MAX_SUITE_DESCRIPTION} characters`, { description: 'd'.repeat(MAX_SUITE_DESCRIPTION + 1) }, 'body.description'],
    ['a parent of no suite of the project', { parentSuiteId: '0'.repeat(24) }, 'body.parentSuiteId'],
  ])('refuses %s with VALIDATION_ERROR and writes nothing', async (_label, over, path) => {
    const p = newProject();
    const res = await failure(s.client.createSuite({ projectId: p, name: 'ok', ...over }, owner));
    expect(res).toMatchObject({ code: Code.InvalidArgument, reason: 'VALIDATION_ERROR', paths: [path] });
    expect((await s.client.listSuites({ projectId: p }, owner)).page!.total).toBe(0n);
  });

  it('accepts a name of exactly the limit', async () => {
    expect((await create(newProject(), 'n'.repeat(MAX_SUITE_NAME))).name).toHaveLength(MAX_SUITE_NAME);
  });

  it('renames and describes without moving; an empty update is refused', async () => {
    const p = newProject();
    const a = await create(p, 'A', { description: 'old' });
    const renamed = await s.client.updateSuite({ projectId: p, suiteId: a.id, name: 'A2' }, owner);
    expect(renamed.suite).toMatchObject({ id: a.id, name: 'A2', description: 'old', depth: 1 });
    expect(await failure(s.client.updateSuite({ projectId: p, suiteId: a.id }, owner))).toMatchObject({ paths: ['body'] });
    expect((await failure(s.client.updateSuite({ projectId: p, suiteId: a.id, name: ' ' }, owner))).paths).toEqual(['body.name']);
  });

  it('moves a subtree under another suite (depths shift) and back to the top, answering the moved tree', async () => {
    const p = newProject();
    const [a, a1] = await chain(p, 2);
    const b = await create(p, 'B');
    const moved = await s.client.updateSuite({ projectId: p, suiteId: a!.id, parentSuiteId: { value: b.id } }, owner);
    expect(moved.suite).toMatchObject({ depth: 2, parentSuite: { id: b.id }, children: [{ id: a1!.id, depth: 3 }] });
    const top = await s.client.updateSuite({ projectId: p, suiteId: a!.id, parentSuiteId: {} }, owner);
    expect(top.suite).toMatchObject({ depth: 1, children: [{ depth: 2 }] });
    expect(top.suite!.parentSuite).toBeUndefined();
    const roots = await s.client.listSuites({ projectId: p }, owner);
    expect(roots.suites.map((x) => x.name)).toEqual(['B', 'level 1']);
  });

  it('refuses a move under the suite itself or its sub-suites, or one that would nest too deep', async () => {
    const p = newProject();
    const [a, a1] = await chain(p, 2);
    for (const target of [a!.id, a1!.id]) {
      expect(await failure(s.client.updateSuite({ projectId: p, suiteId: a!.id, parentSuiteId: { value: target } }, owner))).toMatchObject({
        reason: 'VALIDATION_ERROR',
        paths: ['body.parentSuiteId'],
      });
    }
    const deep = await chain(p, MAX_SUITE_DEPTH - 1);
    // a (with a1 below it) under the deepest of five levels would reach level 7
    const res = await failure(
      s.client.updateSuite({ projectId: p, suiteId: a!.id, parentSuiteId: { value: deep[deep.length - 1]!.id } }, owner),
    );
    expect(res.messages[0]).toContain(`would be ${MAX_SUITE_DEPTH + 1}`);
    expect(
      (await failure(s.client.updateSuite({ projectId: p, suiteId: a!.id, parentSuiteId: { value: '0'.repeat(24) } }, owner))).paths,
    ).toEqual(['body.parentSuiteId']);
  });

  it('answers NOT_FOUND for an unknown suite and a suite of another project', async () => {
    const a = await create(newProject(), 'A');
    for (const [projectId, suiteId] of [
      [newProject(), a.id],
      [newProject(), '0'.repeat(24)],
    ]) {
      expect((await failure(s.client.updateSuite({ projectId, suiteId, name: 'x' }, owner))).reason).toBe('NOT_FOUND');
    }
  });

  it('pages over root suites with the kit paging (limit clamped to 100)', async () => {
    const p = newProject();
    for (const name of ['A', 'B', 'C']) await create(p, name);
    const second = await s.client.listSuites({ projectId: p, page: { page: 2, limit: 2 } }, owner);
    expect(second.suites.map((x) => x.name)).toEqual(['C']);
    expect(second.page).toMatchObject({ page: 2, limit: 2, total: 3n });
    expect((await s.client.listSuites({ projectId: p, page: { page: 1, limit: 1000 } }, owner)).page!.limit).toBe(100);
  });

  it.each(READ_ONLY)('refuses writes by %s (FORBIDDEN) but lets it list', async (_label, caller) => {
    const p = newProject();
    const a = await create(p, 'A');
    expect((await failure(s.client.createSuite({ projectId: p, name: 'x' }, caller))).reason).toBe('FORBIDDEN');
    expect((await failure(s.client.updateSuite({ projectId: p, suiteId: a.id, name: 'x' }, caller))).reason).toBe('FORBIDDEN');
    expect((await s.client.listSuites({ projectId: p }, caller)).suites.map((x) => x.name)).toEqual(['A']);
  });
});
