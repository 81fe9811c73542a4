/**
 * The runs domain's closed value sets and limits (spec §2.5, §4.2, CONTRACT §2, §6, §9), written once: the
 * gateway's schemas, the runs service's checks, its normalizer and its SQL use these, and the proto enums map
 * onto them (./test-runs.ts, ./debug-bundle.ts, ./workflow-rules.ts).
 */
import { MAX_PAGE } from '../common/pagination';

/** Whether `value` is one of `values` (and so of their type). */
export const oneOf = <T extends string>(values: readonly T[], value: unknown): value is T => (values as readonly unknown[]).includes(value);

/** A run's status (spec §2.5 TestRunListItem.status); `incomplete` = stopped reporting, swept. */
export const RUN_STATUSES = ['passed', 'failed', 'interrupted', 'incomplete', 'running'] as const;
export type RunStatusName = (typeof RUN_STATUSES)[number];

/** What `POST /ingest/{projectId}/runs/{runId}/finish` may set; without it the status is computed from the results. */
export const FINISH_STATUSES = ['passed', 'failed', 'interrupted'] as const satisfies readonly RunStatusName[];
export type FinishStatusName = (typeof FINISH_STATUSES)[number];

/** A test result's public status (spec §2.5 TestCase.status), the filter of a run's test cases. */
export const TEST_STATUSES = ['passed', 'failed', 'flaky', 'skipped', 'timedOut', 'interrupted'] as const;
export type TestStatusName = (typeof TEST_STATUSES)[number];

/** One attempt's status, as Playwright reports it (also a test's `expectedStatus`). */
export const ATTEMPT_STATUSES = ['passed', 'failed', 'timedOut', 'skipped', 'interrupted'] as const;
export type AttemptStatusName = (typeof ATTEMPT_STATUSES)[number];

/** A test's outcome over its attempts, as Playwright computes it (interrupted attempts ignored). */
export const TEST_OUTCOMES = ['expected', 'unexpected', 'flaky', 'skipped'] as const;
export type TestOutcomeName = (typeof TEST_OUTCOMES)[number];

/** `include` of GET /test-runs/{runId}: the optional detail sections (or `INCLUDE_ALL` of them). */
export const RUN_SECTIONS = ['errors', 'coverage', 'specs', 'artifacts'] as const;
export type RunSectionName = (typeof RUN_SECTIONS)[number];
/** `include` of GET /test-cases/{caseId} (or `INCLUDE_ALL`). */
export const TEST_CASE_SECTIONS = ['history'] as const;
/** In an `include` list: every section. */
export const INCLUDE_ALL = 'all';

/** Failure categories of a run's failed tests (TestRunDetail.errorCategory). */
export const ERROR_CATEGORIES = ['assertion', 'timeout', 'network', 'element', 'other'] as const;
export type ErrorCategoryName = (typeof ERROR_CATEGORIES)[number];

export const BUNDLE_FORMATS = ['json', 'md'] as const;
export type BundleFormatName = (typeof BUNDLE_FORMATS)[number];
/** `maxLength` of GET /debug-bundle: the longest error text kept (default when absent). */
export const BUNDLE_MAX_LENGTH = { minimum: 100, maximum: 100_000, default: 4000 } as const;

/** What an action rule does to the tests it matches (CONTRACT §2). */
export const RULE_OPERATIONS = ['skip', 'quarantine', 'tag'] as const;
export type RuleOperationName = (typeof RULE_OPERATIONS)[number];
/** Derived from `enabled` and `expiresAt`. */
export const RULE_STATUSES = ['active', 'expired', 'disabled'] as const;
export type RuleStatusName = (typeof RULE_STATUSES)[number];
/** `windowDays` of GET /action-rules/summary; the first is the default. */
export const RULE_WINDOW_DAYS = [7, 30] as const;
export type RuleWindowDays = (typeof RULE_WINDOW_DAYS)[number];
export const DEFAULT_RULE_WINDOW_DAYS: RuleWindowDays = RULE_WINDOW_DAYS[0];

/** GET /test-cases/history pages by offset; bounded like `page` (MAX_PAGE × 100): the services' offset fields are 32-bit. */
export const HISTORY_MAX_OFFSET = MAX_PAGE * 100;

/** Reports are accepted up to this size (CONTRACT §6), unless INGEST_BODY_LIMIT_BYTES says otherwise. */
export const DEFAULT_INGEST_BODY_LIMIT_BYTES = 64 * 1024 * 1024;

/** Limits on what one stored text of a report may hold (a report may carry megabytes of logs). */
export const REPORT_TEXT_LIMITS = {
  /** Characters of one message, stack, snippet or output line (longer ones are cut, ending in `…`). */
  maxText: 64 * 1024,
  /** Characters of one step title. */
  maxStepTitle: 2000,
  /** Output lines kept per attempt (stdout and stderr each). */
  maxOutputLines: 200,
  /** Nesting of steps kept. */
  maxStepDepth: 12,
} as const;

/**
 * Limits on a report's shape, refused with 400 VALIDATION_ERROR naming where: no name a person could not read,
 * no nesting that only exists to exhaust a parser.
 */
/** Characters of an action rule's title pattern (a regular expression, run by a linear-time engine). */
export const MAX_RULE_PATTERN = 500;

export const REPORT_SHAPE_LIMITS = {
  /** Characters of one title (a suite's, a test's, one element of a title path) and of a file path or project name. */
  maxTitle: 1000,
  /** Elements of a test's title path (describe blocks and the test's own title). */
  maxTitlePath: 40,
  /** Suites inside suites in a Playwright report (files count as the first level). */
  maxSuiteDepth: 32,
  /** Nesting of arrays and objects anywhere in a JSON report. */
  maxJsonDepth: 256,
} as const;
