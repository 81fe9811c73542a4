/**
 * The `manual-runs` family (spec §3, §4.4; CONTRACT §2, §9): the manual run read with its rollup counts per
 * verdict (`stats`), the run's test cases (`/manual-runs/{runId}/test-cases`) with their verdicts, the bodies,
 * the path and query parameters, the verdict and selection-mode enum maps and the mappers.
 */
import { Type, type Static } from '@sinclair/typebox';
import { SelectionMode, Verdict, type ManualRun, type RunCase } from '@assay/proto/assay/manualtesting/v1/manual_testing_pb';
import { enumMap } from '../common/enums';
import { DateTime, iso, isoRequired, Nullable, withExamples } from '../common/json';
import { PageQuery } from '../common/pagination';
import {
  CloseStatus,
  LinkedIssueBody,
  LinkedIssueJson,
  linkedIssueJson,
  literals,
  MemberJson,
  memberJson,
  recordBodies,
  recordStatus,
  RecordStatusSchema,
  recordTrail,
  recordTrailJson,
  SuiteRefJson,
  suiteRefJson,
} from './common';
import { MAX_INT32, SELECTION_MODES, VERDICTS, type SelectionModeName, type VerdictName } from './values';

export const verdict = enumMap<VerdictName, Verdict>([
  ['untested', Verdict.UNTESTED],
  ['passed', Verdict.PASSED],
  ['failed', Verdict.FAILED],
  ['blocked', Verdict.BLOCKED],
  ['skipped', Verdict.SKIPPED],
  ['retest', Verdict.RETEST],
]);
export const selectionMode = enumMap<SelectionModeName, SelectionMode>([
  ['all', SelectionMode.ALL],
  ['selected', SelectionMode.SELECTED],
]);

const VerdictSchema = literals(VERDICTS);

export const ManualRunSchema = Type.Object(
  {
    _id: Type.String(),
    name: Type.String(),
    note: Type.String({ description: 'sanitized HTML' }),
    environment: Nullable(Type.String()),
    releaseId: Nullable(Type.String()),
    state: Nullable(Type.String()),
    selectionMode: literals(SELECTION_MODES),
    includeUnsorted: Type.Boolean(),
    forecast: Nullable(Type.Number()),
    tags: Type.Array(Type.String()),
    linkedIssues: Type.Array(LinkedIssueJson),
    links: Type.Array(Type.Object({ title: Type.String(), url: Type.String() })),
    status: RecordStatusSchema,
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
    ...recordTrail,
  },
  { $id: 'ManualRun', title: 'ManualRun' },
);
export type ManualRunJson = Static<typeof ManualRunSchema>;

export function runToJson(r: ManualRun): ManualRunJson {
  const s = r.stats!;
  return {
    _id: r.id,
    name: r.name,
    note: r.note,
    environment: r.environment ?? null,
    releaseId: r.releaseId ?? null,
    state: r.state ?? null,
    selectionMode: selectionMode.fromProto(r.selectionMode),
    includeUnsorted: r.includeUnsorted,
    forecast: r.forecast ?? null,
    tags: r.tags,
    linkedIssues: r.linkedIssues.map(linkedIssueJson),
    links: r.links.map((l) => ({ title: l.title, url: l.url })),
    status: recordStatus.fromProto(r.status),
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
    ...recordTrailJson(r),
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
      suite: SuiteRefJson,
    }),
    result: VerdictSchema,
    assignee: Nullable(MemberJson),
    elapsed: Nullable(Type.Number({ minimum: 0, description: 'seconds' })),
    comment: Type.String({ description: 'sanitized HTML' }),
    linkedIssues: Type.Array(LinkedIssueJson),
    stepResults: Type.Array(Type.Object({ order: Type.Integer(), status: VerdictSchema, comment: Type.String() })),
    updatedAt: DateTime,
  },
  { $id: 'ManualRunTestCase', title: 'ManualRunTestCase' },
);
export type RunCaseJson = Static<typeof RunCaseSchema>;

