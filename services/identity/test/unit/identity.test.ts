/**
 * IdentityService (handlers/identity.ts), what the other services ask, through the in-memory transport: members
 * of an organization by user id or e-mail (case-insensitive) with their role, the bound on one lookup, and projects.
 */
import { Role } from '@assay/proto/assay/identity/v1/identity_pb';
import { identityUnit, refused, type IdentityUnit } from './fixture';

let u: IdentityUnit;
beforeAll(async () => {
  u = await identityUnit('identity_lookups');
});
afterAll(() => u.close());

describe('identity lookup handlers', () => {
  it('resolves members by id or e-mail, in the order asked, and says which refs name no member', async () => {
    const t = await u.tenant(Role.MEMBER);
    const outsider = await u.tenant();
    const res = await u.identity.resolveMembers({
      orgId: t.orgId,
      refs: [t.email.toUpperCase(), t.userId, outsider.userId, 'nobody@example.test'],
    });
    expect(res.members.map((m) => [m.ref, m.found, m.userId, m.role])).toEqual([
      [t.email.toUpperCase(), true, t.userId, Role.MEMBER],
      [t.userId, true, t.userId, Role.MEMBER],
      [outsider.userId, false, '', Role.UNSPECIFIED],
      ['nobody@example.test', false, '', Role.UNSPECIFIED],
    ]);
    expect(res.members[0]).toMatchObject({ email: t.email, name: expect.stringMatching(/^User /) });
  });

  it('refuses more than 1000 refs and an organization id that is none', async () => {
    const t = await u.tenant();
    expect(
      (await refused(u.identity.resolveMembers({ orgId: t.orgId, refs: Array.from({ length: 1001 }, (_, i) => `${i}@x.test`) }))).reason,
    ).toBe('VALIDATION_ERROR');
    expect((await refused(u.identity.resolveMembers({ orgId: 'nope', refs: [] }))).details).toEqual([
      { path: 'orgId', message: 'invalid id' },
    ]);
  });

  it('answers a project, NOT_FOUND for an unknown one', async () => {
    const t = await u.tenant();
    expect(await u.identity.getProject({ projectId: t.projectId })).toMatchObject({ id: t.projectId, orgId: t.orgId });
    expect((await refused(u.identity.getProject({ projectId: 'f'.repeat(24) }))).reason).toBe('NOT_FOUND');
  });
});
