/**
 * What the manual-testing handlers share: the pool, the organization members (through identity's
 * ResolveMembers RPC) and the clock. Tests pass in-memory members and a fixed clock through `overrides`.
 */
import type { Client } from '@connectrpc/connect';
import type { Pool } from '@assay/db';
import { IdentityService } from '@assay/proto/assay/identity/v1/identity_pb';
import { createRpcClient, systemClock, type Clock, type ServiceContext } from '@assay/service-kit';
import type { ManualTestingConfig } from './config';
import type { Members } from './domain/members';

export interface Wiring {
  pool: Pool;
  members: Members;
  clock: Clock;
}

export interface WiringOverrides {
  members?: Members;
  clock?: Clock;
}

export function wire(ctx: ServiceContext<ManualTestingConfig>, overrides: WiringOverrides = {}): Wiring {
  return {
    pool: ctx.pool,
    members: overrides.members ?? identityMembers({ baseUrl: ctx.config.IDENTITY_URL, internalToken: ctx.config.INTERNAL_AUTH_TOKEN }),
    clock: overrides.clock ?? systemClock,
  };
}

/** This service never reads the identity tables: testers and assignees are checked through identity (IDENTITY_URL). */
function identityMembers(opts: { baseUrl: string; internalToken: string }): Members {
  let client: Client<typeof IdentityService> | undefined;
  return {
    async resolve(orgId, refs) {
      const out: Awaited<ReturnType<Members['resolve']>> = new Map();
      const unique = [...new Set(refs)];
      if (unique.length === 0) return out;
      client ??= createRpcClient(IdentityService, { baseUrl: opts.baseUrl, internalToken: opts.internalToken, timeoutMs: 10000 });
      const res = await client.resolveMembers({ orgId, refs: unique });
      for (const m of res.members) out.set(m.ref, m.found ? { id: m.userId, name: m.name, email: m.email } : undefined);
      return out;
    },
  };
}
