/** Spec §2.3 case shapes (list item and detail) and the §4.4 create/update bodies. */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import type { ClassicStep, GherkinStep, StepInput, TestCase } from '@assay/proto/assay/manualtesting/v1/manual_testing_pb';
import { DateTime, iso, isoRequired, Nullable, Person, personJson } from '@assay/contracts/common/json';

// ---- reads

export const ClassicStepSchema = Type.Recursive(
  (This) =>
    Type.Object({
      step: Type.Integer({ description: 'step number within its list, from 1' }),
      action: Type.String(),
      data: Type.String(),
      expectedResult: Type.String(),
      subSteps: Type.Array(This),
    }),
  { $id: 'ManualTestClassicStep', title: 'ClassicStep' },
);

export const GherkinStepSchema = Type.Recursive(
  (This) =>
    Type.Object({
      step: Type.Integer(),
      keyword: Type.Union(['Given', 'When', 'Then', 'And', 'But'].map((k) => Type.Literal(k))),
      text: Type.String(),
      subSteps: Type.Array(This),
    }),
  { $id: 'ManualTestGherkinStep', title: 'GherkinStep' },
);

const SuiteRefJson = Nullable(Type.Object({ _id: Type.String(), name: Type.String() }));

const enumOf = (values: string[]) => Type.Union(values.map((v) => Type.Literal(v)));

const listItemProperties = {
  _id: Type.String(),
  caseId: Type.String({ description: 'human case number, `TC-<n>`, per project, never reused' }),
  title: Type.String(),
  description: Type.String(),
  preconditions: Type.String(),
  postconditions: Type.String(),
  metadata: Type.Object({ suite: SuiteRefJson, lastModifiedBy: Person }),
  classification: Type.Object({
    status: enumOf(['active', 'draft', 'deprecated']),
    severity: enumOf(['blocker', 'critical', 'major', 'normal', 'minor', 'trivial', 'not_set']),
    priority: enumOf(['critical', 'high', 'medium', 'low', 'not_set']),
    type: enumOf([
      'smoke',
      'regression',
      'functional',
      'integration',
      'e2e',
      'api',
      'unit',
      'performance',
      'security',
      'accessibility',
      'usability',
      'compatibility',
      'acceptance',
      'exploratory',
      'other',
    ]),
    layer: enumOf(['e2e', 'api', 'unit', 'not_set']),
    behavior: enumOf(['positive', 'negative', 'destructive', 'not_set']),
  }),
  automation: Type.Object({ status: enumOf(['manual', 'automated']), isFlaky: Type.Boolean(), isMuted: Type.Boolean() }),
  steps: Type.Object({
    type: enumOf(['classic', 'gherkin']),
    classic: Type.Array(Type.Ref(ClassicStepSchema)),
    gherkin: Type.Array(Type.Ref(GherkinStepSchema)),
  }),
  tags: Type.Array(Type.String()),
  customFields: Type.Record(Type.String(), Type.String()),
  linkedTests: Type.Array(
    Type.Object({
      _id: Type.String({ description: 'the automated test id' }),
      fullTitle: Type.String(),
      displayTitle: Nullable(Type.String()),
      linkedAt: DateTime,
      source: enumOf(['manual_link', 'auto_created']),
    }),
  ),
  attachments: Type.Array(
    Type.Object({
      _id: Type.String(),
      fileName: Type.String(),
      originalFileName: Type.String(),
      fileSize: Type.Integer(),
      mimeType: Type.String(),
      blobUrl: Type.String(),
      uploadedAt: DateTime,
      stepRef: Nullable(Type.String()),
    }),
  ),
  createdAt: DateTime,
  updatedAt: DateTime,
};

export const CaseListItemSchema = Type.Object(listItemProperties, {
  $id: 'ManualTestCase',
  title: 'ManualTestCase',
  description: 'spec §2.3 list item',
});

export const CaseDetailSchema = Type.Object(
  {
    ...listItemProperties,
    flags: Type.Array(enumOf(['To be Automated', 'Is flaky', 'Muted']), { description: 'the flags set, in their write spelling' }),
    comments: Type.Array(
      Type.Object({ _id: Type.String(), text: Type.String({ description: 'sanitized HTML' }), author: Person, createdAt: DateTime }),
    ),
    issues: Type.Array(Type.String(), { description: 'linked issue-tracker keys' }),
  },
  {
    $id: 'ManualTestCaseDetail',
    title: 'ManualTestCaseDetail',
    description: 'the §2.3 list item plus flags, comments and linked issue keys (single reads and writes)',
  },
);

