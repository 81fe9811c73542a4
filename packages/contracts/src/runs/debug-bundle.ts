/**
 * The `debug-bundle` family (CONTRACT §2, §9): everything needed to debug a failure at run, suite (spec file)
 * or test scope, as JSON or Markdown. The bundle crosses from the runs service as a `google.protobuf.Struct`;
 * its shapes are the schemas below (the service builds it with their Static types, the gateway serializes and
 * documents it with them), and so are the stored pieces of a report it shows: errors, steps and attachments.
 */
import { Type, type Static } from '@sinclair/typebox';
import { BundleFormat } from '@assay/proto/assay/runs/v1/runs_pb';
import { enumOf } from '../common/enums';
import { Ok } from '../common/envelope';
import { Nullable } from '../common/json';
import { ArtifactSchema } from './artifacts';
import { ATTEMPT_STATUSES, BUNDLE_FORMATS, BUNDLE_MAX_LENGTH, TEST_STATUSES, type BundleFormatName } from './values';
import { literals, TestCaseSchema, TestRunSchema } from './test-runs';

export const bundleFormat = enumOf<BundleFormatName, BundleFormat>(BUNDLE_FORMATS, BundleFormat);

export const DebugBundleQuery = Type.Object({
  runId: Type.Optional(Type.String()),
  suiteId: Type.Optional(Type.String()),
  caseId: Type.Optional(Type.String()),
  format: Type.Optional(literals(BUNDLE_FORMATS, { default: BUNDLE_FORMATS[0] })),
  maxLength: Type.Optional(
    Type.Integer({ minimum: BUNDLE_MAX_LENGTH.minimum, maximum: BUNDLE_MAX_LENGTH.maximum, description: 'longest error text kept' }),
  ),
});

// ---- stored pieces of a report --------------------------------------------------------------------------------

export const SourceLocationSchema = Type.Object({ file: Type.String(), line: Type.Integer(), column: Type.Integer() });
export type SourceLocation = Static<typeof SourceLocationSchema>;

/** One error of an attempt (or of the report), ANSI codes stripped. */
export const TestErrorSchema = Type.Object({
  message: Type.String(),
  stack: Type.Optional(Type.String()),
  location: Type.Optional(SourceLocationSchema),
  snippet: Type.Optional(Type.String({ description: 'the source lines around the failure, as the reporter printed them' })),
});
export type TestErrorJson = Static<typeof TestErrorSchema>;

/** One step of an attempt, with its nested steps (a component of its own: it refers to itself). */
export const TestStepSchema = Type.Recursive(
  (Step) =>
    Type.Object({
      title: Type.String(),
      category: Type.Optional(Type.String({ description: 'e.g. test.step, expect, pw:api, hook' })),
      duration: Type.Number({ description: 'ms' }),
      error: Type.Optional(TestErrorSchema),
      steps: Type.Array(Step),
    }),
  { $id: 'TestStep', title: 'TestStep' },
);
export type StepJson = Static<typeof TestStepSchema>;

/** An attachment as reported (its body is not kept, only its size). */
export const AttachmentSchema = Type.Object({
  name: Type.String(),
  contentType: Type.String(),
  path: Type.Optional(Type.String()),
  size: Type.Optional(Type.Integer({ description: 'bytes of an inline body' })),
});
export type AttachmentJson = Static<typeof AttachmentSchema>;

export const AnnotationSchema = Type.Object({ type: Type.String(), description: Type.Optional(Type.String()) });
export type AnnotationJson = Static<typeof AnnotationSchema>;

/** An attachment with the attempt (retry) it belongs to and, once its bytes are uploaded, the stored artifact. */
export const AttemptAttachmentSchema = Type.Composite([
  AttachmentSchema,
  Type.Object({
    retry: Type.Integer(),
    artifact: Type.Optional(Nullable(ArtifactSchema)),
  }),
]);
export type AttemptAttachmentJson = Static<typeof AttemptAttachmentSchema>;

// ---- the bundles ----------------------------------------------------------------------------------------------

/** Deep links to the web app's pages. */
const LinksSchema = Type.Object({
  run: Type.String(),
  suite: Type.Optional(Type.String({ description: 'suite scope: the spec file in this run' })),
  testCase: Type.Optional(Type.String({ description: 'test scope: this result' })),
  history: Type.Optional(Type.String({ description: "test scope: the test's history" })),
});
export type BundleLinks = Static<typeof LinksSchema>;

