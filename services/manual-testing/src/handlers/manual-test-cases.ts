/**
 * The `manual-test-cases` family: create and update (spec §4.4), get by `_id` or `TC-<n>`, list with the
 * CONTRACT §2 filters (spec §2.3 items), and LinkAutomatedTest for other services (the runs service).
 */
import { create } from '@bufbuild/protobuf';
import type { HandlerContext, ServiceImpl } from '@connectrpc/connect';
import {
  TestCaseSchema,
  type AutomationStatus,
  type Behavior,
  type CaseStatus,
  type CaseType,
  type ClassicStep,
  type GherkinStep,
  type Layer,
  type ManualTestingService,
  type Priority,
  type Severity,
  type StepInput,
  type StepsType,
  type TestCase,
  CreateCaseResponseSchema,
} from '@assay/proto/assay/manualtesting/v1/manual_testing_pb';
import { withTransaction, type PoolClient } from '@assay/db';
import { notFound } from '@assay/errors';
import { pageInfo, paging, requireWriter, withIdempotency } from '@assay/service-kit';
import {
  automationStatus,
  behavior,
  caseFlag,
  caseStatus,
  caseType,
  gherkinKeyword,
  layer,
  linkSource,
  priority,
  severity,
  stepsType,
  type CaseListItemJson,
} from '@assay/contracts/manual-testing/manual-test-cases';
import {
  LINK_SOURCES,
  MAX_CASE_TITLE,
  MAX_COMMENTS_PER_UPDATE,
  MAX_ISSUES_PER_UPDATE,
  MAX_SUITE_ID,
  MAX_SUITE_REF,
  type StepsTypeName,
} from '@assay/contracts/manual-testing/values';
import type { Wiring } from '../wiring';
import {
  commentsOf,
  findCase,
  insertCase,
  insertComments,
  linkedTestsOf,
  listCases,
  nextCaseNumber,
  updateCase,
  upsertLinkedTest,
  type CaseFields,
  type CaseFilter,
  type CaseRow,
  type ClassicStepData,
  type CommentRow,
  type GherkinStepData,
  type LinkedTestRow,
} from '../store/manual-test-cases';
import { findSuite, suitesNamed } from '../store/manual-test-suites';
import { checkCustomFields, declarationType, inferType, parseFlags, parseSteps, parseTags } from '../domain/cases';
import { sanitizeRichHtml } from '../domain/html';
import { checkLength, checkName, enumName, invalid, Violations } from '../domain/violations';
import { authorOf, requireSomeField, ts, userRef } from './common';

function classicStep(s: ClassicStepData, i: number): ClassicStep {
  return {
    step: i + 1,
    action: s.action,
    data: s.data,
    expectedResult: s.expectedResult,
    subSteps: s.subSteps.map(classicStep),
  } as ClassicStep;
}

function gherkinStep(s: GherkinStepData, i: number): GherkinStep {
  return { step: i + 1, keyword: gherkinKeyword.toProto(s.keyword), text: s.text, subSteps: s.subSteps.map(gherkinStep) } as GherkinStep;
}

/** The flags set, in the contract's order. */
function flagsOf(r: CaseRow) {
  const set = { to_be_automated: r.toBeAutomated, is_flaky: r.isFlaky, muted: r.isMuted };
  return caseFlag.names.filter((f) => set[f]).map(caseFlag.toProto);
}

export function toTestCase(r: CaseRow, linked: LinkedTestRow[], detail?: { comments: CommentRow[] }): TestCase {
  return create(TestCaseSchema, {
    id: r.id,
    caseId: `TC-${r.number}`,
    title: r.title,
    description: r.description,
    preconditions: r.preconditions,
    postconditions: r.postconditions,
    suite: r.suiteId ? { id: r.suiteId, name: r.suiteName ?? '' } : undefined,
    lastModifiedBy: userRef(r.lastModifiedBy),
    classification: {
      status: caseStatus.toProto(r.status),
      severity: severity.toProto(r.severity),
      priority: priority.toProto(r.priority),
      type: caseType.toProto(r.type),
      layer: layer.toProto(r.layer),
      behavior: behavior.toProto(r.behavior),
    },
    automation: { status: automationStatus.toProto(r.automationStatus), isFlaky: r.isFlaky, isMuted: r.isMuted },
    steps: {
      type: stepsType.toProto(r.stepsType),
      classic: r.classicSteps.map(classicStep),
      gherkin: r.gherkinSteps.map(gherkinStep),
    },
    tags: r.tags,
    customFields: r.customFields,
    linkedTests: linked.map((l) => ({
      id: l.testId,
      fullTitle: l.fullTitle,
      displayTitle: l.displayTitle ?? undefined,
      linkedAt: ts(l.linkedAt),
      source: linkSource.toProto(l.source),
    })),
    attachments: [],
    createdAt: ts(r.createdAt),
    updatedAt: ts(r.updatedAt),
    flags: detail ? flagsOf(r) : [],
    comments: detail ? detail.comments.map((c) => ({ id: c.id, text: c.text, author: userRef(c.author), createdAt: ts(c.createdAt) })) : [],
    issues: detail ? r.issues : [],
  });
}