type CaseListItem = Static<typeof CaseListItemSchema>;
type CaseDetail = Static<typeof CaseDetailSchema>;

const classicJson = (s: ClassicStep): unknown => ({
  step: s.step,
  action: s.action,
  data: s.data,
  expectedResult: s.expectedResult,
  subSteps: s.subSteps.map(classicJson),
});
const gherkinJson = (s: GherkinStep): unknown => ({
  step: s.step,
  keyword: s.keyword,
  text: s.text,
  subSteps: s.subSteps.map(gherkinJson),
});

export function caseToJson(c: TestCase): CaseListItem {
  return {
    _id: c.id,
    caseId: c.caseId,
    title: c.title,
    description: c.description,
    preconditions: c.preconditions,
    postconditions: c.postconditions,
    metadata: {
      suite: c.suite ? { _id: c.suite.id, name: c.suite.name } : null,
      lastModifiedBy: personJson(c.lastModifiedBy),
    },
    classification: { ...c.classification! } as CaseListItem['classification'],
    automation: {
      status: c.automation!.status,
      isFlaky: c.automation!.isFlaky,
      isMuted: c.automation!.isMuted,
    } as CaseListItem['automation'],
    steps: {
      type: c.steps!.type,
      classic: c.steps!.classic.map(classicJson),
      gherkin: c.steps!.gherkin.map(gherkinJson),
    } as CaseListItem['steps'],
    tags: c.tags,
    customFields: { ...c.customFields },
    linkedTests: c.linkedTests.map((l) => ({
      _id: l.id,
      fullTitle: l.fullTitle,
      displayTitle: l.displayTitle ?? null,
      linkedAt: isoRequired(l.linkedAt),
      source: l.source as 'manual_link' | 'auto_created',
    })),
    attachments: c.attachments.map((a) => ({
      _id: a.id,
      fileName: a.fileName,
      originalFileName: a.originalFileName,
      fileSize: Number(a.fileSize),
      mimeType: a.mimeType,
      blobUrl: a.blobUrl,
      uploadedAt: isoRequired(a.uploadedAt),
      stepRef: a.stepRef ?? null,
    })),
    createdAt: isoRequired(c.createdAt),
    updatedAt: isoRequired(c.updatedAt),
  };
}

export function caseDetailToJson(c: TestCase): CaseDetail {
  return {
    ...caseToJson(c),
    flags: c.flags as CaseDetail['flags'],
    comments: c.comments.map((m) => ({ _id: m.id, text: m.text, author: personJson(m.author), createdAt: iso(m.createdAt) ?? '' })),
    issues: c.issues,
  };
}

// ---- writes

export const MAX_SUB_STEP_DEPTH = 5;
const STEP_TEXT = { maxLength: 5000 };

/**
 * A step as written (classic: action, expectedResult, data; Gherkin: event, stepDescription), spelled out
 * level by level so the body schema needs no recursive reference: `subSteps` nest at most 5 levels below a
 * top-level step. Which fields belong to which type is checked by the service.
 */
function stepInput(level: number): TSchema {
  return Type.Object(
    {
      action: Type.Optional(Type.String(STEP_TEXT)),
      expectedResult: Type.Optional(Type.String(STEP_TEXT)),
      data: Type.Optional(Type.String(STEP_TEXT)),
      event: Type.Optional(Type.String({ description: 'Gherkin keyword: Given, When, Then, And, But' })),
      stepDescription: Type.Optional(Type.String(STEP_TEXT)),
      subSteps: Type.Optional(
        level < MAX_SUB_STEP_DEPTH
          ? Type.Array(stepInput(level + 1))
          : Type.Array(Type.Never(), { maxItems: 0, description: `sub-steps nest at most ${MAX_SUB_STEP_DEPTH} levels` }),
      ),
    },
    { additionalProperties: false },
  );
}

export interface StepInputValue {
  action?: string;
  expectedResult?: string;
  data?: string;
  event?: string;
  stepDescription?: string;
  subSteps?: StepInputValue[];
}

