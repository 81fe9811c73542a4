/**
 * What the manual-testing families share (cases, releases, sessions, manual runs): members, linked issues,
 * suite references, record names and statuses, and the step from what a caller wrote to a proto enum.
 */
import { Type, type SchemaOptions, type Static, type TProperties } from '@sinclair/typebox';
import type { Timestamp } from '@bufbuild/protobuf/wkt';
import type { UserRef } from '@assay/proto/assay/common/v1/common_pb';
import { RecordStatus, type LinkedIssue, type Member } from '@assay/proto/assay/manualtesting/v1/manual_testing_pb';
import { enumMap, type EnumMap } from '../common/enums';
import { DateTime, isoRequired, Name, Nullable, Person, personJson } from '../common/json';
import { matchValue, MAX_RECORD_NAME, RECORD_STATUSES, type RecordStatusName } from './values';

/** A closed value set as a JSON Schema `anyOf` of its literals. */
export const literals = <T extends string>(values: readonly T[], options: SchemaOptions = {}) =>
  Type.Union(
    values.map((v) => Type.Literal(v)),
    options,
  );

export const recordStatus = enumMap<RecordStatusName, RecordStatus>([
  ['open', RecordStatus.OPEN],
  ['closed', RecordStatus.CLOSED],
]);
export const RecordStatusSchema = literals(RECORD_STATUSES);
/** The one status change an update may ask for. */
export const CloseStatus = (what: string) => Type.Literal(RECORD_STATUSES[1], { description: `\`closed\` closes the ${what}` });

/**
 * What a caller wrote (canonical or display form, any letter case) → the proto enum; UNSPECIFIED when it
 * names no value of the set, which the service refuses naming the field.
 */
export function spelled<S extends string, E extends number>(map: EnumMap<S, E>, input: string): E {
  const name = matchValue(input, map.names);
  return name === undefined ? (0 as E) : map.toProto(name);
}

/** A validated JSON spelling of an optional field → its proto enum; absent stays absent. */
export const toProtoIf = <S extends string, E extends number>(map: EnumMap<S, E>, name: S | undefined): E | undefined =>
  name === undefined ? undefined : map.toProto(name);

/** `spelled` for an optional field: absent stays absent. */
export const spelledIf = <S extends string, E extends number>(map: EnumMap<S, E>, input: string | undefined): E | undefined =>
  input === undefined ? undefined : spelled(map, input);

/** Testers and assignees. */
export const MemberJson = Type.Object(
  { _id: Type.String(), name: Type.String(), email: Type.String() },
  { examples: [{ _id: '66a1f0c2e4b0a1b2c3d4e530', name: 'Ada Lovelace', email: 'ada@example.com' }] },
);
export const memberJson = (m: Member): Static<typeof MemberJson> => ({ _id: m.id, name: m.name, email: m.email });

const linkedIssueFields = {
  provider: Type.Optional(Type.String()),
  displayId: Type.Optional(Type.String()),
  url: Type.Optional(Type.String()),
  title: Type.Optional(Type.String()),
};

export const LinkedIssueJson = Type.Object(linkedIssueFields, { description: 'an issue-tracker ticket; needs displayId or url' });

/** Body form: the same fields, no others. */
export const LinkedIssueBody = Type.Array(Type.Object(linkedIssueFields, { additionalProperties: false }), {
  description: 'issue-tracker tickets: objects with provider, displayId, url, title (displayId or url required)',
});

export function linkedIssueJson(i: LinkedIssue): Static<typeof LinkedIssueJson> {
  const out: Static<typeof LinkedIssueJson> = {};
  if (i.provider !== undefined) out.provider = i.provider;
  if (i.displayId !== undefined) out.displayId = i.displayId;
  if (i.url !== undefined) out.url = i.url;
  if (i.title !== undefined) out.title = i.title;
  return out;
}

/** A suite as cases and run cases reference it; null when the case is in no suite. */
export const SuiteRefJson = Nullable(Type.Object({ _id: Type.String(), name: Type.String() }));
export const suiteRefJson = (s: { id: string; name: string } | undefined) => (s ? { _id: s.id, name: s.name } : null);

/** The name of a release, session or manual run. */
const RecordName = Name(MAX_RECORD_NAME);

/**
 * The create and update bodies of a release, session or manual run: create requires `name` and takes `fields`
 * and `createOnly`; update takes `name` and `fields` optionally (at least one property) and `updateOnly`.
 */
export function recordBodies<F extends TProperties, C extends TProperties, U extends TProperties>(fields: F, createOnly: C, updateOnly: U) {
  return {
    create: Type.Object({ name: RecordName, ...fields, ...createOnly }, { additionalProperties: false }),
    update: Type.Object({ name: Type.Optional(RecordName), ...fields, ...updateOnly }, { additionalProperties: false, minProperties: 1 }),
  };
}

/** The last fields of a release, session or manual run read: who changed it last, and when it was written. */
export const recordTrail = { metadata: Type.Object({ lastModifiedBy: Person }), createdAt: DateTime, updatedAt: DateTime };

export const recordTrailJson = (r: { lastModifiedBy?: UserRef; createdAt?: Timestamp; updatedAt?: Timestamp }) => ({
  metadata: { lastModifiedBy: personJson(r.lastModifiedBy) },
  createdAt: isoRequired(r.createdAt),
  updatedAt: isoRequired(r.updatedAt),
});
