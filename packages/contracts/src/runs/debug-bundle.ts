/**
 * The `debug-bundle` family (CONTRACT §2, §9): everything needed to debug a failure at run, suite (spec file)
 * or test scope, as JSON or Markdown. The bundle crosses from the runs service as a `google.protobuf.Struct`;
 * its shapes are the types below (the public schema leaves it open beyond `scope`), and so are the stored
 * pieces of a report it shows: errors, steps and attachments.
 */
import { Type } from '@sinclair/typebox';
import { BundleFormat } from '@assay/proto/assay/runs/v1/runs_pb';
import { enumOf } from '../common/enums';
import { Ok } from '../common/envelope';
import { BUNDLE_FORMATS, BUNDLE_MAX_LENGTH, BUNDLE_SCOPES, type BundleFormatName } from './values';
import { literals, type TestCaseJson, type TestRunJson } from './test-runs';

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

export const DebugBundleAnswer = Type.Union([
  Ok(Type.Object({ scope: literals(BUNDLE_SCOPES) }, { additionalProperties: true })),
  Type.String({ description: 'format=md' }),
]);

// ---- stored pieces of a report --------------------------------------------------------------------------------

export interface SourceLocation {
  file: string;
  line: number;
  column: number;
}

/** One error of an attempt (or of the report), ANSI codes stripped. */
export interface TestErrorJson {
  message: string;
  stack?: string;
  location?: SourceLocation;
  snippet?: string;
}

/** One step of an attempt, with its nested steps. */
export interface StepJson {
  title: string;
  category?: string;
  duration: number;
  error?: TestErrorJson;
  steps: StepJson[];
}

/** An attachment as reported (its body is not kept, only its size). */
export interface AttachmentJson {
  name: string;
  contentType: string;
  path?: string;
  size?: number;
}

export interface AnnotationJson {
  type: string;
  description?: string;
}

// ---- the bundles ----------------------------------------------------------------------------------------------

export interface BundleLinks {
  run: string;
  [name: string]: string;
}

/** A failing test of a run, deduplicated over browser projects. */
export type FailingTestJson = TestCaseJson & { occurrences: number; projects: string[] };

export interface RunBundleJson {
  scope: 'run';
  run: TestRunJson;
  failingSuites: { id: string; file: string; failed: number; flaky: number }[];
  failingTests: FailingTestJson[];
  links: BundleLinks;
}

export interface SuiteBundleJson {
  scope: 'suite';
  run: TestRunJson;
  suite: { id: string; file: string; total: number };
  failingTests: TestCaseJson[];
  flakyTests: TestCaseJson[];
  links: BundleLinks;
}

/** A run at the edge of a test's failure window. */
export interface WindowPointJson {
  runId: string;
  runCounter: number;
  caseId: string;
  status: string;
  at: string;
  commit: { hash: string; message: string; author: string };
  url: string;
}

export interface TestBundleJson {
  scope: 'test';
  run: TestRunJson;
  test: TestCaseJson & { location: SourceLocation | null; annotations: AnnotationJson[] };
  error: TestErrorJson | null;
  steps: StepJson[];
  attempts: {
    retry: number;
    status: string;
    duration: number;
    startTime: string | null;
    error: { message: string | undefined; location: SourceLocation | null } | null;
  }[];
  failureWindow: { branch: string; lastPassing: WindowPointJson | null; firstFailing: WindowPointJson | null; failingRunsSince: number };
  artifacts: (AttachmentJson & { retry: number })[];
  trace: { name: string; path: string | null; contentType: string; retry: number } | null;
  links: BundleLinks;
  retryCommand: string;
}

export type BundleJson = RunBundleJson | SuiteBundleJson | TestBundleJson;
