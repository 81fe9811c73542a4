/**
 * AdminService's lists (the admin CLI's `organizations`, `users`, `members`, `projects`, `tokens`) on a schema of
 * their own: what was created, newest first by id, in bounded keyset pages (at most 200 rows, 50 by default) that
 * together hold every row once; unknown owners are NOT_FOUND, a token is listed without its secret.
 */
import { Role, TokenType } from '@assay/proto/assay/identity/v1/identity_pb';
import { identityUnit, refused, type IdentityUnit } from './fixture';

let u: IdentityUnit;
beforeAll(async () => {
  u = await identityUnit('identity_admin_lists');
});
afterAll(() => u.close());

/** Every page of a list, following next_page_token; the ids of each page. */
async function pages(list: (pageToken: string) => Promise<{ ids: string[]; nextPageToken: string }>): Promise<string[][]> {
  const out: string[][] = [];
  let token = '';
  do {
    const page = await list(token);
    out.push(page.ids);
    token = page.nextPageToken;
  } while (token !== '' && out.length < 100);
  return out;
}

const desc = (ids: string[]) => [...ids].sort().reverse();

describe('identity admin lists', () => {
  it('lists organizations and users newest first by id, in pages that hold each row once', async () => {
    const orgs: string[] = [];
    for (let i = 0; i < 5; i++) orgs.push((await u.admin.createOrg({ name: `List org ${i}` })).id);
    const all = await u.admin.listOrganizations({});
    expect(all.nextPageToken).toBe('');
    expect(all.organizations.map((o) => o.id)).toEqual(desc(all.organizations.map((o) => o.id)));
    expect(all.organizations.map((o) => o.id)).toEqual(expect.arrayContaining(orgs));
    expect(all.organizations.find((o) => o.id === orgs[0])).toMatchObject({ name: 'List org 0', createdAt: expect.anything() });

    const paged = await pages(async (pageToken) => {
      const res = await u.admin.listOrganizations({ pageSize: 2, pageToken });
      return { ids: res.organizations.map((o) => o.id), nextPageToken: res.nextPageToken };
    });
    expect(paged.slice(0, -1).every((p) => p.length === 2)).toBe(true);
    expect(paged.flat()).toEqual(all.organizations.map((o) => o.id));

    const user = (await u.admin.createUser({ email: 'Lister@Example.TEST', name: 'Lister' })).id;
    const users = await u.admin.listUsers({});
    expect(users.users.find((x) => x.id === user)).toMatchObject({ email: 'lister@example.test', name: 'Lister' });
  });

  it('bounds a page: 50 rows by default, at most 200 whatever is asked; a page token that is none is refused', async () => {
    const org = (await u.admin.createOrg({ name: 'Many projects' })).id;
    const ids = await Promise.all(Array.from({ length: 201 }, (_, i) => u.admin.createProject({ orgId: org, name: `P${i}` })));
    const byDefault = await u.admin.listProjects({ orgId: org });
    expect([byDefault.projects.length, byDefault.nextPageToken]).toEqual([50, byDefault.projects[49]!.id]);
    const huge = await u.admin.listProjects({ orgId: org, pageSize: 100_000 });
    expect(huge.projects).toHaveLength(200);
    const rest = await u.admin.listProjects({ orgId: org, pageSize: 100_000, pageToken: huge.nextPageToken });
    expect([rest.projects.length, rest.nextPageToken]).toEqual([1, '']);
    expect([...huge.projects, ...rest.projects].map((p) => p.id)).toEqual(desc(ids.map((p) => p.id)));
    const e = await refused(u.admin.listProjects({ orgId: org, pageToken: "x' OR 1=1" }));
    expect([e.reason, e.details?.map((d) => d.path)]).toEqual(['VALIDATION_ERROR', ['page_token']]);
  });

  it('lists the projects of one organization or of all, and the members of one with their role', async () => {
    const t = await u.tenant(Role.ADMIN);
    const second = (await u.admin.createUser({ email: 'second@example.test', name: 'Second' })).id;
    await u.admin.addMember({ orgId: t.orgId, userId: second, role: Role.VIEWER });
    const other = (await u.admin.createProject({ orgId: t.orgId, name: 'Other' })).id;

    const own = await u.admin.listProjects({ orgId: t.orgId });
    expect(own.projects.map((p) => [p.id, p.orgId])).toEqual(desc([t.projectId, other]).map((id) => [id, t.orgId]));
    // Every page of all projects: the 201 of the test above may share these two's second, and ids within a second are
    // in no particular order, so the first page need not hold them.
    const everyProject = await pages(async (pageToken) => {
      const res = await u.admin.listProjects({ pageSize: 200, pageToken });
      return { ids: res.projects.map((p) => p.id), nextPageToken: res.nextPageToken };
    });
    expect(everyProject.flat()).toEqual(expect.arrayContaining([t.projectId, other]));

    const members = await u.admin.listMembers({ orgId: t.orgId });
    expect(members.members.map((m) => [m.userId, m.role])).toEqual(
      desc([t.userId, second]).map((id) => [id, id === second ? Role.VIEWER : Role.ADMIN]),
    );
    expect(members.members.find((m) => m.userId === second)).toMatchObject({ email: 'second@example.test', name: 'Second' });
    const one = await u.admin.listMembers({ orgId: t.orgId, pageSize: 1 });
    expect((await u.admin.listMembers({ orgId: t.orgId, pageSize: 1, pageToken: one.nextPageToken })).nextPageToken).toBe('');

    const ghost = 'f'.repeat(24);
    expect((await refused(u.admin.listMembers({ orgId: ghost }))).reason).toBe('NOT_FOUND');
    expect((await refused(u.admin.listProjects({ orgId: ghost }))).reason).toBe('NOT_FOUND');
    expect((await refused(u.admin.listMembers({ orgId: 'nope' }))).reason).toBe('VALIDATION_ERROR');
  });

  it("lists a user's personal access tokens and a project's api keys, with their scope and state, never a secret", async () => {
    const t = await u.tenant();
    const wildcard = await u.admin.createToken({ userId: t.userId, name: 'everything', projectIds: ['*'], expiresInSeconds: 3600n });
    await u.admin.revokeToken({ id: t.tokenId });
    const key = await u.admin.createToken({ projectId: t.projectId, name: 'ci' });

    const pats = await u.admin.listTokens({ userId: t.userId });
    expect(pats.tokens.map((x) => x.id)).toEqual(desc([t.tokenId, wildcard.id]));
    expect(pats.tokens.find((x) => x.id === t.tokenId)).toMatchObject({
      type: TokenType.PAT,
      userId: t.userId,
      projectId: '',
      allProjects: false,
      projectIds: [t.projectId],
      revoked: true,
    });
    expect(pats.tokens.find((x) => x.id === wildcard.id)).toMatchObject({
      name: 'everything',
      allProjects: true,
      projectIds: [],
      revoked: false,
    });
    expect(pats.tokens.find((x) => x.id === wildcard.id)!.expiresAt).toBeDefined();

    const keys = await u.admin.listTokens({ projectId: t.projectId });
    expect(keys.tokens.map((x) => [x.id, x.type, x.name, x.projectId, x.userId])).toEqual([
      [key.id, TokenType.API_KEY, 'ci', t.projectId, ''],
    ]);
    // What a listing holds: no field carries the secret (nor anything of it).
    const listed = JSON.stringify([...pats.tokens, ...keys.tokens], (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v));
    for (const secret of [wildcard.token, key.token, key.uploadKey]) expect(listed).not.toContain(secret.slice(-64));

    expect((await refused(u.admin.listTokens({}))).reason).toBe('VALIDATION_ERROR');
    expect((await refused(u.admin.listTokens({ userId: t.userId, projectId: t.projectId }))).reason).toBe('VALIDATION_ERROR');
    expect((await refused(u.admin.listTokens({ userId: 'f'.repeat(24) }))).reason).toBe('NOT_FOUND');
    expect((await refused(u.admin.listTokens({ projectId: 'f'.repeat(24) }))).reason).toBe('NOT_FOUND');
  });
});
