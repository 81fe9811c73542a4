/** Roles and token types between their proto enums and the names the store and the principal use. */
import { Role as RoleEnum, TokenType as TokenTypeEnum } from '@assay/proto/assay/identity/v1/identity_pb';
import { validation } from '@assay/errors';
import type { Role } from '@assay/service-kit';
import type { TokenType } from '../store/tokens';

const FROM_ENUM: Partial<Record<RoleEnum, Role>> = {
  [RoleEnum.OWNER]: 'owner',
  [RoleEnum.ADMIN]: 'admin',
  [RoleEnum.MEMBER]: 'member',
  [RoleEnum.VIEWER]: 'viewer',
};
const TO_ENUM: Record<Role, RoleEnum> = { owner: RoleEnum.OWNER, admin: RoleEnum.ADMIN, member: RoleEnum.MEMBER, viewer: RoleEnum.VIEWER };

/** A role the caller sent; 400 when it is none of the four. */
export function roleOf(r: RoleEnum): Role {
  const role = FROM_ENUM[r];
  if (!role) throw validation('role must be one of owner, admin, member, viewer', [{ path: 'role', message: 'unknown role' }]);
  return role;
}

export const roleEnum = (r: Role | null): RoleEnum => (r ? TO_ENUM[r] : RoleEnum.UNSPECIFIED);

export const tokenTypeEnum = (t: TokenType): TokenTypeEnum => (t === 'pat' ? TokenTypeEnum.PAT : TokenTypeEnum.API_KEY);
