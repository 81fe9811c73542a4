/**
 * The `manual-test-suites` family (spec §2.4, §4.4; CONTRACT §2): the suite tree shape, the create and update
 * bodies, the path parameters and the proto → JSON mapper.
 */
import { Type, type Static } from '@sinclair/typebox';
import type { Suite } from '@assay/proto/assay/manualtesting/v1/manual_testing_pb';
import { DateTime, isoRequired, Name, Person, personJson, withExamples } from '../common/json';
import { SuiteRefJson, suiteRefJson } from './common';
import { MAX_SUITE_DEPTH, MAX_SUITE_DESCRIPTION, MAX_SUITE_ID, MAX_SUITE_NAME } from './values';

export const SuiteSchema = Type.Recursive(
  (This) =>
    Type.Object({
      _id: Type.String(),
      name: Type.String(),
      description: Type.String(),
      metadata: Type.Object({ lastModifiedBy: Person }),
      hierarchy: Type.Object({
        parentSuite: SuiteRefJson,
        order: Type.Integer({ description: 'display order within the parent' }),
        depth: Type.Integer({ minimum: 1, maximum: MAX_SUITE_DEPTH, description: '1 = root' }),
      }),
      childSuitesCount: Type.Integer({ minimum: 0 }),
      children: Type.Array(This),
      updatedAt: DateTime,
    }),
  { $id: 'ManualTestSuite', title: 'ManualTestSuite' },
);
export type SuiteJson = Static<typeof SuiteSchema>;

export const SuiteParams = Type.Object({ projectId: Type.String(), suiteId: Type.String() });

const SuiteName = Name(MAX_SUITE_NAME);
const SuiteDescription = Type.String({ maxLength: MAX_SUITE_DESCRIPTION });

export const CreateSuiteBody = withExamples(
  Type.Object(
    {
      name: SuiteName,
      description: Type.Optional(SuiteDescription),
      parentSuiteId: Type.Optional(
        Type.String({ minLength: 1, maxLength: MAX_SUITE_ID, description: `omit for a top-level suite; depth ≤ ${MAX_SUITE_DEPTH}` }),
      ),
    },
    { additionalProperties: false },
  ),
  { name: 'Payments', description: 'Card and wallet payments at checkout', parentSuiteId: '66a1f0c2e4b0a1b2c3d4e510' },
);

export const UpdateSuiteBody = withExamples(
  Type.Object(
    {
      name: Type.Optional(SuiteName),
      description: Type.Optional(SuiteDescription),
      parentSuiteId: Type.Optional(
        Type.Union([Type.String({ minLength: 1, maxLength: MAX_SUITE_ID }), Type.Null()], {
          description: `move under this suite (depth of the moved subtree ≤ ${MAX_SUITE_DEPTH}); null moves it to the top level`,
        }),
      ),
    },
    { additionalProperties: false, minProperties: 1 },
  ),
  { name: 'Payments (web)', parentSuiteId: null },
);

export function suiteToJson(s: Suite): SuiteJson {
  return {
    _id: s.id,
    name: s.name,
    description: s.description,
    metadata: { lastModifiedBy: personJson(s.lastModifiedBy) },
    hierarchy: {
      parentSuite: suiteRefJson(s.parentSuite),
      order: s.order,
      depth: s.depth,
    },
    childSuitesCount: s.childSuitesCount,
    children: s.children.map(suiteToJson),
    updatedAt: isoRequired(s.updatedAt),
  };
}
