/**
 * The value sets of manual testing as the API defines them (spec §2.3, §3), as lists the forms can offer. Each
 * list is checked against the generated type both ways: a value the API adds or drops breaks the build here.
 */
import type { Schemas } from '../../api/client';

type Classification = Schemas['ManualTestCase']['classification'];
export type Verdict = Schemas['ManualRunTestCase']['result'];
export type GherkinKeyword = Schemas['ManualTestGherkinStep']['keyword'];
export type Flag = Schemas['ManualTestCaseDetail']['flags'][number];
export type Platform = NonNullable<Schemas['Release']['buildTarget']>['platform'];

/** `values` must hold every member of `T` and nothing else. */
const every =
  <T extends string>() =>
  <const A extends readonly T[]>(values: A & ([T] extends [A[number]] ? unknown : never)): A =>
    values;

export const CASE_STATUSES = every<Classification['status']>()(['active', 'draft', 'deprecated']);
export const PRIORITIES = every<Classification['priority']>()(['critical', 'high', 'medium', 'low', 'not_set']);
export const SEVERITIES = every<Classification['severity']>()(['blocker', 'critical', 'major', 'normal', 'minor', 'trivial', 'not_set']);
export const CASE_TYPES = every<Classification['type']>()([
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
]);
export const LAYERS = every<Classification['layer']>()(['e2e', 'api', 'unit', 'not_set']);
export const BEHAVIORS = every<Classification['behavior']>()(['positive', 'negative', 'destructive', 'not_set']);
export const AUTOMATION_STATUSES = every<Schemas['ManualTestCase']['automation']['status']>()(['manual', 'automated']);
export const FLAGS = every<Flag>()(['To be Automated', 'Is flaky', 'Muted']);
export const GHERKIN_KEYWORDS = every<GherkinKeyword>()(['Given', 'When', 'Then', 'And', 'But']);
export const PLATFORMS = every<Platform>()(['web', 'ios', 'android', 'api']);
export const VERDICTS = every<Verdict>()(['untested', 'passed', 'failed', 'blocked', 'skipped', 'retest']);

/** The key that sets each verdict in the execution view (shown on the page). */
export const VERDICT_KEYS: Record<Verdict, string> = {
  passed: 'p',
  failed: 'f',
  blocked: 'b',
  skipped: 's',
  retest: 'r',
  untested: 'u',
};

/** Page sizes the list endpoints accept (spec §4.1). */
export const PAGE_SIZES = [10, 25, 50, 100] as const;
export type PageSize = (typeof PAGE_SIZES)[number];

export function pageSize(value: string | undefined, fallback: PageSize = 25): PageSize {
  return PAGE_SIZES.find((s) => String(s) === value) ?? fallback;
}

const WORDS: Record<string, string> = { e2e: 'E2E', api: 'API', ios: 'iOS', not_set: 'Not set' };

/** `not_set` → "Not set", `e2e` → "E2E", `high` → "High". */
export function valueLabel(value: string): string {
  const word = WORDS[value];
  if (word) return word;
  const spaced = value.replace(/_/g, ' ');
  return spaced.charAt(0).toUpperCase() + spaced.slice(1);
}

/** "smoke, login,,smoke" → ["smoke", "login"] (the API's own rule for comma-separated tags). */
export function splitList(text: string): string[] {
  return [
    ...new Set(
      text
        .split(',')
        .map((t) => t.trim())
        .filter(Boolean),
    ),
  ];
}