type ClassicStepJson = CaseListItemJson['steps']['classic'][number];
type GherkinStepJson = CaseListItemJson['steps']['gherkin'][number];

const classicStepJson = (s: ClassicStepData, i: number): ClassicStepJson => ({
  step: i + 1,
  action: s.action,
  data: s.data,
  expectedResult: s.expectedResult,
  subSteps: s.subSteps.map(classicStepJson),
});

const gherkinStepJson = (s: GherkinStepData, i: number): GherkinStepJson => ({
  step: i + 1,
  keyword: s.keyword,
  text: s.text,
  subSteps: s.subSteps.map(gherkinStepJson),
});

/**
 * The case as the public list shows it (spec §2.3): what `caseToJson(toTestCase(r, linked))` gives, key order
 * included, built straight from the row for the list read that answers JSON (no message in between: building,
 * encoding, decoding and mapping it took ~15 % of this service's and ~40 % of the gateway's CPU on that read,
 * issue 19; a unit test holds the two equal).
 */
function toCaseListItemJson(r: CaseRow, linked: LinkedTestRow[]): CaseListItemJson {
  return {
    _id: r.id,
    caseId: `TC-${r.number}`,
    title: r.title,
    description: r.description,
    preconditions: r.preconditions,
    postconditions: r.postconditions,
    metadata: {
      suite: r.suiteId ? { _id: r.suiteId, name: r.suiteName ?? '' } : null,
      lastModifiedBy: r.lastModifiedBy ? { name: r.lastModifiedBy.name, email: r.lastModifiedBy.email } : null,
    },
    classification: { status: r.status, severity: r.severity, priority: r.priority, type: r.type, layer: r.layer, behavior: r.behavior },
    automation: { status: r.automationStatus, isFlaky: r.isFlaky, isMuted: r.isMuted },
    steps: { type: r.stepsType, classic: r.classicSteps.map(classicStepJson), gherkin: r.gherkinSteps.map(gherkinStepJson) },
    tags: r.tags,
    customFields: { ...r.customFields },
    linkedTests: linked.map((l) => ({
      _id: l.testId,
      fullTitle: l.fullTitle,
      displayTitle: l.displayTitle,
      linkedAt: l.linkedAt.toISOString(),
      source: l.source,
    })),
    attachments: [],
    createdAt: r.createdAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
  };
}

async function detailOf(c: PoolClient, projectId: string, caseId: string): Promise<TestCase> {
  const row = (await findCase(c, projectId, caseId))!;
  const [linked, comments] = await Promise.all([linkedTestsOf(c, [row.id]), commentsOf(c, [row.id])]);
  return toTestCase(row, linked, { comments });
}

/** The classification and automation values of create and update bodies and of the list filters. */
interface ClassificationInput {
  status?: CaseStatus;
  priority?: Priority;
  severity?: Severity;
  type?: CaseType;
  layer?: Layer;
  behavior?: Behavior;
  automationStatus?: AutomationStatus;
}

type Classification = Pick<CaseFields, 'status' | 'priority' | 'severity' | 'type' | 'layer' | 'behavior' | 'automationStatus'>;

/** The values sent, by their JSON names; each one that is UNSPECIFIED is a violation at `<part>.<field>`. */
function classificationOf(req: ClassificationInput, part: 'body' | 'query', v: Violations): Partial<Classification> {
  const out: Partial<Classification> = {};
  const set = <K extends keyof Classification>(key: K, value: Classification[K] | undefined) => {
    if (value !== undefined) out[key] = value;
  };
  if (req.status !== undefined) set('status', enumName(caseStatus, req.status, `${part}.status`, v));
  if (req.priority !== undefined) set('priority', enumName(priority, req.priority, `${part}.priority`, v));
  if (req.severity !== undefined) set('severity', enumName(severity, req.severity, `${part}.severity`, v));
  if (req.type !== undefined) set('type', enumName(caseType, req.type, `${part}.type`, v));
  if (req.layer !== undefined) set('layer', enumName(layer, req.layer, `${part}.layer`, v));
  if (req.behavior !== undefined) set('behavior', enumName(behavior, req.behavior, `${part}.behavior`, v));
  if (req.automationStatus !== undefined)
    set('automationStatus', enumName(automationStatus, req.automationStatus, `${part}.automationStatus`, v));
  return out;
}

