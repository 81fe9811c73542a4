/**
 * Manual run and run-case shapes: the spec §4.4 bodies, and reads with the write field names (CONTRACT §9)
 * plus the run's rollup counts per verdict (`stats`).
 */
import { Type, type Static } from '@sinclair/typebox';
import type { ManualRun, RunCase } from '@assay/proto/assay/manualtesting/v1/manual_testing_pb';
import {
  DateTime,
  iso,
  isoRequired,
  LinkedIssueBody,
  LinkedIssueJson,
  linkedIssueJson,
  MemberJson,
  memberJson,
  Nullable,
  Person,
  personJson,
} from '@assay/contracts/common/json';

const VERDICTS = ['untested', 'passed', 'failed', 'blocked', 'skipped', 'retest'];
const Verdict = Type.Union(VERDICTS.map((v) => Type.Literal(v)));

export const ManualRunSchema = Type.Object(
  {
    _id: Type.String(),
    name: Type.String(),
    note: Type.String({ description: 'sanitized HTML' }),
    environment: Nullable(Type.String()),
    releaseId: Nullable(Type.String()),
    state: Nullable(Type.String()),
    selectionMode: Type.Union([Type.Literal('all'), Type.Literal('selected')]),
    includeUnsorted: Type.Boolean(),
    forecast: Nullable(Type.Number()),
    tags: Type.Array(Type.String()),
    linkedIssues: Type.Array(LinkedIssueJson),
    links: Type.Array(Type.Object({ title: Type.String(), url: Type.String() })),
    status: Type.Union([Type.Literal('open'), Type.Literal('closed')]),
    closedAt: Nullable(DateTime),
    stats: Type.Object(
      {
        total: Type.Integer(),
        untested: Type.Integer(),
        passed: Type.Integer(),
        failed: Type.Integer(),
        blocked: Type.Integer(),
        skipped: Type.Integer(),
        retest: Type.Integer(),
      },
      { description: 'cases of the run per verdict' },
    ),
    metadata: Type.Object({ lastModifiedBy: Person }),
    createdAt: DateTime,
    updatedAt: DateTime,
  },
  { $id: 'ManualRun', title: 'ManualRun' },
);
type ManualRunJson = Static<typeof ManualRunSchema>;

export function runToJson(r: ManualRun): ManualRunJson {
  const s = r.stats!;
  return {
    _id: r.id,
    name: r.name,
    note: r.note,
    environment: r.environment ?? null,
    releaseId: r.releaseId ?? null,
    state: r.state ?? null,
    selectionMode: r.selectionMode as 'all' | 'selected',
    includeUnsorted: r.includeUnsorted,
    forecast: r.forecast ?? null,
    tags: r.tags,
    linkedIssues: r.linkedIssues.map(linkedIssueJson),
    links: r.links.map((l) => ({ title: l.title, url: l.url })),
    status: r.status as 'open' | 'closed',
    closedAt: iso(r.closedAt),
    stats: {
      total: s.total,
      untested: s.untested,
      passed: s.passed,
      failed: s.failed,
      blocked: s.blocked,
      skipped: s.skipped,
      retest: s.retest,
    },
    metadata: { lastModifiedBy: personJson(r.lastModifiedBy) },
    createdAt: isoRequired(r.createdAt),
    updatedAt: isoRequired(r.updatedAt),
  };
}

export const RunCaseSchema = Type.Object(
  {
    _id: Type.String({ description: 'the run-case id' }),
    runId: Type.String(),
    testCase: Type.Object({
      _id: Type.String(),
      caseId: Type.String({ description: '`TC-<n>`' }),
      title: Type.String(),
      suite: Nullable(Type.Object({ _id: Type.String(), name: Type.String() })),
    }),
    result: Verdict,
    assignee: Nullable(MemberJson),
    elapsed: Nullable(Type.Number({ minimum: 0, description: 'seconds' })),
    comment: Type.String({ description: 'sanitized HTML' }),
    linkedIssues: Type.Array(LinkedIssueJson),
    stepResults: Type.Array(Type.Object({ order: Type.Integer(), status: Verdict, comment: Type.String() })),
    updatedAt: DateTime,
  },
  { $id: 'ManualRunTestCase', title: 'ManualRunTestCase' },
);
type RunCaseJson = Static<typeof RunCaseSchema>;

