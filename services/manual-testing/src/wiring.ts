/** What the manual-testing handlers share: the pool and the organization members (through identity). */
import type { Pool } from '@assay/db';
import type { ServiceContext } from '@assay/service-kit';
import type { ManualTestingConfig } from './config';
import { identityMembers, type Members } from './domain/members';

export interface Wiring {
  pool: Pool;
  members: Members;
}

export function wire(ctx: ServiceContext<ManualTestingConfig>): Wiring {
  return {
    pool: ctx.pool,
    members: identityMembers({ baseUrl: ctx.config.IDENTITY_URL, internalToken: ctx.config.INTERNAL_AUTH_TOKEN }),
  };
}
