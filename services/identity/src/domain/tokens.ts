/**
 * Issuing, rotating and revoking tokens: what the admin CLI (AdminService) and a user in the web app
 * (AccountService) both do, one way. Every change that could let an old fact live on raises the token's
 * auth-cache generation once committed.
 */
import { withTransaction, type PoolClient } from '@assay/db';
import { AppError } from '@assay/errors';
import { issueSecret } from '@assay/contracts/identity/tokens';
import type { Wiring } from '../wiring';
import { requireId } from './input';
import { createToken, revokeToken, rotateSecret, type TokenType } from '../store/tokens';
import { existingProjectIds } from '../store/projects';

/** A personal access token for `projectIds` (empty or containing `*`: every project of the user's organizations). */
export async function issuePat(
  w: Wiring,
  t: { userId: string; name: string; projectIds: readonly string[]; expiresInSeconds: number },
  /** The caller's transaction, when the token is part of a larger write (else one of its own). */
  tx?: PoolClient,
): Promise<{ id: string; token: string }> {
  const wildcard = t.projectIds.length === 0 || t.projectIds.includes('*');
  const projectIds = wildcard ? [] : [...new Set(t.projectIds)];
  if (!wildcard) {
    projectIds.forEach((p) => requireId(p, 'projects'));
    const known = new Set(await existingProjectIds(tx ?? w.pool, projectIds));
    const missing = projectIds.filter((p) => !known.has(p));
    if (missing.length > 0) throw new AppError('NOT_FOUND', `unknown project(s): ${missing.join(', ')}`);
  }
  const secret = issueSecret();
  const write = (c: PoolClient) =>
    createToken(c, {
      type: 'pat',
      userId: t.userId,
      projectId: null,
      name: t.name,
      allProjects: wildcard,
      projectIds,
      expiresAt: t.expiresInSeconds > 0 ? new Date(w.clock().getTime() + t.expiresInSeconds * 1000) : null,
      secretHash: secret.hash,
    });
  const id = tx ? await write(tx) : await withTransaction(w.pool, write);
  return { id, token: secret.token };
}

/** A new secret for the token (the old one answers TOKEN_REVOKED from the next request on). */
export async function rotate(w: Wiring, tokenId: string): Promise<{ type: TokenType; token: string; uploadKey: string }> {
  const secret = issueSecret();
  const rotated = await rotateSecret(w.pool, requireId(tokenId, 'id'), secret.hash);
  if (!rotated) throw new AppError('NOT_FOUND', 'unknown or revoked token');
  await w.generations.token(tokenId, rotated.generation);
  return { type: rotated.type, token: secret.token, uploadKey: secret.uploadKey };
}

export async function revoke(w: Wiring, tokenId: string): Promise<void> {
  const generation = await revokeToken(w.pool, requireId(tokenId, 'id'));
  if (generation === undefined) throw new AppError('NOT_FOUND', 'unknown token');
  await w.generations.token(tokenId, generation);
}
