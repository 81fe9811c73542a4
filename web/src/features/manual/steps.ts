/**
 * Steps as the case editor holds them, and their two API spellings: reads answer `steps.classic` (step,
 * action, data, expectedResult) and `steps.gherkin` (step, keyword, text), each with `subSteps`; writes take
 * one list, classic steps as action/expectedResult/data and Gherkin steps as event/stepDescription (spec §2.3,
 * §4.4). Limits: 100 steps, texts of 5000 characters, sub-steps 5 levels below a step.
 */
import type { Schemas } from '../../api/client';
import type { GherkinKeyword } from './values';

export type StepKind = 'classic' | 'gherkin';
export type ClassicStep = Schemas['ManualTestClassicStep'];
export type GherkinStep = Schemas['ManualTestGherkinStep'];

export const MAX_STEPS = 100;
/** Levels of sub-steps below a top-level step. */
export const MAX_SUB_STEP_DEPTH = 5;

/** One step being edited; a classic step uses action/data/expectedResult, a Gherkin step keyword/text. */
export interface StepDraft {
  key: string;
  action: string;
  data: string;
  expectedResult: string;
  keyword: GherkinKeyword;
  text: string;
  subSteps: StepDraft[];
}

/** A step of a write body (the API's input shape, either spelling). */
export interface StepBody {
  action?: string;
  expectedResult?: string;
  data?: string;
  event?: string;
  stepDescription?: string;
  subSteps?: StepBody[];
}

let counter = 0;
const newKey = () => `s${++counter}`;

export function emptyStep(kind: StepKind, index: number): StepDraft {
  // A Gherkin scenario reads Given, When, Then; later steps continue with And.
  const keyword: GherkinKeyword = kind === 'gherkin' ? ((['Given', 'When', 'Then'] as const)[index] ?? 'And') : 'Given';
  return { key: newKey(), action: '', data: '', expectedResult: '', keyword, text: '', subSteps: [] };
}

export function fromClassic(steps: ClassicStep[]): StepDraft[] {
  return steps.map((s) => ({
    ...emptyStep('classic', 0),
    action: s.action,
    data: s.data,
    expectedResult: s.expectedResult,
    subSteps: fromClassic(s.subSteps),
  }));
}

export function fromGherkin(steps: GherkinStep[]): StepDraft[] {
  return steps.map((s) => ({ ...emptyStep('gherkin', 0), keyword: s.keyword, text: s.text, subSteps: fromGherkin(s.subSteps) }));
}

/**
 * The steps as the API takes them. A row left blank (no text, no sub-step with any) is left out, as an empty
 * custom field row is: the new-case form starts with one, and the API refuses a step without text.
 */
export function toBody(steps: StepDraft[], kind: StepKind): StepBody[] {
  return steps.flatMap((s) => {
    const subSteps = toBody(s.subSteps, kind);
    const sub = subSteps.length > 0 ? { subSteps } : {};
    const text = kind === 'classic' ? [s.action, s.data, s.expectedResult] : [s.text];
    if (subSteps.length === 0 && text.every((t) => t.trim() === '')) return [];
    return [
      kind === 'classic'
        ? { action: s.action, data: s.data, expectedResult: s.expectedResult, ...sub }
        : { event: s.keyword, stepDescription: s.text, ...sub },
    ];
  });
}

/** Applies `change` to the list that holds the step at `path` (the step's index is the path's last number). */
function atParent(steps: StepDraft[], path: number[], change: (list: StepDraft[], index: number) => StepDraft[]): StepDraft[] {
  const [head, ...rest] = path;
  if (rest.length === 0) return change(steps, head!);
  return steps.map((s, i) => (i === head ? { ...s, subSteps: atParent(s.subSteps, rest, change) } : s));
}

export function updateStep(steps: StepDraft[], path: number[], patch: Partial<StepDraft>): StepDraft[] {
  return atParent(steps, path, (list, i) => list.map((s, j) => (j === i ? { ...s, ...patch } : s)));
}

export function removeStep(steps: StepDraft[], path: number[]): StepDraft[] {
  return atParent(steps, path, (list, i) => list.filter((_, j) => j !== i));
}

export function moveStep(steps: StepDraft[], path: number[], delta: -1 | 1): StepDraft[] {
  return atParent(steps, path, (list, i) => {
    const to = i + delta;
    if (to < 0 || to >= list.length) return list;
    const next = [...list];
    [next[i], next[to]] = [next[to]!, next[i]!];
    return next;
  });
}

export function addSubStep(steps: StepDraft[], path: number[], kind: StepKind): StepDraft[] {
  return atParent(steps, path, (list, i) =>
    list.map((s, j) => (j === i ? { ...s, subSteps: [...s.subSteps, { ...emptyStep(kind, 3) }] } : s)),
  );
}

/** "1.2.1" for the path [0, 1, 0]. */
export const stepNumber = (path: number[]) => path.map((i) => i + 1).join('.');
