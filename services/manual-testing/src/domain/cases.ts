/**
 * The rules of spec §4.4 for case bodies: steps (Classic or Gherkin, ≤ MAX_STEPS, texts ≤ MAX_STEP_TEXT,
 * sub-steps nested ≤ MAX_SUB_STEP_DEPTH levels below a top-level step), comma-separated tags, flags, custom
 * fields. The value sets and limits are the contract's (@assay/contracts/manual-testing).
 */
import type { CaseFlag, StepInput, StepsType } from '@assay/proto/assay/manualtesting/v1/manual_testing_pb';
import { caseFlag, gherkinKeyword, stepsType } from '@assay/contracts/manual-testing/manual-test-cases';
import {
  GHERKIN_KEYWORDS,
  MAX_STEP_TEXT,
  MAX_STEPS,
  MAX_SUB_STEP_DEPTH,
  type FlagName,
  type GherkinKeywordName,
  type StepsTypeName,
} from '@assay/contracts/manual-testing/values';
import type { ClassicStepData, GherkinStepData } from '../store/manual-test-cases';
import { checkLength, enumName, type Violations } from './violations';

/** `Classic` / `Gherkin` exactly (CONTRACT §9: anything else is a 400). */
export function declarationType(value: StepsType, v: Violations): StepsTypeName | undefined {
  return enumName(stepsType, value, 'body.testStepsDeclarationType', v, 'must be Classic or Gherkin');
}

const isGherkinInput = (s: StepInput) => s.event !== undefined || s.stepDescription !== undefined;

/** The type steps are written in when the body does not say: what the first step looks like, else `fallback`. */
export function inferType(steps: StepInput[], fallback: StepsTypeName): StepsTypeName {
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
  let keyword: GherkinKeywordName | undefined;
  if (s.event === undefined) v.add(`${path}.event`, `is required (${GHERKIN_KEYWORDS.join(', ')})`);
  else keyword = enumName(gherkinKeyword, s.event, `${path}.event`, v, `must be one of ${GHERKIN_KEYWORDS.join(', ')}`);
  if (!s.stepDescription?.trim()) v.add(`${path}.stepDescription`, 'is required');
  checkLength(s.stepDescription, MAX_STEP_TEXT, `${path}.stepDescription`, v);
  return {
    // A step without a known keyword is refused (the violation above), never stored.
    keyword: keyword ?? GHERKIN_KEYWORDS[0],
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
  type: StepsTypeName,
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

export function parseFlags(flags: CaseFlag[], v: Violations): { isFlaky: boolean; isMuted: boolean; toBeAutomated: boolean } {
  const set = new Set<FlagName>();
  flags.forEach((f, i) => {
    const flag = enumName(caseFlag, f, `body.flags.${i}`, v);
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
