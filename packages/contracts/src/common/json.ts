/**
 * Shapes the manual-testing families share (cases, releases, sessions, manual runs): people, linked issues,
 * timestamps, and the proto → JSON helpers for them.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { timestampDate, type Timestamp } from '@bufbuild/protobuf/wkt';
import type { UserRef } from '@assay/proto/assay/common/v1/common_pb';
import type { LinkedIssue, Member } from '@assay/proto/assay/manualtesting/v1/manual_testing_pb';

export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const DateTime = Type.String({ format: 'date-time' });

/** `lastModifiedBy` and comment authors: never more than name and e-mail. */
export const Person = Nullable(Type.Object({ name: Type.String(), email: Type.String() }));

/** Testers and assignees. */
export const MemberJson = Type.Object({ _id: Type.String(), name: Type.String(), email: Type.String() });

export const LinkedIssueJson = Type.Object(
  {
    provider: Type.Optional(Type.String()),
    displayId: Type.Optional(Type.String()),
    url: Type.Optional(Type.String()),
    title: Type.Optional(Type.String()),
  },
  { description: 'an issue-tracker ticket; needs displayId or url' },
);

/** Body form: the same fields, no others. */
export const LinkedIssueBody = Type.Array(
  Type.Object(
    {
      provider: Type.Optional(Type.String()),
      displayId: Type.Optional(Type.String()),
      url: Type.Optional(Type.String()),
      title: Type.Optional(Type.String()),
    },
    { additionalProperties: false },
  ),
  { description: 'issue-tracker tickets: objects with provider, displayId, url, title (displayId or url required)' },
);
export type LinkedIssueBodyValue = Static<typeof LinkedIssueBody>;

export const iso = (t: Timestamp | undefined): string | null => (t ? timestampDate(t).toISOString() : null);
export const isoRequired = (t: Timestamp | undefined): string => (t ? timestampDate(t) : new Date(0)).toISOString();

export const personJson = (u: UserRef | undefined) => (u ? { name: u.name, email: u.email } : null);
export const memberJson = (m: Member) => ({ _id: m.id, name: m.name, email: m.email });

export function linkedIssueJson(i: LinkedIssue): Static<typeof LinkedIssueJson> {
  const out: Static<typeof LinkedIssueJson> = {};
  if (i.provider !== undefined) out.provider = i.provider;
  if (i.displayId !== undefined) out.displayId = i.displayId;
  if (i.url !== undefined) out.url = i.url;
  if (i.title !== undefined) out.title = i.title;
  return out;
}

/** `{a: 1, b: undefined}` → `{a: 1}`: a proto message init without the fields the body did not send. */
export function defined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

/** JSON null → present-but-empty NullableString; a string → its value; absent → absent. */
export const nullableString = (v: string | null | undefined) => (v === undefined ? undefined : v === null ? {} : { value: v });

export const ProjectParams = Type.Object({ projectId: Type.String() });
