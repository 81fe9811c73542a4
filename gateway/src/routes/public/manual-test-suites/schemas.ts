/** Spec §2.4 suite shape and the §4.4 create body. */
import { Type, type Static } from '@sinclair/typebox';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import type { Suite } from '@assay/proto/assay/manualtesting/v1/manual_testing_pb';

const Person = Type.Union([Type.Object({ name: Type.String(), email: Type.String() }), Type.Null()]);

export const SuiteSchema = Type.Recursive(
  (This) =>
    Type.Object({
      _id: Type.String(),
      name: Type.String(),
      description: Type.String(),
      metadata: Type.Object({ lastModifiedBy: Person }),
      hierarchy: Type.Object({
        parentSuite: Type.Union([Type.Object({ _id: Type.String(), name: Type.String() }), Type.Null()]),
        order: Type.Integer({ description: 'display order within the parent' }),
        depth: Type.Integer({ minimum: 1, maximum: 6, description: '1 = root' }),
      }),
      childSuitesCount: Type.Integer({ minimum: 0 }),
      children: Type.Array(This),
      updatedAt: Type.String({ format: 'date-time' }),
    }),
  { $id: 'ManualTestSuite', title: 'ManualTestSuite' },
);
export type SuiteJson = Static<typeof SuiteSchema>;

export const CreateSuiteBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 500, pattern: '\\S' }),
    description: Type.Optional(Type.String({ maxLength: 2000 })),
    parentSuiteId: Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: 'omit for a top-level suite; depth ≤ 6' })),
  },
  { additionalProperties: false },
);
export type CreateSuiteBodyValue = Static<typeof CreateSuiteBody>;

export const UpdateSuiteBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 500, pattern: '\\S' })),
    description: Type.Optional(Type.String({ maxLength: 2000 })),
    parentSuiteId: Type.Optional(
      Type.Union([Type.String({ minLength: 1, maxLength: 128 }), Type.Null()], {
        description: 'move under this suite (depth of the moved subtree ≤ 6); null moves it to the top level',
      }),
    ),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateSuiteBodyValue = Static<typeof UpdateSuiteBody>;

export function suiteToJson(s: Suite): SuiteJson {
  return {
    _id: s.id,
    name: s.name,
    description: s.description,
    metadata: { lastModifiedBy: s.lastModifiedBy ? { name: s.lastModifiedBy.name, email: s.lastModifiedBy.email } : null },
    hierarchy: {
      parentSuite: s.parentSuite ? { _id: s.parentSuite.id, name: s.parentSuite.name } : null,
      order: s.order,
      depth: s.depth,
    },
    childSuitesCount: s.childSuitesCount,
    children: s.children.map(suiteToJson),
    updatedAt: s.updatedAt ? timestampDate(s.updatedAt).toISOString() : new Date(0).toISOString(),
  };
}