const Steps = Type.Array(stepInput(0), {
  maxItems: 100,
  description: 'at most 100 steps; classic steps use action, expectedResult, data; Gherkin steps event, stepDescription',
});

const classification = {
  status: Type.Optional(Type.String({ description: 'active, draft, deprecated (display forms such as "Draft" accepted)' })),
  testStepsDeclarationType: Type.Optional(Type.Union([Type.Literal('Classic'), Type.Literal('Gherkin')])),
  steps: Type.Optional(Steps),
  priority: Type.Optional(Type.String({ description: 'critical, high, medium, low, not_set (display forms such as "Not set" accepted)' })),
  severity: Type.Optional(Type.String({ description: 'blocker, critical, major, normal, minor, trivial, not_set' })),
  type: Type.Optional(Type.String({ description: 'smoke, regression, functional, integration, e2e, api, unit, performance, …, other' })),
  layer: Type.Optional(Type.String({ description: 'e2e, api, unit, not_set' })),
  behavior: Type.Optional(Type.String({ description: 'positive, negative, destructive, not_set' })),
  automationStatus: Type.Optional(Type.String({ description: 'manual or automated' })),
  tags: Type.Optional(Type.String({ description: 'comma-separated, e.g. "smoke,login"' })),
  flags: Type.Optional(Type.Array(Type.String(), { description: 'To be Automated, Is flaky, Muted' })),
  customFields: Type.Optional(
    Type.Record(Type.String(), Type.String(), { description: 'string values; keys must not start with "$" nor contain "."' }),
  ),
};

const texts = {
  description: Type.Optional(Type.String()),
  preconditions: Type.Optional(Type.String()),
  postconditions: Type.Optional(Type.String()),
};

export const CreateCaseBody = Type.Object(
  {
    title: Type.String({ minLength: 1, maxLength: 500 }),
    suiteName: Type.Optional(Type.String({ maxLength: 500, description: 'target suite, matched case-sensitively' })),
    suiteId: Type.Optional(Type.String({ maxLength: 128, description: 'target suite `_id`; wins over suiteName' })),
    ...texts,
    ...classification,
  },
  { additionalProperties: false },
);

export const UpdateCaseBody = Type.Object(
  {
    title: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 500, description: 'alias of title' })),
    ...texts,
    ...classification,
    comments: Type.Optional(
      Type.Array(Type.String({ minLength: 1 }), { maxItems: 20, description: 'each appended as a new comment (HTML, sanitized)' }),
    ),
    issues: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { maxItems: 50, description: 'issue-tracker keys to link' })),
  },
  { additionalProperties: false, minProperties: 1 },
);

export interface CaseBodyValue {
  title?: string;
  name?: string;
  suiteName?: string;
  suiteId?: string;
  description?: string;
  preconditions?: string;
  postconditions?: string;
  status?: string;
  testStepsDeclarationType?: string;
  steps?: StepInputValue[];
  priority?: string;
  severity?: string;
  type?: string;
  layer?: string;
  behavior?: string;
  automationStatus?: string;
  tags?: string;
  flags?: string[];
  customFields?: Record<string, string>;
  comments?: string[];
  issues?: string[];
}

export function stepToProto(s: StepInputValue): Partial<StepInput> {
  return {
    action: s.action,
    expectedResult: s.expectedResult,
    data: s.data,
    event: s.event,
    stepDescription: s.stepDescription,
    subSteps: (s.subSteps ?? []).map(stepToProto) as StepInput[],
  };
}

export const CaseListQuery = {
  suiteId: Type.Optional(Type.String({ description: 'cases directly in this suite' })),
  status: Type.Optional(Type.String()),
  priority: Type.Optional(Type.String()),
  severity: Type.Optional(Type.String()),
  type: Type.Optional(Type.String()),
  layer: Type.Optional(Type.String()),
  behavior: Type.Optional(Type.String()),
  automationStatus: Type.Optional(Type.String()),
  tags: Type.Optional(Type.String({ description: 'comma-separated; a case matches when it has any of them' })),
  search: Type.Optional(Type.String({ description: 'case-insensitive text in the title, or a case number (`TC-12`)' })),
};
