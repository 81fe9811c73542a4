/**
 * Organization members, as the identity service knows them (wiring.ts asks it; tests give an in-memory
 * directory): testers and assignees must be members of the project's organization.
 */
import type { UserSnapshot } from '../store/common';
import type { Violations } from './violations';

export interface Members {
  /** Each ref (a user id or an e-mail) → the member it names in the organization, or undefined. */
  resolve(orgId: string, refs: string[]): Promise<Map<string, UserSnapshot | undefined>>;
}

/**
 * Resolves user ids or e-mails against the organization's members; each ref that names no member is a
 * violation at `<path>.<i>` (or `path` itself when `single`).
 */
export async function resolveMembers(
  members: Members,
  orgId: string,
  refs: string[],
  path: string,
  v: Violations,
  single = false,
): Promise<UserSnapshot[]> {
  const found = await members.resolve(orgId, refs);
  const out: UserSnapshot[] = [];
  refs.forEach((ref, i) => {
    const m = found.get(ref);
    if (!m) v.add(single ? path : `${path}.${i}`, "is not a member of the project's organization");
    else if (!out.some((o) => o.id === m.id)) out.push({ id: m.id, name: m.name, email: m.email });
  });
  return out;
}

/** One optional member ref: undefined when absent, null when cleared or naming no member (a violation then). */
export async function resolveMember(
  members: Members,
  orgId: string,
  ref: string | undefined,
  path: string,
  v: Violations,
): Promise<UserSnapshot | null> {
  if (ref === undefined) return null;
  return (await resolveMembers(members, orgId, [ref], path, v, true))[0] ?? null;
}
