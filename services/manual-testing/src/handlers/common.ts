/** Helpers every handler shares: the caller as an author, timestamps, user references. */
import { create } from '@bufbuild/protobuf';
import { timestampFromDate, type Timestamp } from '@bufbuild/protobuf/wkt';
import { UserRefSchema, type UserRef } from '@assay/proto/assay/common/v1/common_pb';
import { MemberSchema, type Member } from '@assay/proto/assay/manualtesting/v1/manual_testing_pb';
import type { Principal } from '@assay/service-kit';
import type { Author, UserSnapshot } from '../store/common';
import { invalid } from '../domain/violations';

export function authorOf(p: Principal): Author {
  return { id: p.userId, name: p.userName, email: p.userEmail };
}

export function ts(d: Date | null | undefined): Timestamp | undefined {
  return d ? timestampFromDate(d) : undefined;
}

export function userRef(u: UserSnapshot | null): UserRef | undefined {
  return u ? create(UserRefSchema, { id: u.id, name: u.name, email: u.email }) : undefined;
}

export function member(u: UserSnapshot | null): Member | undefined {
  return u ? create(MemberSchema, { id: u.id, name: u.name, email: u.email }) : undefined;
}

/** Service-side guard of "at least one field" on partial updates (the gateway checks it first). */
export function requireSomeField(present: unknown[]): void {
  if (!present.some((v) => v !== undefined)) invalid('body', 'send at least one field to change');
}
