/**
 * The `test-runs` family (spec §2.5, §4.2): the run as TestRunListItem (also the `data.run` of webhook payloads
 * and the dashboard's active runs), the run detail with its sections, a run's test cases, the queries, and the
 * proto ↔ JSON maps. The detail sections and test cases cross from the runs service as
 * `google.protobuf.Struct`; the service builds them with the types declared here.
 */
import { Type, type SchemaOptions, type Static } from '@sinclair/typebox';
import type { JsonObject } from '@bufbuild/protobuf';
import { RunStatus, type RunSnapshot } from '@assay/proto/assay/events/v1/run_lifecycle_pb';
import { RunSection, TestStatus } from '@assay/proto/assay/runs/v1/runs_pb';
import { AppError } from '@assay/errors';
import { enumOf } from '../common/enums';
import { iso, isoRequired, Nullable, ProjectParams, withExamples } from '../common/json';
import { PageQuery } from '../common/pagination';
import {
  ERROR_CATEGORIES,
  INCLUDE_ALL,
  RUN_SECTIONS,
  RUN_STATUSES,
  TEST_OUTCOMES,
  TEST_STATUSES,
  type RunSectionName,
  type RunStatusName,
  type TestStatusName,
} from './values';

export const runStatus = enumOf<RunStatusName, RunStatus>(RUN_STATUSES, RunStatus);
export const testStatus = enumOf<TestStatusName, TestStatus>(TEST_STATUSES, TestStatus);
export const runSection = enumOf<RunSectionName, RunSection>(RUN_SECTIONS, RunSection);

/** A union of string literals (OpenAPI: `anyOf` of constants, in this order). */
export const literals = <T extends string>(values: readonly T[], options: SchemaOptions = {}) =>
  Type.Union(
    values.map((v) => Type.Literal(v)),
    options,
  );

/** An object whose keys are not declared (nested documents the spec leaves open). */
export const Free = Type.Object({}, { additionalProperties: true });

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
  {
    $id: 'TestStats',
    title: 'TestStats',
    examples: [{ total: 240, passed: 231, failed: 2, skipped: 4, flaky: 3, timedOut: 1, totalAttempts: 249, retriedTests: 6 }],
  },
);
export type TestStatsJson = Static<typeof TestStatsSchema>;

const DateTime = Type.String({ format: 'date-time' });

const GIT_EXAMPLE = {
  git: { branch: 'main', environment: 'staging', commit: { hash: '9f2c1e7a4b3d', message: 'Fix checkout totals', author: 'Ada Lovelace' } },
};

const GitSchema = Type.Object(
  {
    git: Type.Object({
      branch: Type.String(),
      environment: Type.String(),
      commit: Type.Object({ hash: Type.String(), message: Type.String(), author: Type.String() }),
    }),
  },
  { examples: [GIT_EXAMPLE] },
);

export const TestRunSchema = withExamples(
  Type.Object(
    {
      id: Type.String(),
      counter: Type.Integer({ description: 'per-project run number' }),
      status: literals(RUN_STATUSES),
      startTime: DateTime,
      endTime: Type.Union([DateTime, Type.Null()]),
      duration: Type.Integer({ description: 'milliseconds' }),
      testStats: Type.Ref(TestStatsSchema),
      metadata: GitSchema,
      url: Type.String({ description: 'deep link to the run in the web UI' }),
    },
    { $id: 'TestRunListItem', title: 'TestRunListItem' },
  ),
  {
    id: '66a1f0c2e4b0a1b2c3d4e5f6',
    counter: 128,
    status: 'failed',
    startTime: '2026-03-02T09:15:00.000Z',
    endTime: '2026-03-02T09:21:42.000Z',
    duration: 402000,
    testStats: { total: 240, passed: 231, failed: 2, skipped: 4, flaky: 3, timedOut: 1, totalAttempts: 249, retriedTests: 6 },
    metadata: GIT_EXAMPLE,
    url: 'https://assay.example.com/projects/66a1f0c2e4b0a1b2c3d4e500/runs/66a1f0c2e4b0a1b2c3d4e5f6',
  },
);
export type TestRunJson = Static<typeof TestRunSchema>;
/** The example run of the API document (and of the webhook payload examples): a finished run with a failure. */
export const TEST_RUN_EXAMPLE: TestRunJson = TestRunSchema.examples[0];

