/**
 * The `test-cases` family (spec §4.2): one test result in detail (`include=history` adds its history) and the
 * past results of one test, paged by offset. Both cross from the runs service as `google.protobuf.Struct`;
 * the service builds the detail with the type declared here.
 */
import { Type, type Static } from '@sinclair/typebox';
import { AttemptStatus, TestOutcome } from '@assay/proto/assay/runs/v1/runs_pb';
import { enumOf } from '../common/enums';
import { Limit } from '../common/pagination';
import { Nullable } from '../common/json';
import { ATTEMPT_STATUSES, HISTORY_MAX_OFFSET, TEST_OUTCOMES, type AttemptStatusName, type TestOutcomeName } from './values';
import { Free } from './test-runs';

/** A result's last attempt status and its outcome, as RunsService.ListRunResults answers them (analytics folds them). */
export const attemptStatus = enumOf<AttemptStatusName, AttemptStatus>(ATTEMPT_STATUSES, AttemptStatus);
export const testOutcome = enumOf<TestOutcomeName, TestOutcome>(TEST_OUTCOMES, TestOutcome);

const DateTime = Type.String({ format: 'date-time' });

export const TestCaseDetailSchema = Type.Object(
  {
    id: Type.String(),
    metadata: Type.Object({ run: Free, test: Free }),
    overview: Type.Object(
      {
        status: Type.String(),
        outcome: Type.String(),
        expectedStatus: Type.String(),
        quarantined: Type.Boolean(),
        duration: Type.Integer(),
        retries: Type.Integer(),
        error: Type.Union([Free, Type.Null()]),
        attempts: Type.Array(Free),
        steps: Type.Array(Free),
        attachments: Type.Array(Free),
      },
      { additionalProperties: true },
    ),
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
        recent: Type.Array(Free),
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

export const HistoryPage = Type.Object({ success: Type.Literal(true), data: Type.Array(Free), pagination: OffsetPagination });

export function offsetPagination(offset: number, limit: number, returned: number, total: number): Static<typeof OffsetPagination> {
  const hasNext = offset + returned < total;
  return { offset, limit, total, hasNext, hasMore: hasNext };
}
