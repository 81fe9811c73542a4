/**
 * The `test-cases` family (spec §4.2): one test result in detail (`include=history` adds its history) and the
 * past results of one test, paged by offset. Both cross from the runs service as `google.protobuf.Struct`;
 * the service builds them with the Static types of the schemas declared here.
 */
import { Type, type Static } from '@sinclair/typebox';
import { AttemptStatus, TestOutcome } from '@assay/proto/assay/runs/v1/runs_pb';
import { enumOf } from '../common/enums';
import { Limit } from '../common/pagination';
import { Nullable } from '../common/json';
import { ATTEMPT_STATUSES, HISTORY_MAX_OFFSET, TEST_OUTCOMES, TEST_STATUSES, type AttemptStatusName, type TestOutcomeName } from './values';
import { literals, TestRunSchema } from './test-runs';
import {
  AnnotationSchema,
  AttachmentSchema,
  AttemptAttachmentSchema,
  SourceLocationSchema,
  TestErrorSchema,
  TestStepSchema,
} from './debug-bundle';

/** A result's last attempt status and its outcome, as RunsService.ListRunResults answers them (analytics folds them). */
export const attemptStatus = enumOf<AttemptStatusName, AttemptStatus>(ATTEMPT_STATUSES, AttemptStatus);
export const testOutcome = enumOf<TestOutcomeName, TestOutcome>(TEST_OUTCOMES, TestOutcome);

const DateTime = Type.String({ format: 'date-time' });

/** One attempt of a result, in full (the detail's `overview.attempts`). */
export const AttemptSchema = Type.Object({
  retry: Type.Integer(),
  status: literals(ATTEMPT_STATUSES),
  duration: Type.Integer({ description: 'ms' }),
  startTime: Nullable(DateTime),
  workerIndex: Nullable(Type.Integer()),
  error: Type.Union([TestErrorSchema, Type.Null()], { description: 'its first error' }),
  errors: Type.Array(TestErrorSchema),
  steps: Type.Array(Type.Ref(TestStepSchema)),
  stdout: Type.Array(Type.String(), { description: 'output lines (at most 200)' }),
  stderr: Type.Array(Type.String()),
  attachments: Type.Array(AttachmentSchema),
});
export type AttemptJson = Static<typeof AttemptSchema>;

/** One past result of a test (GET /test-cases/history, and the detail's `history.recent`). */
export const HistoryItemSchema = Type.Object(
  {
    caseId: Type.String({ description: 'the result: GET /test-cases/{caseId}' }),
    testId: Type.String(),
    runId: Type.String(),
    runCounter: Type.Integer(),
    title: Type.String({ description: 'full title (`describe › test`)' }),
    file: Type.String(),
    projectName: Type.String(),
    status: literals(TEST_STATUSES),
    outcome: literals(TEST_OUTCOMES),
    duration: Type.Integer({ description: 'ms' }),
    retries: Type.Integer(),
    branch: Type.String(),
    environment: Type.String(),
    commit: Type.Object({ hash: Type.String(), message: Type.String(), author: Type.String() }),
    startedAt: Type.String({ format: 'date-time', description: "the run's start" }),
    error: Nullable(Type.Object({ message: Type.String() })),
    url: Type.String({ description: 'the result in the web app' }),
  },
  { $id: 'TestHistoryItem', title: 'TestHistoryItem' },
);
export type HistoryItemJson = Static<typeof HistoryItemSchema>;

export const TestCaseDetailSchema = Type.Object(
  {
    id: Type.String(),
    metadata: Type.Object({
      run: Type.Ref(TestRunSchema),
      test: Type.Object({
        id: Type.String({ description: 'testId: GET /test-cases/history?testId=' }),
        title: Type.String(),
        titlePath: Type.Array(Type.String()),
        fullTitle: Type.String(),
        file: Type.String(),
        specId: Type.String({ description: 'its spec file in the run (the debug bundle suiteId)' }),
        projectName: Type.String(),
        location: Nullable(SourceLocationSchema),
        tags: Type.Array(Type.String()),
        annotations: Type.Array(AnnotationSchema),
      }),
    }),
    overview: Type.Object({
      status: literals(TEST_STATUSES),
      outcome: literals(TEST_OUTCOMES),
      expectedStatus: literals(ATTEMPT_STATUSES),
      quarantined: Type.Boolean(),
      duration: Type.Integer(),
      retries: Type.Integer(),
      error: Type.Union([TestErrorSchema, Type.Null()], { description: 'the first error of the last attempt that failed' }),
      attempts: Type.Array(AttemptSchema),
      steps: Type.Array(Type.Ref(TestStepSchema), { description: 'steps of the last attempt that failed, else of the last attempt' }),
      attachments: Type.Array(AttemptAttachmentSchema),
    }),
    url: Type.String(),
    history: Type.Optional(
      Type.Object({
        summary: Type.Object({
          totalRuns: Type.Integer(),
          passed: Type.Integer(),
          failed: Type.Integer(),
          flaky: Type.Integer(),
          skipped: Type.Integer(),
          interrupted: Type.Integer(),
          stabilityScore: Type.Number({ description: 'passed / totalRuns × 100' }),
          lastPassed: Nullable(DateTime),
          lastFailed: Nullable(DateTime),
          lastFlaky: Nullable(DateTime),
        }),
        recent: Type.Array(Type.Ref(HistoryItemSchema)),
      }),
    ),
  },
  { title: 'TestCaseDetail' },
);
export type TestCaseDetailJson = Static<typeof TestCaseDetailSchema>;

export const CaseParams = Type.Object({ projectId: Type.String(), caseId: Type.String() });
export const CaseQuery = Type.Object({ include: Type.Optional(Type.String({ description: 'history or all' })) });

export const HistoryQuery = Type.Object({
  testId: Type.Optional(Type.String()),
  title: Type.Optional(Type.String({ description: 'full title (`describe › test`) or the test title' })),
  branch: Type.Optional(Type.String()),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: HISTORY_MAX_OFFSET, default: 0 })),
  limit: Type.Optional(Limit()),
});

const OffsetPagination = Type.Object({
  offset: Type.Integer(),
  limit: Type.Integer(),
  total: Type.Integer(),
  hasNext: Type.Boolean(),
  hasMore: Type.Boolean(),
});

export const HistoryPage = Type.Object({
  success: Type.Literal(true),
  data: Type.Array(Type.Ref(HistoryItemSchema)),
  pagination: OffsetPagination,
});

export function offsetPagination(offset: number, limit: number, returned: number, total: number): Static<typeof OffsetPagination> {
  const hasNext = offset + returned < total;
  return { offset, limit, total, hasNext, hasMore: hasNext };
}