export function runCaseToJson(c: RunCase): RunCaseJson {
  const tc = c.testCase!;
  return {
    _id: c.id,
    runId: c.runId,
    testCase: { _id: tc.id, caseId: tc.caseId, title: tc.title, suite: suiteRefJson(tc.suite) },
    result: verdict.fromProto(c.result),
    assignee: c.assignee ? memberJson(c.assignee) : null,
    elapsed: c.elapsed ?? null,
    comment: c.comment,
    linkedIssues: c.linkedIssues.map(linkedIssueJson),
    stepResults: c.stepResults.map((s) => ({ order: s.order, status: verdict.fromProto(s.status), comment: s.comment })),
    updatedAt: isoRequired(c.updatedAt),
  };
}

export const RunParams = Type.Object({ projectId: Type.String(), runId: Type.String() });
export const RunCaseParams = Type.Object({
  projectId: Type.String(),
  runId: Type.String(),
  caseRef: Type.String({ description: 'run-case id, case `_id` or `TC-<n>`' }),
});

export const ManualRunsQuery = Type.Object({ ...PageQuery(), status: Type.Optional(RecordStatusSchema) });

export const RunCasesQuery = Type.Object({
  ...PageQuery(),
  result: Type.Optional(Type.String({ description: VERDICTS.join(', ') })),
  assignee: Type.Optional(Type.String({ description: 'user id or e-mail of the assignee; `none` for unassigned cases' })),
});

const Links = Type.Array(
  Type.Object({ title: Type.String({ minLength: 1 }), url: Type.String({ format: 'uri' }) }, { additionalProperties: false }),
);
const SelectionModeSchema = literals(SELECTION_MODES, {
  description:
    '`all` (default): every case of the project, whatever its status; `selected`: testCaseIds and suiteIds (with their sub-suites)',
});

const common = {
  note: Type.Optional(Type.String({ description: 'rich HTML; sanitized before storage' })),
  environment: Type.Optional(Type.String()),
  state: Type.Optional(Type.String()),
  selectionMode: Type.Optional(SelectionModeSchema),
  forecast: Type.Optional(Type.Number({ minimum: 0 })),
  tags: Type.Optional(Type.Array(Type.String())),
  linkedIssues: Type.Optional(LinkedIssueBody),
  links: Type.Optional(Links),
};

const runBodies = recordBodies(
  common,
  {
    releaseId: Type.Optional(Type.String()),
    testCaseIds: Type.Optional(Type.Array(Type.String(), { description: 'case `_id`s or `TC-<n>` numbers (selected mode)' })),
    suiteIds: Type.Optional(Type.Array(Type.String(), { description: 'suites whose active cases, sub-suites included, join the run' })),
    includeUnsorted: Type.Optional(Type.Boolean({ description: 'also the active cases that are in no suite' })),
  },
  {
    releaseId: Type.Optional(Nullable(Type.String({ description: 'the only field a closed run accepts; null detaches' }))),
    forecast: Type.Optional(Nullable(Type.Number({ minimum: 0, description: 'null clears it' }))),
    status: Type.Optional(CloseStatus('run')),
  },
);
export const CreateManualRunBody = withExamples(runBodies.create, {
  name: 'Regression 4.2 (web)',
  environment: 'staging',
  releaseId: '66a1f0c2e4b0a1b2c3d4e520',
  selectionMode: 'selected',
  suiteIds: ['66a1f0c2e4b0a1b2c3d4e510'],
  testCaseIds: ['TC-12'],
  tags: ['regression'],
  links: [{ title: 'Build 1842', url: 'https://ci.example.com/builds/1842' }],
});
export const UpdateManualRunBody = withExamples(runBodies.update, { status: 'closed' });

export const UpdateRunCaseBody = withExamples(
  Type.Object(
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
              order: Type.Integer({ minimum: 1, maximum: MAX_INT32, description: 'step number' }),
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
  ),
  { result: 'failed', assigneeUserId: 'ada@example.com', elapsed: 95 },
  {
    comment: '<p>The total ignores the discount after a page reload.</p>',
    linkedIssues: [
      {
        provider: 'jira',
        displayId: 'SHOP-142',
        url: 'https://jira.example.com/browse/SHOP-142',
        title: 'Discount codes are applied twice',
      },
    ],
    stepResults: [
      { order: 1, status: 'passed' },
      { order: 2, status: 'failed', comment: 'Total shows 42.00 instead of 37.80' },
    ],
  },
);
