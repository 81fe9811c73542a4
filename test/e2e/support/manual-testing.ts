/**
 * Fixtures for the manual-testing end-to-end tests. Writes are spread over several tokens (each a member of
 * the same project) so that no test comes near the per-token rate limits of spec §8.
 */
import { testAdmin, testApi, type Api, type RoleName, type Tenant } from '@assay/testkit';

export const admin = testAdmin();
export const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
export const ID = /^[0-9a-f]{24}$/;

export interface Project {
  t: Tenant;
  api: Api;
  /** `/{projectId}` */
  P: string;
  /** A fresh token of a new member of the project's organization (its own rate-limit budget). */
  writer(role?: RoleName): Promise<Api & { user: { userId: string; email: string; name: string } }>;
}

export async function newProject(role: RoleName = 'owner'): Promise<Project> {
  const t = await admin.tenant(role);
  return {
    t,
    api: testApi(t.token),
    P: `/${t.projectId}`,
    async writer(r: RoleName = 'member') {
      const m = await admin.member(t.orgId, r, { projects: [t.projectId] });
      return Object.assign(testApi(m.token), { user: { userId: m.userId, email: m.email, name: m.name } });
    },
  };
}

export async function makeSuite(p: Project, body: Record<string, unknown>, api: Api = p.api): Promise<any> {
  const res = await api.post(`${p.P}/manual-test-suites`, body);
  if (res.status !== 201) throw new Error(`suite create failed: ${res.status} ${res.text}`);
  return res.body.data;
}

export async function makeCase(p: Project, body: Record<string, unknown>, api: Api = p.api): Promise<any> {
  const res = await api.post(`${p.P}/manual-test-cases`, body);
  if (res.status !== 201) throw new Error(`case create failed: ${res.status} ${res.text}`);
  return res.body.data;
}

/** Asserts a 400 VALIDATION_ERROR whose details name `path` (a prefix match on one of them). */
export function expectValidation(res: { status: number; body: any }, path?: string): void {
  expect(res.status).toBe(400);
  expect(res.body.success).toBe(false);
  expect(res.body.error.code).toBe('VALIDATION_ERROR');
  expect(Array.isArray(res.body.error.details)).toBe(true);
  if (path !== undefined) {
    const paths: string[] = res.body.error.details.map((d: { path: string }) => d.path);
    expect(paths.some((p) => p === path || p.startsWith(`${path}.`))).toBe(true);
  }
}

/** Every key that occurs anywhere in a JSON value. */
export function allKeys(value: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(value)) value.forEach((v) => allKeys(v, into));
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      into.add(k);
      allKeys(v, into);
    }
  }
  return into;
}