/** Applies `testStepsDeclarationType` and `steps` (which replace the whole list of their type). */
function applySteps(req: { testStepsDeclarationType?: StepsType; steps?: StepInput[] }, into: CaseFields, v: Violations): void {
  let type: StepsTypeName | undefined;
  if (req.testStepsDeclarationType !== undefined) type = declarationType(req.testStepsDeclarationType, v);
  if (req.steps !== undefined) {
    const effective = type ?? inferType(req.steps, into.stepsType);
    const parsed = parseSteps(req.steps, effective, v);
    if (parsed.classic) into.classicSteps = parsed.classic;
    if (parsed.gherkin) into.gherkinSteps = parsed.gherkin;
    into.stepsType = effective;
  } else if (type !== undefined) into.stepsType = type;
}

const DEFAULTS: Omit<CaseFields, 'title'> = {
  description: '',
  preconditions: '',
  postconditions: '',
  status: 'active',
  severity: 'not_set',
  priority: 'not_set',
  type: 'other',
  layer: 'not_set',
  behavior: 'not_set',
  automationStatus: 'manual',
  isFlaky: false,
  isMuted: false,
  toBeAutomated: false,
  stepsType: 'classic',
  classicSteps: [],
  gherkinSteps: [],
  tags: [],
  customFields: {},
  issues: [],
};

type CaseRpcs = Pick<ServiceImpl<typeof ManualTestingService>, 'createCase' | 'updateCase' | 'getCase' | 'listCases' | 'linkAutomatedTest'>;

