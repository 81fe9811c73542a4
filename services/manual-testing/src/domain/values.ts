/**
 * The value sets of spec §2.3 and §3 and their spellings. Writes and filters accept the canonical form
 * (`not_set`) and display forms (`Not set`, `Critical`, `To be Automated`): case is ignored and spaces or
 * hyphens stand for underscores. Storage and reads always use the canonical form.
 */
import type { Violations } from './violations';

export const CASE_STATUSES = ['active', 'draft', 'deprecated'] as const;
export const SEVERITIES = ['blocker', 'critical', 'major', 'normal', 'minor', 'trivial', 'not_set'] as const;
export const PRIORITIES = ['critical', 'high', 'medium', 'low', 'not_set'] as const;
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
export const LAYERS = ['e2e', 'api', 'unit', 'not_set'] as const;
export const BEHAVIORS = ['positive', 'negative', 'destructive', 'not_set'] as const;
export const AUTOMATION_STATUSES = ['manual', 'automated'] as const;
/** Flags in their canonical form; the display forms are `To be Automated`, `Is flaky`, `Muted`. */
export const FLAGS = ['to_be_automated', 'is_flaky', 'muted'] as const;
export const FLAG_DISPLAY: Record<(typeof FLAGS)[number], string> = {
  to_be_automated: 'To be Automated',
  is_flaky: 'Is flaky',
  muted: 'Muted',
};
export const VERDICTS = ['untested', 'passed', 'failed', 'blocked', 'skipped', 'retest'] as const;
export const PLATFORMS = ['web', 'ios', 'android', 'api'] as const;
export const GHERKIN_KEYWORDS = ['Given', 'When', 'Then', 'And', 'But'] as const;
export const LINK_SOURCES = ['manual_link', 'auto_created'] as const;

export type Verdict = (typeof VERDICTS)[number];

/** `Not set` → `not_set`, `To be Automated` → `to_be_automated`, `E2E` → `e2e`. */
export function canonical(value: string): string {
  return value
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');
}

/** The canonical member of `allowed` that `value` spells, or undefined. */
export function matchValue<T extends string>(value: string, allowed: readonly T[]): T | undefined {
  const c = canonical(value);
  return allowed.find((a) => a.toLowerCase() === c);
}

/** Like matchValue, but records a violation at `path` when the value is not one of `allowed`. */
export function enumValue<T extends string>(value: string, allowed: readonly T[], path: string, v: Violations): T | undefined {
  const found = matchValue(value, allowed);
  if (found === undefined) v.add(path, `must be one of ${allowed.join(', ')} (display forms such as "Not set" are accepted)`);
  return found;
}
