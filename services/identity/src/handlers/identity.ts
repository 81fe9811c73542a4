/** IdentityService: what other services need for their own invariants (members of an organization, a project). */
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { ServiceImpl } from '@connectrpc/connect';
import type { IdentityService } from '@assay/proto/assay/identity/v1/identity_pb';
import { AppError } from '@assay/errors';
import type { Wiring } from '../wiring';
import { requireId } from '../domain/input';
import { roleEnum } from '../domain/roles';
import { resolveMembers } from '../store/organizations';
import { getProject } from '../store/projects';

/** A bound on one lookup: the callers ask for the testers or assignees of one request. */
const MAX_REFS = 1000;

export function identityHandlers(w: Wiring): ServiceImpl<typeof IdentityService> {
  const { pool } = w;
  return {
    async resolveMembers(req) {
      if (req.refs.length > MAX_REFS) throw new AppError('VALIDATION_ERROR', `at most ${MAX_REFS} refs per call`);
      const found = await resolveMembers(pool, requireId(req.orgId, 'orgId'), req.refs);
      return {
        members: req.refs.map((ref) => {
          const m = found.get(ref);
          return m ? { ref, found: true, userId: m.userId, name: m.name, email: m.email, role: roleEnum(m.role) } : { ref, found: false };
        }),
      };
    },
    async getProject(req) {
      const p = await getProject(pool, req.projectId);
      if (!p) throw new AppError('NOT_FOUND', 'unknown project');
      return { id: p.id, orgId: p.orgId, name: p.name, createdAt: timestampFromDate(p.createdAt) };
    },
  };
}
