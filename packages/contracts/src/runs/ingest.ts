/**
 * The `ingest` family (CONTRACT §6): the ingestion API at /api/v1/ingest/{projectId}/… and the compatibility
 * upload `POST /api/reports/playwright`. Bodies stream unparsed from the gateway to the runs service's internal
 * HTTP port, which reads and checks them; the answers below are what the service returns (the bare `data`,
 * the gateway wraps it) and what the gateway documents.
 */
import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { Reasons } from '@assay/errors';
import { literals, TestStatsSchema } from './test-runs';
import { RUN_STATUSES } from './values';

const RunStatusText = Type.String({ description: 'running, passed, failed, interrupted, incomplete' });

/** A sharded build's bookkeeping, in the answers of a run started with a build id. */
export const ShardsSchema = Type.Object({
  total: Type.Union([Type.Integer(), Type.Null()], { description: 'shards of the build (null until a shard names it)' }),
  finished: Type.Array(Type.Integer(), { description: 'shards that have finished' }),
});
export type ShardsJson = Static<typeof ShardsSchema>;

export const StartedSchema = Type.Object({
  runId: Type.String(),
  counter: Type.Integer(),
  status: RunStatusText,
  url: Type.String(),
  buildId: Type.Optional(Type.String({ description: 'when started with a build id: the build whose run this is' })),
  shards: Type.Optional(ShardsSchema),
});
export type StartedJson = Static<typeof StartedSchema>;

/** A run as ingestion answers it: after finish, and after a one-shot report. */
export const RunAnswerSchema = Type.Object({
  runId: Type.String(),
  counter: Type.Integer(),
  status: RunStatusText,
  url: Type.String(),
  testStats: Type.Ref(TestStatsSchema),
  buildId: Type.Optional(Type.String()),
  shards: Type.Optional(ShardsSchema),
});
export type RunAnswerJson = Static<typeof RunAnswerSchema>;

/** A test as reporters name it: file (relative to the test root), title path below the file, Playwright project. */
export const TestRefSchema = Type.Object({ file: Type.String(), titlePath: Type.Array(Type.String()), projectName: Type.String() });
export type TestRefJson = Static<typeof TestRefSchema>;

export const AcceptedSchema = Type.Object({
  runId: Type.String(),
  accepted: Type.Integer({ description: 'attempts in the batch' }),
  tests: Type.Integer(),
  newResults: Type.Integer({ description: 'tests not seen in this run before (a re-sent batch adds none)' }),
  quarantined: Type.Array(TestRefSchema, {
    description: "the batch's tests that active quarantine rules cover: their failures do not fail the run",
  }),
});
export type AcceptedJson = Static<typeof AcceptedSchema>;

/** What an active skip rule matches on (unset criteria are null), as reporters apply it. */
export const SkipListRuleSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  titlePattern: Type.Union([Type.String(), Type.Null()], {
    description: 'case-insensitive RE2 pattern on the full title `describe › test`',
  }),
  file: Type.Union([Type.String(), Type.Null()], { description: 'the test file or a path suffix of it' }),
  tag: Type.Union([Type.String(), Type.Null()], { description: "one of the test's tags (with or without @)" }),
});
export type SkipListRuleJson = Static<typeof SkipListRuleSchema>;

export const SkipListSchema = Type.Object({
  rules: Type.Array(SkipListRuleSchema),
  tests: Type.Array(
    Type.Object({
      testId: Type.String(),
      file: Type.String(),
      titlePath: Type.Array(Type.String()),
      title: Type.String(),
      projectName: Type.String(),
    }),
  ),
});
export type SkipListJson = Static<typeof SkipListSchema>;

export const IngestProjectParams = Type.Object({ projectId: Type.String() });
export const IngestRunParams = Type.Object({ projectId: Type.String(), runId: Type.String() });

/** JUnit XML carries no metadata: it comes in the query. */
export const JUnitQuery = Type.Object({
  branch: Type.Optional(Type.String()),
  commit: Type.Optional(Type.String()),
  commitMessage: Type.Optional(Type.String()),
  author: Type.Optional(Type.String()),
  environment: Type.Optional(Type.String()),
  tags: Type.Optional(Type.String()),
});
export type JUnitQueryValue = Static<typeof JUnitQuery>;

/** The compatibility upload's answer: 200 always, `success: false` with `data.code` when over the plan. */
export const CompatAnswerSchema = Type.Object({
  success: Type.Boolean(),
  message: Type.Optional(Type.String()),
  data: Type.Object({}, { additionalProperties: true }),
});

// ---- what the gateway reads of the service's answers ----------------------------------------------------------

const ServiceError = Type.Object({
  success: Type.Literal(false),
  error: Type.Object({ code: literals(Reasons), message: Type.Optional(Type.String()) }),
});
const ServiceRun = Type.Object({ runId: Type.String(), url: Type.String(), status: literals(RUN_STATUSES) });

/** The service's error envelope, when `body` is one. */
export const serviceErrorOf = (body: unknown): Static<typeof ServiceError>['error'] | undefined =>
  Value.Check(ServiceError, body) ? body.error : undefined;

/** The run a one-shot ingestion answered, when `body` is one. */
export const ingestedRunOf = (body: unknown): Static<typeof ServiceRun> | undefined => (Value.Check(ServiceRun, body) ? body : undefined);