const DetailSections = Type.Object({
  errorCategory: Type.Object(
    { total: Type.Integer(), categories: Type.Record(Type.String(), Type.Integer()) },
    { description: `failed tests by category: ${ERROR_CATEGORIES.join(', ')}` },
  ),
  liveStats: Type.Object(
    {
      isRunning: Type.Boolean(),
      completed: Type.Integer(),
      expected: Nullable(Type.Integer()),
      remaining: Nullable(Type.Integer()),
      progress: Nullable(Type.Integer()),
      quarantined: Type.Integer(),
      interrupted: Type.Integer(),
      lastActivityAt: DateTime,
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
        tests: Type.Array(Type.Object({ caseId: Type.String(), title: Type.String(), file: Type.String(), projectName: Type.String() }), {
          description: 'the first 10 results of the group',
        }),
      }),
      { description: 'include=errors: failed and flaky results grouped by their error (its first line, volatile parts aside)' },
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
        tests: Type.Array(
          Type.Object({
            caseId: Type.String(),
            title: Type.String(),
            projectName: Type.String(),
            status: literals(TEST_STATUSES),
            duration: Type.Integer(),
            retries: Type.Integer(),
            quarantined: Type.Boolean(),
          }),
        ),
      }),
      { description: 'include=specs' },
    ),
  ),
  artifacts: Type.Optional(
    Type.Union(
      [
        Type.Object({
          count: Type.Integer({ description: 'attachments reported (the list stops at 1,000)' }),
          storedBytes: Type.Integer({ description: "bytes of the run's stored artifacts" }),
          items: Type.Array(Free, { description: 'each attachment with caseId, title, retry and its stored `artifact` (or null)' }),
          files: Type.Array(Free, { description: 'run-level files, e.g. an uploaded HTML report, each an Artifact with its upload path' }),
          htmlReport: Nullable(
            Type.String({
              description:
                "signed URL of the uploaded HTML report's index.html (tdpw --upload-html): the signature covers the report's folder, so its relative links (data/…) load too; served sandboxed, valid as long as the files' URLs",
            }),
          ),
        }),
        Type.Null(),
      ],
      { description: 'include=artifacts' },
    ),
  ),
});
/** What GetRun's `detail` Struct holds: the sections the run detail adds to the run. */
export type RunDetailSectionsJson = Static<typeof DetailSections>;

export const TestRunDetailSchema = Type.Composite(
  [Type.Omit(TestRunSchema, ['testStats']), Type.Object({ testStats: Type.Ref(TestStatsSchema), ...DetailSections.properties })],
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
    status: literals(TEST_STATUSES),
    outcome: Type.String({ description: TEST_OUTCOMES.join(', ') }),
    duration: Type.Integer(),
    attempts: Type.Integer(),
    retries: Type.Integer(),
    quarantined: Type.Boolean(),
    tags: Type.Array(Type.String()),
    error: Type.Union([Type.Object({ message: Type.String() }), Type.Null()]),
    startedAt: Type.Union([DateTime, Type.Null()]),
    url: Type.String(),
  },
  { $id: 'TestCase', title: 'TestCase' },
);
export type TestCaseJson = Static<typeof TestCaseSchema>;

export const RunParams = Type.Object({ projectId: Type.String(), runId: Type.String() });
export { ProjectParams };

export const ListRunsQuery = Type.Object({
  ...PageQuery(),
  start_date: Type.Optional(Type.String({ description: 'RFC 3339; requires end_date' })),
  end_date: Type.Optional(Type.String({ description: 'RFC 3339; requires start_date' })),
  // Not in spec §4.2 (an addition for the web app's run list; clients that do not send them see no change).
  branch: Type.Optional(Type.String({ description: 'only runs of this git branch (exact; values from GET /filters)' })),
  environment: Type.Optional(Type.String({ description: 'only runs of this environment (exact)' })),
  status: Type.Optional(literals(RUN_STATUSES, { description: 'only runs with this status' })),
});

export const RunDetailQuery = Type.Object({ include: Type.Optional(Type.String()) });

export const RunTestCasesQuery = Type.Object({ ...PageQuery(), status: Type.Optional(literals(TEST_STATUSES)) });

/**
 * `include=a,b`: the named values, each one of `allowed` (else 400 at `query.include`). `all` stands for every
 * section and is expanded here.
 */
export function includeOf<S extends string>(raw: string | undefined, sections: readonly S[]): S[] {
  const items = (raw ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const allowed: readonly string[] = [...sections, INCLUDE_ALL];
  const bad = items.find((i) => !allowed.includes(i));
  if (bad !== undefined)
    throw new AppError('VALIDATION_ERROR', `include: unknown value "${bad}"`, {
      details: [{ path: 'query.include', message: `each value must be one of ${allowed.join(', ')}` }],
    });
  return items.includes(INCLUDE_ALL) ? [...sections] : sections.filter((s) => items.includes(s));
}

/** RunSnapshot → TestRunListItem (spec §2.5): one mapping for the gateway's reads and the webhook payloads. */
export function runSnapshotToJson(r: RunSnapshot): TestRunJson {
  const s = r.testStats;
  const git = r.git;
  return {
    id: r.id,
    counter: Number(r.counter),
    status: runStatus.fromProto(r.status),
    startTime: isoRequired(r.startTime),
    endTime: iso(r.endTime),
    duration: Number(r.duration),
    testStats: {
      total: s?.total ?? 0,
      passed: s?.passed ?? 0,
      failed: s?.failed ?? 0,
      skipped: s?.skipped ?? 0,
      flaky: s?.flaky ?? 0,
      timedOut: s?.timedOut ?? 0,
      totalAttempts: s?.totalAttempts ?? 0,
      retriedTests: s?.retriedTests ?? 0,
    },
    metadata: {
      git: {
        branch: git?.branch ?? '',
        environment: git?.environment ?? '',
        commit: { hash: git?.commit?.hash ?? '', message: git?.commit?.message ?? '', author: git?.commit?.author ?? '' },
      },
    },
    url: r.url,
  };
}

/**
 * A document the runs service built with one of this contract's types and sent as a `google.protobuf.Struct`,
 * read back as that type (the service's builders are typed by it; a Struct itself carries no type).
 */
export const documentOf = <T>(s: JsonObject | undefined): T => (s ?? {}) as T;

/** A JSON document as a `google.protobuf.Struct` field takes it (protobuf-es represents those as JsonObject). */
export const structOf = (document: object): JsonObject => JSON.parse(JSON.stringify(document)) as JsonObject;