export function runCaseToJson(c: RunCase): RunCaseJson {
  const tc = c.testCase!;
  return {
    _id: c.id,
    runId: c.runId,
    testCase: { _id: tc.id, caseId: tc.caseId, title: tc.title, suite: tc.suite ? { _id: tc.suite.id, name: tc.suite.name } : null },
    result: c.result as RunCaseJson['result'],
    assignee: c.assignee ? memberJson(c.assignee) : null,
    elapsed: c.elapsed ?? null,
    comment: c.comment,
    linkedIssues: c.linkedIssues.map(linkedIssueJson),
    stepResults: c.stepResults.map((s) => ({ order: s.order, status: s.status as RunCaseJson['result'], comment: s.comment })),
    updatedAt: isoRequired(c.updatedAt),
  };
}

const Name = Type.String({ minLength: 1, maxLength: 255, pattern: '\\S' });
const Links = Type.Array(
  Type.Object({ title: Type.String({ minLength: 1 }), url: Type.String({ format: 'uri' }) }, { additionalProperties: false }),
);
const SelectionMode = Type.Union([Type.Literal('all'), Type.Literal('selected')], {
  description: '`all` (default): every active case; `selected`: testCaseIds and suiteIds (with their sub-suites)',
});

const common = {
  note: Type.Optional(Type.String({ description: 'rich HTML; sanitized before storage' })),
  environment: Type.Optional(Type.String()),
  state: Type.Optional(Type.String()),
  selectionMode: Type.Optional(SelectionMode),
  forecast: Type.Optional(Type.Number({ minimum: 0 })),
  tags: Type.Optional(Type.Array(Type.String())),
  linkedIssues: Type.Optional(LinkedIssueBody),
  links: Type.Optional(Links),
};

export const CreateManualRunBody = Type.Object(
  {
    name: Name,
    ...common,
    releaseId: Type.Optional(Type.String()),
    testCaseIds: Type.Optional(Type.Array(Type.String(), { description: 'case `_id`s or `TC-<n>` numbers (selected mode)' })),
    suiteIds: Type.Optional(Type.Array(Type.String(), { description: 'suites whose active cases, sub-suites included, join the run' })),
    includeUnsorted: Type.Optional(Type.Boolean({ description: 'also the active cases that are in no suite' })),
  },
  { additionalProperties: false },
);

export const UpdateManualRunBody = Type.Object(
  {
    name: Type.Optional(Name),
    ...common,
    releaseId: Type.Optional(Nullable(Type.String({ description: 'the only field a closed run accepts; null detaches' }))),
    status: Type.Optional(Type.Literal('closed', { description: '`closed` closes the run' })),
  },
  { additionalProperties: false, minProperties: 1 },
);

export interface ManualRunBodyValue {
  name?: string;
  note?: string;
  environment?: string;
  releaseId?: string | null;
  state?: string;
  selectionMode?: 'all' | 'selected';
  testCaseIds?: string[];
  suiteIds?: string[];
  includeUnsorted?: boolean;
  forecast?: number;
  tags?: string[];
  linkedIssues?: Static<typeof LinkedIssueBody>;
  links?: Static<typeof Links>;
  status?: 'closed';
}

export const UpdateRunCaseBody = Type.Object(
  {
    assigneeUserId: Type.Optional(Nullable(Type.String({ description: 'quick verdict: user id or e-mail; null unassigns' }))),
    result: Type.Optional(Type.String({ description: `quick verdict: ${VERDICTS.join(', ')} (display forms accepted)` })),
    status: Type.Optional(Type.String({ description: 'quick verdict: alias of result' })),
    elapsed: Type.Optional(Type.Number({ minimum: 0, description: 'quick verdict: seconds' })),
    comment: Type.Optional(Type.String({ description: 'detailed result: rich HTML, sanitized' })),
    linkedIssues: Type.Optional(LinkedIssueBody),
    stepResults: Type.Optional(
      Type.Array(
        Type.Object(
          {
            order: Type.Integer({ minimum: 1, maximum: 2147483647, description: 'step number' }),
            status: Type.String({ description: VERDICTS.join(', ') }),
            comment: Type.Optional(Type.String({ description: 'rich HTML, sanitized' })),
          },
          { additionalProperties: false },
        ),
        { description: 'detailed result: replaces the step results' },
      ),
    ),
  },
  {
    additionalProperties: false,
    minProperties: 1,
    description:
      'either a quick verdict (assigneeUserId, result/status, elapsed) or a detailed result (comment, linkedIssues, stepResults)',
  },
);

export interface RunCaseBodyValue {
  assigneeUserId?: string | null;
  result?: string;
  status?: string;
  elapsed?: number;
  comment?: string;
  linkedIssues?: Static<typeof LinkedIssueBody>;
  stepResults?: { order: number; status: string; comment?: string }[];
}
