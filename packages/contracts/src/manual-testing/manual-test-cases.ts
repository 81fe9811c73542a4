/**
 * The `manual-test-cases` family (spec §2.3, §4.4; CONTRACT §2): the list item and the detail, the create and
 * update bodies, the list filters, the proto ↔ JSON enum maps of the classification, and the mappers both ways
 * (bodies → proto, proto → JSON).
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import type { MessageInitShape } from '@bufbuild/protobuf';
import {
  AutomationStatus,
  Behavior,
  CaseFlag,
  CaseStatus,
  CaseType,
  GherkinKeyword,
  Layer,
  LinkSource,
  Priority,
  Severity,
  StepsType,
  type ClassicStep,
  type GherkinStep,
  type StepInputSchema,
  type TestCase,
} from '@assay/proto/assay/manualtesting/v1/manual_testing_pb';
import { enumMap } from '../common/enums';
import { DateTime, iso, isoRequired, Nullable, Person, personJson, withExamples } from '../common/json';
import { PageQuery } from '../common/pagination';
import { literals, spelled, spelledIf, SuiteRefJson, suiteRefJson, toProtoIf } from './common';
import {
  AUTOMATION_STATUSES,
  BEHAVIORS,
  CASE_STATUSES,
  CASE_TYPES,
  FLAG_DISPLAY,
  GHERKIN_KEYWORDS,
  LAYERS,
  LINK_SOURCES,
  MAX_CASE_TITLE,
  MAX_COMMENTS_PER_UPDATE,
  MAX_ISSUES_PER_UPDATE,
  MAX_STEP_TEXT,
  MAX_STEPS,
  MAX_SUB_STEP_DEPTH,
  MAX_SUITE_ID,
  MAX_SUITE_REF,
  PRIORITIES,
  SEVERITIES,
  STEP_DECLARATION_TYPES,
  STEPS_TYPES,
  type AutomationStatusName,
  type BehaviorName,
  type CaseStatusName,
  type CaseTypeName,
  type FlagName,
  type GherkinKeywordName,
  type LayerName,
  type LinkSourceName,
  type PriorityName,
  type SeverityName,
  type StepDeclarationTypeName,
  type StepsTypeName,
} from './values';

// ---- proto ↔ JSON

export const caseStatus = enumMap<CaseStatusName, CaseStatus>([
  ['active', CaseStatus.ACTIVE],
  ['draft', CaseStatus.DRAFT],
  ['deprecated', CaseStatus.DEPRECATED],
]);
export const severity = enumMap<SeverityName, Severity>([
  ['blocker', Severity.BLOCKER],
  ['critical', Severity.CRITICAL],
  ['major', Severity.MAJOR],
  ['normal', Severity.NORMAL],
  ['minor', Severity.MINOR],
  ['trivial', Severity.TRIVIAL],
  ['not_set', Severity.NOT_SET],
]);
export const priority = enumMap<PriorityName, Priority>([
  ['critical', Priority.CRITICAL],
  ['high', Priority.HIGH],
  ['medium', Priority.MEDIUM],
  ['low', Priority.LOW],
  ['not_set', Priority.NOT_SET],
]);
export const caseType = enumMap<CaseTypeName, CaseType>([
  ['smoke', CaseType.SMOKE],
  ['regression', CaseType.REGRESSION],
  ['functional', CaseType.FUNCTIONAL],
  ['integration', CaseType.INTEGRATION],
  ['e2e', CaseType.E2E],
  ['api', CaseType.API],
  ['unit', CaseType.UNIT],
  ['performance', CaseType.PERFORMANCE],
  ['security', CaseType.SECURITY],
  ['accessibility', CaseType.ACCESSIBILITY],
  ['usability', CaseType.USABILITY],
  ['compatibility', CaseType.COMPATIBILITY],
  ['acceptance', CaseType.ACCEPTANCE],
  ['exploratory', CaseType.EXPLORATORY],
  ['other', CaseType.OTHER],
]);
export const layer = enumMap<LayerName, Layer>([
  ['e2e', Layer.E2E],
  ['api', Layer.API],
  ['unit', Layer.UNIT],
  ['not_set', Layer.NOT_SET],
]);
export const behavior = enumMap<BehaviorName, Behavior>([
  ['positive', Behavior.POSITIVE],
  ['negative', Behavior.NEGATIVE],
  ['destructive', Behavior.DESTRUCTIVE],
  ['not_set', Behavior.NOT_SET],
]);
export const automationStatus = enumMap<AutomationStatusName, AutomationStatus>([
  ['manual', AutomationStatus.MANUAL],
  ['automated', AutomationStatus.AUTOMATED],
]);
export const caseFlag = enumMap<FlagName, CaseFlag>([
  ['to_be_automated', CaseFlag.TO_BE_AUTOMATED],
  ['is_flaky', CaseFlag.IS_FLAKY],
  ['muted', CaseFlag.MUTED],
]);
export const stepsType = enumMap<StepsTypeName, StepsType>([
  ['classic', StepsType.CLASSIC],
  ['gherkin', StepsType.GHERKIN],
]);
/** `testStepsDeclarationType` as written (exactly `Classic` or `Gherkin`). */
export const stepDeclarationType = enumMap<StepDeclarationTypeName, StepsType>([
  ['Classic', StepsType.CLASSIC],
  ['Gherkin', StepsType.GHERKIN],
]);
export const gherkinKeyword = enumMap<GherkinKeywordName, GherkinKeyword>([
  ['Given', GherkinKeyword.GIVEN],
  ['When', GherkinKeyword.WHEN],
  ['Then', GherkinKeyword.THEN],
  ['And', GherkinKeyword.AND],
  ['But', GherkinKeyword.BUT],
]);
export const linkSource = enumMap<LinkSourceName, LinkSource>([
  ['manual_link', LinkSource.MANUAL_LINK],
  ['auto_created', LinkSource.AUTO_CREATED],
]);

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
      keyword: literals(GHERKIN_KEYWORDS),
      text: Type.String(),
      subSteps: Type.Array(This),
    }),
  { $id: 'ManualTestGherkinStep', title: 'GherkinStep' },
);