/** A failing test of a run, deduplicated over browser projects. */
const FailingTestSchema = Type.Composite([
  TestCaseSchema,
  Type.Object({ occurrences: Type.Integer({ description: 'browser projects it failed in' }), projects: Type.Array(Type.String()) }),
]);
export type FailingTestJson = Static<typeof FailingTestSchema>;

export const RunBundleSchema = Type.Object({
  scope: Type.Literal('run'),
  run: Type.Ref(TestRunSchema),
  failingSuites: Type.Array(Type.Object({ id: Type.String(), file: Type.String(), failed: Type.Integer(), flaky: Type.Integer() })),
  failingTests: Type.Array(FailingTestSchema),
  links: LinksSchema,
});
export type RunBundleJson = Static<typeof RunBundleSchema>;

export const SuiteBundleSchema = Type.Object({
  scope: Type.Literal('suite'),
  run: Type.Ref(TestRunSchema),
  suite: Type.Object({ id: Type.String(), file: Type.String(), total: Type.Integer() }),
  failingTests: Type.Array(Type.Ref(TestCaseSchema)),
  flakyTests: Type.Array(Type.Ref(TestCaseSchema)),
  links: LinksSchema,
});
export type SuiteBundleJson = Static<typeof SuiteBundleSchema>;

/** A run at the edge of a test's failure window. */
const WindowPointSchema = Type.Object({
  runId: Type.String(),
  runCounter: Type.Integer(),
  caseId: Type.String(),
  status: literals(TEST_STATUSES),
  at: Type.String({ format: 'date-time', description: "the run's start" }),
  commit: Type.Object({ hash: Type.String(), message: Type.String(), author: Type.String() }),
  url: Type.String({ description: 'the run in the web app' }),
});
export type WindowPointJson = Static<typeof WindowPointSchema>;

export const TestBundleSchema = Type.Object({
  scope: Type.Literal('test'),
  run: Type.Ref(TestRunSchema),
  test: Type.Composite([
    TestCaseSchema,
    Type.Object({ location: Nullable(SourceLocationSchema), annotations: Type.Array(AnnotationSchema) }),
  ]),
  error: Nullable(TestErrorSchema),
  steps: Type.Array(Type.Ref(TestStepSchema)),
  attempts: Type.Array(
    Type.Object({
      retry: Type.Integer(),
      status: literals(ATTEMPT_STATUSES),
      duration: Type.Integer(),
      startTime: Nullable(Type.String({ format: 'date-time' })),
      error: Nullable(Type.Object({ message: Type.String(), location: Nullable(SourceLocationSchema) })),
    }),
  ),
  failureWindow: Type.Object(
    {
      branch: Type.String(),
      lastPassing: Nullable(WindowPointSchema),
      firstFailing: Nullable(WindowPointSchema),
      failingRunsSince: Type.Integer({ description: 'failing runs of this test on the branch since it last passed' }),
    },
    { description: "on the run's branch: the last run where this test passed and the first failing run after it" },
  ),
  artifacts: Type.Array(AttemptAttachmentSchema),
  trace: Nullable(
    Type.Object({
      name: Type.String(),
      path: Nullable(Type.String()),
      contentType: Type.String(),
      retry: Type.Integer(),
      url: Type.Optional(Nullable(Type.String({ description: 'signed download URL of the stored trace (null until uploaded)' }))),
      viewerUrl: Type.Optional(Nullable(Type.String({ description: "the stored trace opened in Assay's Playwright trace viewer" }))),
    }),
  ),
  links: LinksSchema,
  retryCommand: Type.String({ description: 'a shell line that reruns just this test' }),
});
export type TestBundleJson = Static<typeof TestBundleSchema>;

export type BundleJson = RunBundleJson | SuiteBundleJson | TestBundleJson;

/** The answer by content type: the envelope, or with `format=md` the same bundle as Markdown without it. */
export const DebugBundleAnswer = {
  description: 'The bundle of the deepest scope asked for; `format=md`: the same as Markdown, without the envelope.',
  content: {
    'application/json': {
      schema: Ok(Type.Union([TestBundleSchema, SuiteBundleSchema, RunBundleSchema], { description: 'by `scope`: test, suite or run' })),
    },
    'text/markdown': { schema: Type.String({ description: 'format=md' }) },
  },
};
