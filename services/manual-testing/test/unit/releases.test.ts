/**
 * The `releases` family's handlers (handlers/releases.ts over store/releases.ts): testers resolved through the
 * organization directory (wire's members override), build targets with the platform enum, dates, the
 * lifecycle stamps (the fixed clock), nesting and moves (≤ 3 levels), reads, and who may write.
 */
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { Platform } from '@assay/proto/assay/manualtesting/v1/manual_testing_pb';
import { MAX_RECORD_NAME, MAX_RELEASE_DEPTH } from '@assay/contracts/manual-testing/values';
import { ALICE, BOB, failure, handlerSuite, newProject, NOW, owner, READ_ONLY, type HandlerSuite } from './support';

let s: HandlerSuite;
beforeAll(async () => {
  s = await handlerSuite('releases');
});
afterAll(() => s.db.drop());

const create = (projectId: string, over: Record<string, unknown> = {}) =>
  s.client.createRelease({ projectId, name: 'R1', ...over }, owner).then((r) => r.release!);
const update = (projectId: string, releaseId: string, over: Record<string, unknown>) =>
  s.client.updateRelease({ projectId, releaseId, ...over }, owner).then((r) => r.release!);
const at = (iso: string) => timestampFromDate(new Date(iso));

describe('releases handlers', () => {
  it('creates with testers resolved by id or e-mail (once each), a sanitized note, dates and a build target', async () => {
    const p = newProject();
    const r = await create(p, {
      note: '<p>ok</p><img src="javascript:x" onerror="y">',
      startDate: '2026-01-01',
      endDate: '2026-01-02T10:00:00+02:00',
      testers: [ALICE.id, 'BOB@example.test', ALICE.email],
      buildTarget: { platform: Platform.IOS, version: '2.1' },
      linkedIssues: [{ provider: 'jira', displayId: 'J-1' }],
    });
    expect(r).toMatchObject({
      name: 'R1',
      note: '<p>ok</p><img />',
      depth: 1,
      startDate: '2026-01-01',
      endDate: '2026-01-02T08:00:00.000Z',
      buildTarget: { platform: Platform.IOS, version: '2.1' },
      linkedIssues: [{ provider: 'jira', displayId: 'J-1' }],
      isStarted: false,
      isCompleted: false,
      lastModifiedBy: { name: 'Ada Tester' },
    });
    expect(r.testers.map((t) => [t.id, t.name, t.email])).toEqual([
      [ALICE.id, ALICE.name, ALICE.email],
      [BOB.id, BOB.name, BOB.email],
    ]);
    expect(s.members.asked).toContainEqual([ALICE.id, 'BOB@example.test', ALICE.email]);
    expect(r.parentReleaseId).toBeUndefined();
    expect(r.startedAt).toBeUndefined();
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['a blank name', { name: ' ' }, 'body.name'],
    [`a name over ${MAX_RECORD_NAME} characters`, { name: 'n'.repeat(MAX_RECORD_NAME + 1) }, 'body.name'],
    ['a tester who is no member', { testers: [ALICE.id, 'eve@example.test'] }, 'body.testers.1'],
    ['an UNSPECIFIED platform', { buildTarget: { platform: Platform.UNSPECIFIED } }, 'body.buildTarget.platform'],
    ['a date that is no ISO date', { startDate: '01/02/2026' }, 'body.startDate'],
    ['an end before the start', { startDate: '2026-02-01', endDate: '2026-01-31' }, 'body.endDate'],
    ['a linked issue without displayId or url', { linkedIssues: [{ title: 'x' }] }, 'body.linkedIssues.0'],
    ['a parent of no release of the project', { parentReleaseId: '0'.repeat(24) }, 'body.parentReleaseId'],
  ])('refuses %s (VALIDATION_ERROR) and writes nothing', async (_label, over, path) => {
    const p = newProject();
    expect(await failure(create(p, over))).toMatchObject({ reason: 'VALIDATION_ERROR', paths: [path] });
    expect((await s.client.listReleases({ projectId: p }, owner)).page!.total).toBe(0n);
  });

  it(`nests at most ${MAX_RELEASE_DEPTH} levels, and moves only where the subtree still fits`, async () => {
    const p = newProject();
    const top = await create(p, { name: 'top' });
    const mid = await create(p, { name: 'mid', parentReleaseId: top.id });
    const low = await create(p, { name: 'low', parentReleaseId: mid.id });
    expect([top.depth, mid.depth, low.depth]).toEqual([1, 2, 3]);
    expect((await failure(create(p, { parentReleaseId: low.id }))).messages[0]).toContain(`at most ${MAX_RELEASE_DEPTH} levels`);
    const other = await create(p, { name: 'other' });
    // mid (with low below it) under other: levels 2 and 3, fits; under mid's own child: refused
    const moved = await update(p, mid.id, { parentReleaseId: { value: other.id } });
    expect(moved).toMatchObject({ parentReleaseId: other.id, depth: 2 });
    expect((await s.client.getRelease({ projectId: p, releaseId: low.id }, owner)).release!.depth).toBe(3);
    expect((await failure(update(p, mid.id, { parentReleaseId: { value: low.id } }))).messages[0]).toContain('itself or one of its');
    const deep = await create(p, { name: 'deep', parentReleaseId: (await create(p, { name: 'x', parentReleaseId: top.id })).id });
    expect((await failure(update(p, mid.id, { parentReleaseId: { value: deep.id } }))).paths).toEqual(['body.parentReleaseId']);
    const back = await update(p, mid.id, { parentReleaseId: {} });
    expect(back.depth).toBe(1);
    expect(back.parentReleaseId).toBeUndefined();
  });

  it('stamps the lifecycle with the clock when a flag turns on, clears it when it turns off, and takes a time sent', async () => {
    const p = newProject();
    const r = await create(p);
    const started = await update(p, r.id, { isStarted: true });
    expect(started.isStarted).toBe(true);
    expect(started.startedAt).toEqual(timestampFromDate(NOW));
    const sent = await update(p, r.id, { isCompleted: true, completedAt: { value: at('2026-01-05T00:00:00Z') } });
    expect(sent.completedAt).toEqual(at('2026-01-05T00:00:00Z'));
    expect(sent.startedAt).toEqual(timestampFromDate(NOW));
    const off = await update(p, r.id, { isStarted: false, completedAt: {} });
    expect(off.isStarted).toBe(false);
    expect(off.startedAt).toBeUndefined();
    expect(off.completedAt).toBeUndefined();
    expect(off.isCompleted).toBe(true);
  });

  it('updates only what is sent (testers replaced, build target replaced) and refuses a bad update whole', async () => {
    const p = newProject();
    const r = await create(p, { description: 'keep', testers: [ALICE.id], startDate: '2026-03-01' });
    const u = await update(p, r.id, { testers: { values: [BOB.email] }, buildTarget: { platform: Platform.WEB } });
    expect(u).toMatchObject({ description: 'keep', buildTarget: { platform: Platform.WEB } });
    expect(u.testers.map((t) => t.id)).toEqual([BOB.id]);
    expect((await failure(update(p, r.id, { endDate: '2026-02-01' }))).paths).toEqual(['body.endDate']);
    expect((await failure(update(p, r.id, { testers: { values: ['nobody'] } }))).paths).toEqual(['body.testers.0']);
    expect((await failure(update(p, r.id, {}))).paths).toEqual(['body']);
    expect((await s.client.getRelease({ projectId: p, releaseId: r.id }, owner)).release!.endDate).toBeUndefined();
  });

  it('answers NOT_FOUND for an unknown release and a release of another project', async () => {
    const p = newProject();
    const r = await create(p);
    for (const [projectId, releaseId] of [
      [p, '0'.repeat(24)],
      [newProject(), r.id],
    ] as const) {
      expect((await failure(s.client.getRelease({ projectId, releaseId }, owner))).reason).toBe('NOT_FOUND');
      expect((await failure(update(projectId, releaseId, { name: 'x' }))).reason).toBe('NOT_FOUND');
    }
  });

  it('lists newest first, by name text (LIKE characters literal) and completion, paged', async () => {
    const p = newProject();
    for (const name of ['Alpha 1', 'Beta_2', 'Alpha 3']) await create(p, { name });
    const names = async (filter: Record<string, unknown>) =>
      (await s.client.listReleases({ projectId: p, ...filter }, owner)).releases.map((r) => r.name);
    expect(await names({})).toEqual(['Alpha 3', 'Beta_2', 'Alpha 1']);
    expect(await names({ search: 'alpha' })).toEqual(['Alpha 3', 'Alpha 1']);
    expect(await names({ search: '_' })).toEqual(['Beta_2']);
    const done = (await s.client.listReleases({ projectId: p }, owner)).releases[2]!;
    await update(p, done.id, { isCompleted: true });
    expect(await names({ isCompleted: true })).toEqual(['Alpha 1']);
    expect(await names({ isCompleted: false })).toEqual(['Alpha 3', 'Beta_2']);
    expect((await s.client.listReleases({ projectId: p, page: { page: 2, limit: 2 } }, owner)).page).toMatchObject({ page: 2, total: 3n });
  });

  it.each(READ_ONLY)('refuses writes by %s (FORBIDDEN) but lets it read', async (_label, caller) => {
    const p = newProject();
    const r = await create(p);
    expect((await failure(s.client.createRelease({ projectId: p, name: 'x' }, caller))).reason).toBe('FORBIDDEN');
    expect((await failure(s.client.updateRelease({ projectId: p, releaseId: r.id, name: 'x' }, caller))).reason).toBe('FORBIDDEN');
    expect((await s.client.getRelease({ projectId: p, releaseId: r.id }, caller)).release!.id).toBe(r.id);
  });
});
