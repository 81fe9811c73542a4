/**
 * Who is calling. The gateway authenticates the token, resolves the project and the live role, and forwards
 * the result to services in one header; services trust it only on calls that also carry the internal token.
 */
export const ROLES = ['owner', 'admin', 'member', 'viewer'] as const;
export type Role = (typeof ROLES)[number];
export type TokenType = 'pat' | 'api_key';

export interface Principal {
  tokenId: string;
  tokenType: TokenType;
  /** Null for project api keys. */
  userId: string | null;
  userName: string | null;
  userEmail: string | null;
  orgId: string;
  /** The user's current role in the organization; null for api keys. */
  role: Role | null;
}

export const PRINCIPAL_HEADER = 'x-assay-principal';

export function encodePrincipal(p: Principal): string {
  return Buffer.from(JSON.stringify(p), 'utf8').toString('base64url');
}

export function decodePrincipal(value: string | null | undefined): Principal | undefined {
  if (!value) return undefined;
  try {
    const p = JSON.parse(Buffer.from(value, 'base64url').toString('utf8')) as Principal;
    if (typeof p.tokenId !== 'string' || typeof p.orgId !== 'string') return undefined;
    if (p.tokenType !== 'pat' && p.tokenType !== 'api_key') return undefined;
    if (p.role !== null && !ROLES.includes(p.role)) return undefined;
    return p;
  } catch {
    return undefined;
  }
}

/** Writer roles of spec §4.4 (owner, admin, member). */
export function canWrite(p: Principal): boolean {
  return p.role === 'owner' || p.role === 'admin' || p.role === 'member';
}
