/**
 * The rules of spec §4.4 for case bodies: steps (Classic or Gherkin, ≤ 100, texts ≤ 5000, sub-steps nested
 * ≤ 5 levels below a top-level step), comma-separated tags, flags, custom fields, classification values.
 */
import type { StepInput } from '@assay/proto/assay/manualtesting/v1/manual_testing_pb';
import type { ClassicStepData, GherkinStepData } from '../store/cases';
import { FLAGS, GHERKIN_KEYWORDS, matchValue, enumValue } from './values';
import { checkLength, type Violations } from './violations';

export const MAX_CASE_TITLE = 500;
export const MAX_STEPS = 100;
export const MAX_STEP_TEXT = 5000;
/** Levels of sub-steps below a top-level step. */
export const MAX_SUB_STEP_DEPTH = 5;
export const MAX_COMMENTS_PER_UPDATE = 20;
export const MAX_ISSUES_PER_UPDATE = 50;
export const MAX_SUITE_REF = 500;
export const MAX_SUITE_ID = 128;

export type StepsType = 'classic' | 'gherkin';

/** `Classic` / `Gherkin` exactly (CONTRACT §9: anything else is a 400). */
export function declarationType(value: string, v: Violations): StepsType | undefined {
  if (value === 'Classic') return 'classic';
  if (value === 'Gherkin') return 'gherkin';
  v.add('body.testStepsDeclarationType', 'must be Classic or Gherkin');
  return undefined;
}

const isGherkinInput = (s: StepInput) => s.event !== undefined || s.stepDescription !== undefined;

/** The type steps are written in when the body does not say: what the first step looks like, else `fallback`. */
export function inferType(steps: StepInput[], fallback: StepsType): StepsType {
  const first = steps[0];
  if (!first) return fallback;
  return isGherkinInput(first) ? 'gherkin' : 'classic';
}

function parseClassic(s: StepInput, path: string, level: number, v: Violations): ClassicStepData {
  if (s.event !== undefined) v.add(`${path}.event`, 'is a Gherkin step field; Classic steps use action, expectedResult, data');
  if (s.stepDescription !== undefined)
    v.add(`${path}.stepDescription`, 'is a Gherkin step field; Classic steps use action, expectedResult, data');
  if (!s.action?.trim() && !s.expectedResult?.trim() && !s.data?.trim())
    v.add(path, 'a Classic step needs at least one of action, expectedResult, data');
  checkLength(s.action, MAX_STEP_TEXT, `${path}.action`, v);
  checkLength(s.expectedResult, MAX_STEP_TEXT, `${path}.expectedResult`, v);
  checkLength(s.data, MAX_STEP_TEXT, `${path}.data`, v);
  return {
    action: s.action ?? '',
    data: s.data ?? '',
    expectedResult: s.expectedResult ?? '',
    subSteps: parseSubSteps(s.subSteps, path, level, v, parseClassic),
  };
}

function parseGherkin(s: StepInput, path: string, level: number, v: Violations): GherkinStepData {
  for (const key of ['action', 'expectedResult', 'data'] as const) {
    if (s[key] !== undefined) v.add(`${path}.${key}`, 'is a Classic step field; Gherkin steps use event, stepDescription');
  }
  let keyword: string | undefined;
  if (s.event === undefined) v.add(`${path}.event`, `is required (${GHERKIN_KEYWORDS.join(', ')})`);
  else {
    keyword = matchValue(
      s.event,
      GHERKIN_KEYWORDS.map((k) => k.toLowerCase()),
    );
    if (keyword === undefined) v.add(`${path}.event`, `must be one of ${GHERKIN_KEYWORDS.join(', ')}`);
  }
  if (!s.stepDescription?.trim()) v.add(`${path}.stepDescription`, 'is required');
  checkLength(s.stepDescription, MAX_STEP_TEXT, `${path}.stepDescription`, v);
  return {
    keyword: keyword ? keyword[0]!.toUpperCase() + keyword.slice(1) : '',
    text: s.stepDescription ?? '',
    subSteps: parseSubSteps(s.subSteps, path, level, v, parseGherkin),
  };
}

function parseSubSteps<T>(
  subSteps: StepInput[],
  path: string,
  level: number,
  v: Violations,
  parse: (s: StepInput, path: string, level: number, v: Violations) => T,
): T[] {
  if (subSteps.length === 0) return [];
  if (level + 1 > MAX_SUB_STEP_DEPTH) {
    v.add(`${path}.subSteps`, `sub-steps nest at most ${MAX_SUB_STEP_DEPTH} levels below a step`);
    return [];
  }
  return subSteps.map((s, i) => parse(s, `${path}.subSteps.${i}`, level + 1, v));
}

/** Parses a whole step list written in `type`. */
export function parseSteps(
  steps: StepInput[],
  type: StepsType,
  v: Violations,
): { classic?: ClassicStepData[]; gherkin?: GherkinStepData[] } {
  if (steps.length > MAX_STEPS) {
    v.add('body.steps', `must have at most ${MAX_STEPS} steps`);
    return {};
  }
  return type === 'classic'
    ? { classic: steps.map((s, i) => parseClassic(s, `body.steps.${i}`, 0, v)) }
    : { gherkin: steps.map((s, i) => parseGherkin(s, `body.steps.${i}`, 0, v)) };
}

/** `"smoke, login,,smoke"` → `["smoke", "login"]`. */
export function parseTags(tags: string): string[] {
  return [
    ...new Set(
      tags
        .split(',')
        .map((t) => t.trim())
        .filter(Boolean),
    ),
  ];
}

export function parseFlags(flags: string[], v: Violations): { isFlaky: boolean; isMuted: boolean; toBeAutomated: boolean } {
  const set = new Set<string>();
  flags.forEach((f, i) => {
    const flag = enumValue(f, FLAGS, `body.flags.${i}`, v);
    if (flag) set.add(flag);
  });
  return { isFlaky: set.has('is_flaky'), isMuted: set.has('muted'), toBeAutomated: set.has('to_be_automated') };
}

export function checkCustomFields(fields: Record<string, string>, v: Violations): void {
  for (const key of Object.keys(fields)) {
    if (key.length === 0) v.add('body.customFields', 'keys must not be empty');
    else if (key.startsWith('$')) v.add(`body.customFields.${key}`, 'keys must not start with "$"');
    else if (key.includes('.')) v.add(`body.customFields.${key}`, 'keys must not contain "."');
  }
}