export function manualTestCaseHandlers({ pool }: Wiring): CaseRpcs {
  return {
    async createCase(req, ctx: HandlerContext) {
      const caller = requireWriter(ctx);
      const v = new Violations();
      checkName(req.title, MAX_CASE_TITLE, 'body.title', v);
      if (req.suiteId === undefined && req.suiteName === undefined) v.add('body.suiteId', 'suiteId or suiteName is required');
      checkLength(req.suiteName, MAX_SUITE_REF, 'body.suiteName', v);
      checkLength(req.suiteId, MAX_SUITE_ID, 'body.suiteId', v);
      const fields: CaseFields = {
        ...DEFAULTS,
        title: req.title,
        description: req.description ?? '',
        preconditions: req.preconditions ?? '',
        postconditions: req.postconditions ?? '',
      };
      Object.assign(fields, classificationOf(req, 'body', v));
      applySteps({ testStepsDeclarationType: req.testStepsDeclarationType, steps: req.steps }, fields, v);
      if (req.tags !== undefined) fields.tags = parseTags(req.tags);
      Object.assign(fields, parseFlags(req.flags, v));
      checkCustomFields(req.customFields, v);
      fields.customFields = { ...req.customFields };
      v.throwIfAny();

      return withIdempotency(pool, ctx, CreateCaseResponseSchema, async (c) => {
        // suiteId wins when both are sent; a case never creates a suite.
        let suiteId: string;
        if (req.suiteId !== undefined) {
          const suite = await findSuite(c, req.projectId, req.suiteId);
          if (!suite) invalid('body.suiteId', 'names no suite of this project');
          suiteId = suite.id;
        } else {
          const named = await suitesNamed(c, req.projectId, req.suiteName!);
          if (named.length === 0) invalid('body.suiteName', 'names no suite of this project (names are case-sensitive)');
          if (named.length > 1) invalid('body.suiteName', `${named.length} suites have this name; send suiteId instead`);
          suiteId = named[0]!.id;
        }
        const number = await nextCaseNumber(c, req.projectId);
        const id = await insertCase(c, { projectId: req.projectId, number, suiteId, fields, author: authorOf(caller) });
        return { testCase: await detailOf(c, req.projectId, id) };
      });
    },

    async updateCase(req, ctx: HandlerContext) {
      const caller = requireWriter(ctx);
      requireSomeField([
        req.title,
        req.name,
        req.description,
        req.preconditions,
        req.postconditions,
        req.status,
        req.testStepsDeclarationType,
        req.steps,
        req.priority,
        req.severity,
        req.type,
        req.layer,
        req.behavior,
        req.automationStatus,
        req.tags,
        req.flags,
        req.customFields,
        req.comments.length > 0 ? req.comments : undefined,
        req.issues.length > 0 ? req.issues : undefined,
      ]);
      const testCase = await withTransaction(pool, async (c) => {
        const row = await findCase(c, req.projectId, req.caseRef, true);
        if (!row) throw notFound('Test case');
        const v = new Violations();
        const fields: CaseFields = { ...row };
        if (req.title !== undefined && req.name !== undefined && req.title !== req.name)
          v.add('body.name', 'is an alias of title; send one of them (or both equal)');
        const title = req.title ?? req.name;
        if (title !== undefined) {
          checkName(title, MAX_CASE_TITLE, req.title !== undefined ? 'body.title' : 'body.name', v);
          fields.title = title;
        }
        if (req.description !== undefined) fields.description = req.description;
        if (req.preconditions !== undefined) fields.preconditions = req.preconditions;
        if (req.postconditions !== undefined) fields.postconditions = req.postconditions;
        Object.assign(fields, classificationOf(req, 'body', v));
        applySteps({ testStepsDeclarationType: req.testStepsDeclarationType, steps: req.steps?.steps }, fields, v);
        if (req.tags !== undefined) fields.tags = parseTags(req.tags);
        if (req.flags !== undefined) Object.assign(fields, parseFlags(req.flags.flags, v));
        if (req.customFields !== undefined) {
          checkCustomFields(req.customFields.values, v);
          fields.customFields = { ...req.customFields.values };
        }
        if (req.comments.length > MAX_COMMENTS_PER_UPDATE)
          v.add('body.comments', `must have at most ${MAX_COMMENTS_PER_UPDATE} comments per update`);
        if (req.issues.length > MAX_ISSUES_PER_UPDATE) v.add('body.issues', `must have at most ${MAX_ISSUES_PER_UPDATE} issues per update`);
        req.issues.forEach((issue, i) => {
          if (issue.trim() === '') v.add(`body.issues.${i}`, 'must not be empty');
        });
        v.throwIfAny();
        fields.issues = [...new Set([...row.issues, ...req.issues.map((i) => i.trim())])];
        const author = authorOf(caller);
        await updateCase(c, row.id, fields, author);
        await insertComments(c, row.id, req.comments.map(sanitizeRichHtml), author);
        return detailOf(c, req.projectId, row.id);
      });
      return { testCase };
    },

    async getCase(req) {
      const row = await findCase(pool, req.projectId, req.caseRef);
      if (!row) throw notFound('Test case');
      const [linked, comments] = await Promise.all([linkedTestsOf(pool, [row.id]), commentsOf(pool, [row.id])]);
      return { testCase: toTestCase(row, linked, { comments }) };
    },

    async listCases(req) {
      const v = new Violations();
      const filter: CaseFilter = classificationOf(req, 'query', v);
      if (req.suiteId !== undefined) filter.suiteId = req.suiteId;
      if (req.tags !== undefined) filter.tags = parseTags(req.tags);
      if (req.search !== undefined) filter.search = req.search;
      v.throwIfAny();
      const p = paging(req.page);
      const { rows, total } = await listCases(pool, req.projectId, filter, p.limit, p.offset);
      const linked = Map.groupBy(
        await linkedTestsOf(
          pool,
          rows.map((r) => r.id),
        ),
        (l) => l.caseId,
      );
      const page = pageInfo(p, total);
      if (req.json)
        return { testCasesJson: Buffer.from(JSON.stringify(rows.map((r) => toCaseListItemJson(r, linked.get(r.id) ?? [])))), page };
      return { testCases: rows.map((r) => toTestCase(r, linked.get(r.id) ?? [])), page };
    },

    async linkAutomatedTest(req) {
      // Called by other services (internal token), not on behalf of a public caller: no role check.
      const v = new Violations();
      if (req.projectId === '') v.add('project_id', 'is required');
      if (req.testId.trim() === '') v.add('test_id', 'is required');
      if (req.fullTitle.trim() === '') v.add('full_title', 'is required');
      const source = LINK_SOURCES.find((s) => s === req.source);
      if (source === undefined) v.add('source', `must be one of ${LINK_SOURCES.join(', ')}`);
      v.throwIfAny();
      const row = await findCase(pool, req.projectId, req.caseRef.trim());
      if (!row) return { linked: false, caseId: '', created: false };
      const created = await upsertLinkedTest(pool, {
        caseId: row.id,
        testId: req.testId,
        fullTitle: req.fullTitle,
        displayTitle: req.displayTitle ?? null,
        source: source!,
      });
      return { linked: true, caseId: row.id, created };
    },
  };
}
