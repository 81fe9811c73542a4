/**
 * JSON helpers every domain's contract may use: nullable and date-time shapes, the person of a read
 * (`lastModifiedBy`, authors), timestamps and people from proto to JSON, proto message inits from optional
 * body fields, and the project path parameter.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { timestampDate, type Timestamp } from '@bufbuild/protobuf/wkt';
import type { UserRef } from '@assay/proto/assay/common/v1/common_pb';

export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const DateTime = Type.String({ format: 'date-time' });

/** The pattern of a string with something besides white space in it (the gateway words its refusal as the services do). */
export const NOT_BLANK = '\\S';

/** A name a person gives and reads: 1 to `max` characters, not only white space. */
export const Name = (max: number) => Type.String({ minLength: 1, maxLength: max, pattern: NOT_BLANK });

/**
 * `schema` with the examples the API document shows for it (type-checked against the schema here, validated
 * against it by test/e2e/openapi.test.ts). On a request body: one example per way of using it.
 */
export const withExamples = <T extends TSchema>(
  schema: T,
  ...examples: [Static<T>, ...Static<T>[]]
): T & { examples: [Static<T>, ...Static<T>[]] } => ({ ...schema, examples });

/** `lastModifiedBy` and comment authors: never more than name and e-mail. */
export const Person = Nullable(
  Type.Object({ name: Type.String(), email: Type.String() }, { examples: [{ name: 'Ada Lovelace', email: 'ada@example.com' }] }),
);

export const iso = (t: Timestamp | undefined): string | null => (t ? timestampDate(t).toISOString() : null);
export const isoRequired = (t: Timestamp | undefined): string => (t ? timestampDate(t) : new Date(0)).toISOString();

export const personJson = (u: UserRef | undefined) => (u ? { name: u.name, email: u.email } : null);

/** `{a: 1, b: undefined}` → `{a: 1}`: a proto message init without the fields the body did not send. */
export function defined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

/** For a Nullable* proto field: JSON null → present with no value (clear); a value → its value; absent → absent. */
export const nullable = <T>(v: T | null | undefined): { value?: T } | undefined =>
  v === undefined ? undefined : v === null ? {} : { value: v };

export const ProjectParams = Type.Object({ projectId: Type.String() });
