/** Helpers the handlers share: the caller as an author, timestamps, user references, release references. */
import { create } from '@bufbuild/protobuf';
import { timestampFromDate, type Timestamp } from '@bufbuild/protobuf/wkt';
import { UserRefSchema, type UserRef } from '@assay/proto/assay/common/v1/common_pb';
import { MemberSchema, type Member } from '@assay/proto/assay/manualtesting/v1/manual_testing_pb';
import type { Queryable } from '@assay/db';
import type { Principal } from '@assay/service-kit';
import type { Author, UserSnapshot } from '../store/common';
import { findRelease } from '../store/releases';
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

/** Who changed a record last and when it was written: the last fields of a release, session or run. */
export function trail(r: { lastModifiedBy: UserSnapshot | null; createdAt: Date; updatedAt: Date }) {
  return { lastModifiedBy: userRef(r.lastModifiedBy), createdAt: ts(r.createdAt), updatedAt: ts(r.updatedAt) };
}

export function member(u: UserSnapshot | null): Member | undefined {
  return u ? create(MemberSchema, { id: u.id, name: u.name, email: u.email }) : undefined;
}

/** Service-side guard of "at least one field" on partial updates (the gateway checks it first). */
export function requireSomeField(present: unknown[]): void {
  if (!present.some((v) => v !== undefined)) invalid('body', 'send at least one field to change');
}

/** A release reference of a session or run body: must name a release of the project. */
export async function checkReleaseRef(q: Queryable, projectId: string, releaseId: string | null): Promise<void> {
  if (releaseId !== null && !(await findRelease(q, projectId, releaseId))) invalid('body.releaseId', 'names no release of this project');
}