const FLAG_DISPLAYS = Object.values(FLAG_DISPLAY);

const listItemProperties = {
  _id: Type.String(),
  caseId: Type.String({ description: 'human case number, `TC-<n>`, per project, never reused' }),
  title: Type.String(),
  description: Type.String(),
  preconditions: Type.String(),
  postconditions: Type.String(),
  metadata: Type.Object({ suite: SuiteRefJson, lastModifiedBy: Person }),
  classification: Type.Object({
    status: literals(CASE_STATUSES),
    severity: literals(SEVERITIES),
    priority: literals(PRIORITIES),
    type: literals(CASE_TYPES),
    layer: literals(LAYERS),
    behavior: literals(BEHAVIORS),
  }),
  automation: Type.Object({ status: literals(AUTOMATION_STATUSES), isFlaky: Type.Boolean(), isMuted: Type.Boolean() }),
  steps: Type.Object({
    type: literals(STEPS_TYPES),
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
      source: literals(LINK_SOURCES),
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
export type CaseListItemJson = Static<typeof CaseListItemSchema>;

export const CaseDetailSchema = Type.Object(
  {
    ...listItemProperties,
    flags: Type.Array(literals(FLAG_DISPLAYS), { description: 'the flags set, in their write spelling' }),
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
export type CaseDetailJson = Static<typeof CaseDetailSchema>;

type ClassicStepJson = CaseListItemJson['steps']['classic'][number];
type GherkinStepJson = CaseListItemJson['steps']['gherkin'][number];

const classicJson = (s: ClassicStep): ClassicStepJson => ({
  step: s.step,
  action: s.action,
  data: s.data,
  expectedResult: s.expectedResult,
  subSteps: s.subSteps.map(classicJson),
});
const gherkinJson = (s: GherkinStep): GherkinStepJson => ({
  step: s.step,
  keyword: gherkinKeyword.fromProto(s.keyword),
  text: s.text,
  subSteps: s.subSteps.map(gherkinJson),
});

export function caseToJson(c: TestCase): CaseListItemJson {
  const k = c.classification!;
  return {
    _id: c.id,
    caseId: c.caseId,
    title: c.title,
    description: c.description,
    preconditions: c.preconditions,
    postconditions: c.postconditions,
    metadata: { suite: suiteRefJson(c.suite), lastModifiedBy: personJson(c.lastModifiedBy) },
    classification: {
      status: caseStatus.fromProto(k.status),
      severity: severity.fromProto(k.severity),
      priority: priority.fromProto(k.priority),
      type: caseType.fromProto(k.type),
      layer: layer.fromProto(k.layer),
      behavior: behavior.fromProto(k.behavior),
    },
    automation: {
      status: automationStatus.fromProto(c.automation!.status),
      isFlaky: c.automation!.isFlaky,
      isMuted: c.automation!.isMuted,
    },
    steps: {
      type: stepsType.fromProto(c.steps!.type),
      classic: c.steps!.classic.map(classicJson),
      gherkin: c.steps!.gherkin.map(gherkinJson),
    },
    tags: c.tags,
    customFields: { ...c.customFields },
    linkedTests: c.linkedTests.map((l) => ({
      _id: l.id,
      fullTitle: l.fullTitle,
      displayTitle: l.displayTitle ?? null,
      linkedAt: isoRequired(l.linkedAt),
      source: linkSource.fromProto(l.source),
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

export function caseDetailToJson(c: TestCase): CaseDetailJson {
  return {
    ...caseToJson(c),
    flags: c.flags.map((f) => FLAG_DISPLAY[caseFlag.fromProto(f)]),
    comments: c.comments.map((m) => ({ _id: m.id, text: m.text, author: personJson(m.author), createdAt: iso(m.createdAt) ?? '' })),
    issues: c.issues,
  };
}

// ---- writes

const STEP_TEXT = { maxLength: MAX_STEP_TEXT };

const stepFields = {
  action: Type.Optional(Type.String(STEP_TEXT)),
  expectedResult: Type.Optional(Type.String(STEP_TEXT)),
  data: Type.Optional(Type.String(STEP_TEXT)),
  event: Type.Optional(Type.String({ description: `Gherkin keyword: ${GHERKIN_KEYWORDS.join(', ')}` })),
  stepDescription: Type.Optional(Type.String(STEP_TEXT)),
};

/** A step as written: classic steps use action, expectedResult, data; Gherkin steps event, stepDescription. */
export type StepInputValue = Partial<Record<keyof typeof stepFields, string>> & { subSteps?: StepInputValue[] };

/**
 * A step as written, spelled out level by level so the body schema needs no recursive reference: `subSteps`
 * nest at most MAX_SUB_STEP_DEPTH levels below a top-level step. Which fields belong to which type is checked
 * by the service.
 */
function stepInput(level: number): TSchema {
  return Type.Object(
    {
      ...stepFields,
      subSteps: Type.Optional(
        level < MAX_SUB_STEP_DEPTH
          ? Type.Array(stepInput(level + 1))
          : Type.Array(Type.Never(), { maxItems: 0, description: `sub-steps nest at most ${MAX_SUB_STEP_DEPTH} levels` }),
      ),
    },
    { additionalProperties: false },
  );
}

const Steps = Type.Array(Type.Unsafe<StepInputValue>(stepInput(0)), {
  maxItems: MAX_STEPS,
  description: `at most ${MAX_STEPS} steps; classic steps use action, expectedResult, data; Gherkin steps event, stepDescription`,
});

const withDisplayForms = (values: readonly string[], example: string) =>
  `${values.join(', ')} (display forms such as "${example}" accepted)`;

const classification = {
  status: Type.Optional(Type.String({ description: withDisplayForms(CASE_STATUSES, 'Draft') })),
  testStepsDeclarationType: Type.Optional(literals(STEP_DECLARATION_TYPES)),
  steps: Type.Optional(Steps),
  priority: Type.Optional(Type.String({ description: withDisplayForms(PRIORITIES, 'Not set') })),
  severity: Type.Optional(Type.String({ description: SEVERITIES.join(', ') })),
  type: Type.Optional(Type.String({ description: `${CASE_TYPES.slice(0, 8).join(', ')}, …, ${CASE_TYPES[CASE_TYPES.length - 1]}` })),
  layer: Type.Optional(Type.String({ description: LAYERS.join(', ') })),
  behavior: Type.Optional(Type.String({ description: BEHAVIORS.join(', ') })),
  automationStatus: Type.Optional(Type.String({ description: AUTOMATION_STATUSES.join(' or ') })),
  tags: Type.Optional(Type.String({ description: 'comma-separated, e.g. "smoke,login"' })),
  flags: Type.Optional(Type.Array(Type.String(), { description: FLAG_DISPLAYS.join(', ') })),
  customFields: Type.Optional(
    Type.Record(Type.String(), Type.String(), { description: 'string values; keys must not start with "$" nor contain "."' }),
  ),
};

const texts = {
  description: Type.Optional(Type.String()),
  preconditions: Type.Optional(Type.String()),
  postconditions: Type.Optional(Type.String()),
};

const Title = { minLength: 1, maxLength: MAX_CASE_TITLE };

export const CreateCaseBody = withExamples(
  Type.Object(
    {
      title: Type.String(Title),
      suiteName: Type.Optional(Type.String({ maxLength: MAX_SUITE_REF, description: 'target suite, matched case-sensitively' })),
      suiteId: Type.Optional(Type.String({ maxLength: MAX_SUITE_ID, description: 'target suite `_id`; wins over suiteName' })),
      ...texts,
      ...classification,
    },
    { additionalProperties: false },
  ),
  {
    title: 'Apply a discount code at checkout',
    suiteName: 'Checkout',
    description: 'A valid code lowers the total once.',
    preconditions: 'A cart with one item of 42.00',
    status: 'active',
    testStepsDeclarationType: 'Classic',
    steps: [
      { action: 'Open the cart and choose Checkout', expectedResult: 'The checkout page shows the total 42.00' },
      { action: 'Enter the discount code', data: 'SPRING10', expectedResult: 'The total is 37.80' },
    ],
    priority: 'high',
    severity: 'critical',
    type: 'functional',
    layer: 'e2e',
    behavior: 'positive',
    automationStatus: 'manual',
    tags: 'smoke,checkout',
    flags: ['To be Automated'],
    customFields: { component: 'payments' },
  },
  {
    title: 'Reject an expired discount code',
    suiteName: 'Checkout',
    testStepsDeclarationType: 'Gherkin',
    steps: [
      { event: 'Given', stepDescription: 'a cart with one item of 42.00' },
      { event: 'When', stepDescription: 'I enter the expired code WINTER5' },
      { event: 'Then', stepDescription: 'the code is refused and the total stays 42.00' },
    ],
    behavior: 'negative',
  },
);

export const UpdateCaseBody = withExamples(
  Type.Object(
    {
      title: Type.Optional(Type.String(Title)),
      name: Type.Optional(Type.String({ ...Title, description: 'alias of title' })),
      ...texts,
      ...classification,
      comments: Type.Optional(
        Type.Array(Type.String({ minLength: 1 }), {
          maxItems: MAX_COMMENTS_PER_UPDATE,
          description: 'each appended as a new comment (HTML, sanitized)',
        }),
      ),
      issues: Type.Optional(
        Type.Array(Type.String({ minLength: 1 }), { maxItems: MAX_ISSUES_PER_UPDATE, description: 'issue-tracker keys to link' }),
      ),
    },
    { additionalProperties: false, minProperties: 1 },
  ),
  { priority: 'critical', flags: ['Is flaky'], comments: ['<p>Fails on Safari only.</p>'], issues: ['SHOP-142'] },
);

export const CaseParams = Type.Object({
  projectId: Type.String(),
  caseId: Type.String({ description: 'the case `_id` or its human number (`TC-12`)' }),
});

export const CasesQuery = Type.Object({
  ...PageQuery(),
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
});

export function stepToProto(s: StepInputValue): MessageInitShape<typeof StepInputSchema> {
  return {
    action: s.action,
    expectedResult: s.expectedResult,
    data: s.data,
    event: spelledIf(gherkinKeyword, s.event),
    stepDescription: s.stepDescription,
    subSteps: (s.subSteps ?? []).map(stepToProto),
  };
}

type Classified = Partial<Record<'status' | 'priority' | 'severity' | 'type' | 'layer' | 'behavior' | 'automationStatus', string>> & {
  testStepsDeclarationType?: StepDeclarationTypeName;
};

/**
 * The classification values of a body or a list query as the proto enums (display forms understood; a value
 * that names nothing becomes UNSPECIFIED, which the service refuses at its field).
 */
export function classificationToProto(b: Classified) {
  return {
    testStepsDeclarationType: toProtoIf(stepDeclarationType, b.testStepsDeclarationType),
    status: spelledIf(caseStatus, b.status),
    priority: spelledIf(priority, b.priority),
    severity: spelledIf(severity, b.severity),
    type: spelledIf(caseType, b.type),
    layer: spelledIf(layer, b.layer),
    behavior: spelledIf(behavior, b.behavior),
    automationStatus: spelledIf(automationStatus, b.automationStatus),
  };
}

export const flagsToProto = (flags: readonly string[]): CaseFlag[] => flags.map((f) => spelled(caseFlag, f));
