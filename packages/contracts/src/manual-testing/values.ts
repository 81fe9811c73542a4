/**
 * The manual-testing domain's closed value sets and limits (spec §2.3, §2.4, §3, §4.4), written once: the
 * gateway's schemas, the manual-testing service's checks and its tables use these, and the proto enums map
 * onto them (./common.ts and the family files).
 *
 * Writes and filters accept the canonical form (`not_set`) and display forms (`Not set`, `Critical`,
 * `To be Automated`): case is ignored and spaces or hyphens stand for underscores. Storage and reads always use
 * the canonical form.
 */

// ---- cases (spec §2.3)
export const CASE_STATUSES = ['active', 'draft', 'deprecated'] as const;
export type CaseStatusName = (typeof CASE_STATUSES)[number];

export const SEVERITIES = ['blocker', 'critical', 'major', 'normal', 'minor', 'trivial', 'not_set'] as const;
export type SeverityName = (typeof SEVERITIES)[number];

export const PRIORITIES = ['critical', 'high', 'medium', 'low', 'not_set'] as const;
export type PriorityName = (typeof PRIORITIES)[number];

export const CASE_TYPES = [
  'smoke',
  'regression',
  'functional',
  'integration',
  'e2e',
  'api',
  'unit',
  'performance',
  'security',
  'accessibility',
  'usability',
  'compatibility',
  'acceptance',
  'exploratory',
  'other',
] as const;
export type CaseTypeName = (typeof CASE_TYPES)[number];

export const LAYERS = ['e2e', 'api', 'unit', 'not_set'] as const;
export type LayerName = (typeof LAYERS)[number];

export const BEHAVIORS = ['positive', 'negative', 'destructive', 'not_set'] as const;
export type BehaviorName = (typeof BEHAVIORS)[number];

export const AUTOMATION_STATUSES = ['manual', 'automated'] as const;
export type AutomationStatusName = (typeof AUTOMATION_STATUSES)[number];

/** Flags in their canonical form; reads answer the display forms (FLAG_DISPLAY), writes accept both. */
export const FLAGS = ['to_be_automated', 'is_flaky', 'muted'] as const;
export type FlagName = (typeof FLAGS)[number];
export const FLAG_DISPLAY = { to_be_automated: 'To be Automated', is_flaky: 'Is flaky', muted: 'Muted' } as const satisfies Record<
  FlagName,
  string
>;
export type FlagDisplayName = (typeof FLAG_DISPLAY)[FlagName];

/** How steps are written, as reads spell it (`steps.type`)… */
export const STEPS_TYPES = ['classic', 'gherkin'] as const;
export type StepsTypeName = (typeof STEPS_TYPES)[number];
/** …and as writes spell it (`testStepsDeclarationType`, exactly: CONTRACT §9). */
export const STEP_DECLARATION_TYPES = ['Classic', 'Gherkin'] as const;
export type StepDeclarationTypeName = (typeof STEP_DECLARATION_TYPES)[number];

export const GHERKIN_KEYWORDS = ['Given', 'When', 'Then', 'And', 'But'] as const;
export type GherkinKeywordName = (typeof GHERKIN_KEYWORDS)[number];

/** How an automated test came to be linked to a case. */
export const LINK_SOURCES = ['manual_link', 'auto_created'] as const;
export type LinkSourceName = (typeof LINK_SOURCES)[number];

export const MAX_CASE_TITLE = 500;
export const MAX_STEPS = 100;
export const MAX_STEP_TEXT = 5000;
/** Levels of sub-steps below a top-level step. */
export const MAX_SUB_STEP_DEPTH = 5;
export const MAX_COMMENTS_PER_UPDATE = 20;
export const MAX_ISSUES_PER_UPDATE = 50;
/** `suiteName` of a case body. */
export const MAX_SUITE_REF = 500;
/** A suite `_id` in a body (`suiteId`, `parentSuiteId`). */
export const MAX_SUITE_ID = 128;

// ---- suites (spec §2.4)
export const MAX_SUITE_DEPTH = 6;
export const MAX_SUITE_NAME = 500;
export const MAX_SUITE_DESCRIPTION = 2000;

// ---- releases, sessions, manual runs (spec §3, §4.4)
export const MAX_RECORD_NAME = 255;
export const MAX_RELEASE_DEPTH = 3;

export const PLATFORMS = ['web', 'ios', 'android', 'api'] as const;
export type PlatformName = (typeof PLATFORMS)[number];

/** Exploratory sessions and manual runs: open until closed (closing is the only status change). */
export const RECORD_STATUSES = ['open', 'closed'] as const;
export type RecordStatusName = (typeof RECORD_STATUSES)[number];

/** `all`: every case of the project; `selected`: the cases and suites named. */
export const SELECTION_MODES = ['all', 'selected'] as const;
export type SelectionModeName = (typeof SELECTION_MODES)[number];

/** A case's result in a manual run, and each step's. */
export const VERDICTS = ['untested', 'passed', 'failed', 'blocked', 'skipped', 'retest'] as const;
export type VerdictName = (typeof VERDICTS)[number];

/** The largest whole number the proto fields of estimates and step numbers hold. */
export const MAX_INT32 = 2147483647;

/** `Not set` → `not_set`, `To be Automated` → `to_be_automated`, `E2E` → `e2e`. */
export function canonical(value: string): string {
  return value
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');
}

/** The member of `allowed` that `value` spells (canonical or display form, any letter case), or undefined. */
export function matchValue<T extends string>(value: string, allowed: readonly T[]): T | undefined {
  const c = canonical(value);
  return allowed.find((a) => a.toLowerCase() === c);
}
