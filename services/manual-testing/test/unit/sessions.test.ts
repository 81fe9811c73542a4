/**
 * The `sessions` family's handlers (handlers/sessions.ts over store/sessions.ts): the assignee resolved through
 * the organization directory, the sanitized mission, tags, release references, closing (the only status
 * change, stamped with the fixed clock) with the other fields of the same update, the status filter, and who
 * may write.
 */
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { RecordStatus } from '@assay/proto/assay/manualtesting/v1/manual_testing_pb';
import { MAX_RECORD_NAME } from '@assay/contracts/manual-testing/values';
import { ALICE, BOB, failure, handlerSuite, newProject, NOW, owner, READ_ONLY, type HandlerSuite } from './support';

let s: HandlerSuite;
beforeAll(async () => {
  s = await handlerSuite('sessions');
});
afterAll(() => s.db.drop());

const create = (projectId: string, over: Record<string, unknown> = {}) =>
  s.client.createSession({ projectId, name: 'Explore checkout', ...over }, owner).then((r) => r.session!);
const update = (projectId: string, sessionId: string, over: Record<string, unknown>) =>
  s.client.updateSession({ projectId, sessionId, ...over }, owner).then((r) => r.session!);

describe('sessions handlers', () => {
  it('creates an open session with the assignee resolved by e-mail, a sanitized mission, clean tags and a release', async () => {
    const p = newProject();
    const { release } = await s.client.createRelease({ projectId: p, name: 'R' }, owner);
    const x = await create(p, {
      mission: '<p onclick="x()">Find <em>bugs</em></p><script>1</script>',
      assigneeUserId: ALICE.email,
      tags: [' a ', 'b', 'a', ''],
      releaseId: release!.id,
      estimate: 30,
      state: 'ready',
      linkedIssues: [{ url: 'https://issues.example.test/1' }],
    });
    expect(x).toMatchObject({
      name: 'Explore checkout',
      mission: '<p>Find <em>bugs</em></p>',
      assignee: { id: ALICE.id, name: ALICE.name, email: ALICE.email },
      tags: ['a', 'b'],
      releaseId: release!.id,
      estimate: 30,
      state: 'ready',
      linkedIssues: [{ url: 'https://issues.example.test/1' }],
      status: RecordStatus.OPEN,
      lastModifiedBy: { name: 'Ada Tester' },
    });
    expect(x.closedAt).toBeUndefined();
    expect((await s.client.getSession({ projectId: p, sessionId: x.id }, owner)).session).toEqual(x);
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['a blank name', { name: '' }, 'body.name'],
    [`a name over ${MAX_RECORD_NAME} characters`, { name: 'n'.repeat(MAX_RECORD_NAME + 1) }, 'body.name'],
    ['an assignee who is no member', { assigneeUserId: 'eve@example.test' }, 'body.assigneeUserId'],
    ['a negative estimate', { estimate: -1 }, 'body.estimate'],
    ['a release of no release of the project', { releaseId: '0'.repeat(24) }, 'body.releaseId'],
    ['a linked issue without displayId or url', { linkedIssues: [{ provider: 'jira' }] }, 'body.linkedIssues.0'],
  ])('refuses %s (VALIDATION_ERROR) and writes nothing', async (_label, over, path) => {
    const p = newProject();
    expect(await failure(create(p, over))).toMatchObject({ reason: 'VALIDATION_ERROR', paths: [path] });
    expect((await s.client.listSessions({ projectId: p }, owner)).page!.total).toBe(0n);
  });

  it('closes with the clock and applies the other fields sent with it; a closed session stays closed at its time', async () => {
    const p = newProject();
    const x = await create(p, { assigneeUserId: ALICE.id });
    const closed = await update(p, x.id, { status: RecordStatus.CLOSED, name: 'Done', assigneeUserId: { value: BOB.id } });
    expect(closed).toMatchObject({ status: RecordStatus.CLOSED, name: 'Done', assignee: { id: BOB.id } });
    expect(closed.closedAt).toEqual(timestampFromDate(NOW));
    const again = await update(p, x.id, { status: RecordStatus.CLOSED, assigneeUserId: {} });
    expect(again.closedAt).toEqual(closed.closedAt);
    expect(again.assignee).toBeUndefined();
  });

  it('refuses any status change but closing, an unknown assignee, an empty update; detaches a release with null', async () => {
    const p = newProject();
    const { release } = await s.client.createRelease({ projectId: p, name: 'R' }, owner);
    const x = await create(p, { releaseId: release!.id });
    const reopen = await failure(update(p, x.id, { status: RecordStatus.OPEN }));
    expect(reopen).toMatchObject({ paths: ['body.status'], messages: ['must be closed (closing is the only status change)'] });
    expect((await failure(update(p, x.id, { assigneeUserId: { value: 'nobody' } }))).paths).toEqual(['body.assigneeUserId']);
    expect((await failure(update(p, x.id, { releaseId: { value: '0'.repeat(24) } }))).paths).toEqual(['body.releaseId']);
    expect((await failure(update(p, x.id, {}))).paths).toEqual(['body']);
    const detached = await update(p, x.id, { releaseId: {}, tags: { values: ['t'] } });
    expect(detached.releaseId).toBeUndefined();
    expect(detached.tags).toEqual(['t']);
  });

  it('sets and clears the estimate with estimate_minutes; a gateway older than it sends only estimate', async () => {
    const p = newProject();
    const x = await create(p, { estimate: 30 });
    expect((await update(p, x.id, { estimate: 40 })).estimate).toBe(40);
    expect((await update(p, x.id, { estimateMinutes: { value: 50 }, estimate: 50 })).estimate).toBe(50);
    const cleared = await update(p, x.id, { estimateMinutes: {} });
    expect(cleared.estimate).toBeUndefined();
    expect((await s.client.getSession({ projectId: p, sessionId: x.id }, owner)).session!.estimate).toBeUndefined();
    expect((await failure(update(p, x.id, { estimateMinutes: { value: -5 } }))).paths).toEqual(['body.estimate']);
  });

  it('answers NOT_FOUND for an unknown session and a session of another project', async () => {
    const p = newProject();
    const x = await create(p);
    for (const [projectId, sessionId] of [
      [p, '0'.repeat(24)],
      [newProject(), x.id],
    ] as const) {
      expect((await failure(s.client.getSession({ projectId, sessionId }, owner))).reason).toBe('NOT_FOUND');
      expect((await failure(update(projectId, sessionId, { name: 'x' }))).reason).toBe('NOT_FOUND');
    }
  });

  it('lists newest first, filtered by status (UNSPECIFIED refused), paged', async () => {
    const p = newProject();
    const first = await create(p, { name: 'first' });
    await create(p, { name: 'second' });
    await update(p, first.id, { status: RecordStatus.CLOSED });
    const names = async (status?: RecordStatus) =>
      (await s.client.listSessions({ projectId: p, status }, owner)).sessions.map((x) => x.name);
    expect(await names()).toEqual(['second', 'first']);
    expect(await names(RecordStatus.CLOSED)).toEqual(['first']);
    expect(await names(RecordStatus.OPEN)).toEqual(['second']);
    expect(await failure(s.client.listSessions({ projectId: p, status: RecordStatus.UNSPECIFIED }, owner))).toMatchObject({
      paths: ['query.status'],
      messages: ['must be open or closed'],
    });
    expect((await s.client.listSessions({ projectId: p, page: { page: 2, limit: 1 } }, owner)).sessions.map((x) => x.name)).toEqual([
      'first',
    ]);
  });

  it.each(READ_ONLY)('refuses writes by %s (FORBIDDEN) but lets it read', async (_label, caller) => {
    const p = newProject();
    const x = await create(p);
    expect((await failure(s.client.createSession({ projectId: p, name: 'x' }, caller))).reason).toBe('FORBIDDEN');
    expect((await failure(s.client.updateSession({ projectId: p, sessionId: x.id, name: 'x' }, caller))).reason).toBe('FORBIDDEN');
    expect((await s.client.listSessions({ projectId: p }, caller)).sessions).toHaveLength(1);
  });
});
