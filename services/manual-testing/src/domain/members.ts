/**
 * Organization members, as the identity service knows them. This service never reads the identity
 * tables: testers and assignees are checked through the ResolveMembers RPC (IDENTITY_URL).
 */
import type { Client } from '@connectrpc/connect';
import { IdentityService } from '@assay/proto/assay/identity/v1/identity_pb';
import { createRpcClient } from '@assay/service-kit';

export interface Member {
  id: string;
  name: string;
  email: string;
}

export interface Members {
  /** Each ref (a user id or an e-mail) → the member it names in the organization, or undefined. */
  resolve(orgId: string, refs: string[]): Promise<Map<string, Member | undefined>>;
}

export function identityMembers(opts: { baseUrl: string; internalToken: string }): Members {
  let client: Client<typeof IdentityService> | undefined;
  return {
    async resolve(orgId, refs) {
      const out = new Map<string, Member | undefined>();
      const unique = [...new Set(refs)];
      if (unique.length === 0) return out;
      client ??= createRpcClient(IdentityService, { baseUrl: opts.baseUrl, internalToken: opts.internalToken, timeoutMs: 10000 });
      const res = await client.resolveMembers({ orgId, refs: unique });
      for (const m of res.members) out.set(m.ref, m.found ? { id: m.userId, name: m.name, email: m.email } : undefined);
      return out;
    },
  };
}
