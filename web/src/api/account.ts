/**
 * The signed-in account (GET /api/v1/app/me): who the user is, their organizations with their role in each,
 * and the projects they can open. A project's role is its organization's role (spec §5: writes need owner,
 * admin or member; webhooks owner or admin), so pages hide write controls the API would refuse anyway.
 */
import { $api, isRateLimited, type ErrorEnvelope, type Schemas } from './client';

export type Account = Schemas['AppAccount'];
export type Role = Account['organizations'][number]['role'];

/** Not asked again on failure (a 401 sends the user to sign in at once), but when the rate limit refused it. */
export function useAccount() {
  return $api.useQuery('get', '/api/v1/app/me', {}, { staleTime: 60_000, retry: (count, error) => isRateLimited(error) && count < 3 });
}

export function roleIn(account: Account | undefined, projectId: string | undefined): Role | undefined {
  const project = account?.projects.find((p) => p.id === projectId);
  return account?.organizations.find((o) => o.id === project?.organizationId)?.role;
}

/**
 * The API's answer for a project the account cannot open (it does not exist, or another organization holds it), for
 * the pages that ask the API nothing before a write (a form): they say so as every other page of the project does.
 */
export const PROJECT_NOT_FOUND: ErrorEnvelope = {
  success: false,
  error: { code: 'NOT_FOUND', message: 'Project not found or not accessible to your account' },
};

/**
 * What the signed-in user may do in a project (undefined while the account loads: show nothing writable); `missing`
 * once the account is loaded and holds no such project.
 */
export function useProjectAccess(projectId: string | undefined) {
  const { data } = useAccount();
  const role = roleIn(data?.data, projectId);
  const project = data?.data.projects.find((p) => p.id === projectId);
  return {
    role,
    project,
    missing: data !== undefined && project === undefined,
    canWrite: role === 'owner' || role === 'admin' || role === 'member',
    canAdminWebhooks: role === 'owner' || role === 'admin',
  };
}
