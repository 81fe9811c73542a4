/** Spec §2.5 TestRunListItem / TestRunDetail, mapped from the runs service's RunSnapshot. */
import { Type } from '@sinclair/typebox';

export const TestStatsSchema = Type.Object(
  {
    total: Type.Integer(),
    passed: Type.Integer({ description: 'tests whose outcome is expected' }),
    failed: Type.Integer({ description: 'tests whose outcome is unexpected (timed-out tests included)' }),
    skipped: Type.Integer(),
    flaky: Type.Integer({ description: 'failed, then passed on a retry (not also counted as passed)' }),
    timedOut: Type.Integer({ description: 'tests whose last attempt timed out' }),
    totalAttempts: Type.Integer(),
    retriedTests: Type.Integer({ description: 'tests with more than one attempt' }),
  },
  { $id: 'TestStats', title: 'TestStats' },
);

export const TestRunSchema = Type.Object(
  {
    id: Type.String(),
    counter: Type.Integer({ description: 'per-project run number' }),
    status: Type.Union(['passed', 'failed', 'interrupted', 'incomplete', 'running'].map((s) => Type.Literal(s))),
    startTime: Type.String({ format: 'date-time' }),
    endTime: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    duration: Type.Integer({ description: 'milliseconds' }),
    testStats: Type.Ref(TestStatsSchema),
    metadata: Type.Object({
      git: Type.Object({
        branch: Type.String(),
        environment: Type.String(),
        commit: Type.Object({ hash: Type.String(), message: Type.String(), author: Type.String() }),
      }),
    }),
    url: Type.String({ description: 'deep link to the run in the web UI' }),
  },
  { $id: 'TestRunListItem', title: 'TestRunListItem' },
);

const Free = Type.Object({}, { additionalProperties: true });
export const TestRunDetailSchema = Type.Composite(
  [
    Type.Omit(TestRunSchema, ['testStats']),
    Type.Object({
      testStats: Type.Ref(TestStatsSchema),
      errorCategory: Type.Object(
        { total: Type.Integer(), categories: Type.Record(Type.String(), Type.Integer()) },
        { description: 'failed tests by category: assertion, timeout, network, element, other' },
      ),
      liveStats: Type.Object(
        {
          isRunning: Type.Boolean(),
          completed: Type.Integer(),
          expected: Type.Union([Type.Integer(), Type.Null()]),
          remaining: Type.Union([Type.Integer(), Type.Null()]),
          progress: Type.Union([Type.Integer(), Type.Null()]),
          quarantined: Type.Integer(),
          interrupted: Type.Integer(),
          lastActivityAt: Type.String({ format: 'date-time' }),
        },
        { additionalProperties: true },
      ),
      tagStats: Type.Array(
        Type.Object({
          tag: Type.String(),
          total: Type.Integer(),
          passed: Type.Integer(),
          failed: Type.Integer(),
          flaky: Type.Integer(),
          skipped: Type.Integer(),
        }),
      ),
      errorGroups: Type.Optional(
        Type.Array(
          Type.Object({
            id: Type.String(),
            fingerprint: Type.String(),
            message: Type.String(),
            count: Type.Integer(),
            failed: Type.Integer(),
            flaky: Type.Integer(),
            tests: Type.Array(Free),
          }),
          { description: 'include=errors' },
        ),
      ),
      coverage: Type.Optional(Type.Union([Free, Type.Null()], { description: 'include=coverage' })),
      specs: Type.Optional(
        Type.Array(
          Type.Object({
            id: Type.String({ description: 'the debug bundle suiteId' }),
            file: Type.String(),
            total: Type.Integer(),
            passed: Type.Integer(),
            failed: Type.Integer(),
            flaky: Type.Integer(),
            skipped: Type.Integer(),
            duration: Type.Integer(),
            url: Type.String(),
            tests: Type.Array(Free),
          }),
          { description: 'include=specs' },
        ),
      ),
      artifacts: Type.Optional(
        Type.Union([Type.Object({ count: Type.Integer(), items: Type.Array(Free) }), Type.Null()], { description: 'include=artifacts' }),
      ),
    }),
  ],
  { title: 'TestRunDetail' },
);

export const TestCaseSchema = Type.Object(
  {
    id: Type.String({ description: 'caseId: one test result in one run' }),
    testId: Type.String({ description: 'stable identity of the test across runs' }),
    runId: Type.String(),
    title: Type.String(),
    titlePath: Type.Array(Type.String()),
    fullTitle: Type.String(),
    file: Type.String(),
    projectName: Type.String(),
    status: Type.Union(['passed', 'failed', 'flaky', 'skipped', 'timedOut', 'interrupted'].map((s) => Type.Literal(s))),
    outcome: Type.String({ description: 'expected, unexpected, flaky, skipped' }),
    duration: Type.Integer(),
    attempts: Type.Integer(),
    retries: Type.Integer(),
    quarantined: Type.Boolean(),
    tags: Type.Array(Type.String()),
    error: Type.Union([Type.Object({ message: Type.String() }), Type.Null()]),
    startedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    url: Type.String(),
  },
  { $id: 'TestCase', title: 'TestCase' },
);
