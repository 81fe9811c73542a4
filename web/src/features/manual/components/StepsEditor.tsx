/**
 * Edits a case's steps in one style (classic: action, data, expected result; Gherkin: keyword and text), with
 * sub-steps down to the API's limit. Every change is a button (add, sub-step, move up/down, remove): after a
 * move the focus stays on the step's button, after a removal it goes to "Add step", so the keyboard never
 * loses its place.
 */
import { useEffect, useId, useRef } from 'react';
import {
  addSubStep,
  emptyStep,
  MAX_STEPS,
  MAX_SUB_STEP_DEPTH,
  moveStep,
  removeStep,
  stepNumber,
  updateStep,
  type StepDraft,
  type StepKind,
} from '../steps';
import { GHERKIN_KEYWORDS, type GherkinKeyword } from '../values';

export function StepsEditor({ kind, steps, onChange }: { kind: StepKind; steps: StepDraft[]; onChange: (steps: StepDraft[]) => void }) {
  const prefix = useId();
  const pendingFocus = useRef<string | null>(null);
  useEffect(() => {
    if (pendingFocus.current === null) return;
    document.getElementById(pendingFocus.current)?.focus();
    pendingFocus.current = null;
  });
  const idOf = (key: string, what: string) => `${prefix}-${key}-${what}`;

  const renderList = (list: StepDraft[], parent: number[]) => (
    <ol className="steps-edit">
      {list.map((step, i) => {
        const path = [...parent, i];
        const n = stepNumber(path);
        const field = (what: string) => idOf(step.key, what);
        const move = (delta: -1 | 1) => {
          const to = i + delta;
          // Moved to an end, the same button is disabled: keep the focus on the step's other move button.
          const button = to === 0 ? 'down' : to === list.length - 1 ? 'up' : delta < 0 ? 'up' : 'down';
          pendingFocus.current = field(button);
          onChange(moveStep(steps, path, delta));
        };
        return (
          <li key={step.key}>
            <fieldset className="step-edit">
              <legend>Step {n}</legend>
              {kind === 'classic' ? (
                <div className="step-fields">
                  <label htmlFor={field('action')}>
                    <span className="visually-hidden">Step {n} </span>Action
                  </label>
                  <textarea
                    id={field('action')}
                    rows={2}
                    value={step.action}
                    onChange={(e) => onChange(updateStep(steps, path, { action: e.target.value }))}
                  />
                  <label htmlFor={field('data')}>
                    <span className="visually-hidden">Step {n} </span>Data
                  </label>
                  <textarea
                    id={field('data')}
                    rows={1}
                    value={step.data}
                    onChange={(e) => onChange(updateStep(steps, path, { data: e.target.value }))}
                  />
                  <label htmlFor={field('expected')}>
                    <span className="visually-hidden">Step {n} </span>Expected result
                  </label>
                  <textarea
                    id={field('expected')}
                    rows={2}
                    value={step.expectedResult}
                    onChange={(e) => onChange(updateStep(steps, path, { expectedResult: e.target.value }))}
                  />
                </div>
              ) : (
                <div className="step-fields step-fields-gherkin">
                  <label htmlFor={field('keyword')}>
                    <span className="visually-hidden">Step {n} </span>Keyword
                  </label>
                  <select
                    id={field('keyword')}
                    value={step.keyword}
                    onChange={(e) => onChange(updateStep(steps, path, { keyword: e.target.value as GherkinKeyword }))}
                  >
                    {GHERKIN_KEYWORDS.map((k) => (
                      <option key={k} value={k}>
                        {k}
                      </option>
                    ))}
                  </select>
                  <label htmlFor={field('text')}>
                    <span className="visually-hidden">Step {n} </span>Text
                  </label>
                  <input
                    id={field('text')}
                    value={step.text}
                    onChange={(e) => onChange(updateStep(steps, path, { text: e.target.value }))}
                  />
                </div>
              )}
              <div className="step-actions">
                <button type="button" className="button button-small" id={field('up')} disabled={i === 0} onClick={() => move(-1)}>
                  Move up<span className="visually-hidden"> step {n}</span>
                </button>
                <button
                  type="button"
                  className="button button-small"
                  id={field('down')}
                  disabled={i === list.length - 1}
                  onClick={() => move(1)}
                >
                  Move down<span className="visually-hidden"> step {n}</span>
                </button>
                {path.length <= MAX_SUB_STEP_DEPTH ? (
                  <button
                    type="button"
                    className="button button-small"
                    onClick={() => {
                      const added = addSubStep(steps, path, kind);
                      const last = findStep(added, path)?.subSteps.at(-1);
                      if (last) pendingFocus.current = idOf(last.key, kind === 'classic' ? 'action' : 'keyword');
                      onChange(added);
                    }}
                  >
                    Add sub-step<span className="visually-hidden"> to step {n}</span>
                  </button>
                ) : null}
                <button
                  type="button"
                  className="button button-small button-danger"
                  onClick={() => {
                    pendingFocus.current = `${prefix}-add`;
                    onChange(removeStep(steps, path));
                  }}
                >
                  Remove<span className="visually-hidden"> step {n}</span>
                </button>
              </div>
              {step.subSteps.length > 0 ? renderList(step.subSteps, path) : null}
            </fieldset>
          </li>
        );
      })}
    </ol>
  );

  return (
    <div className="steps-editor">
      {steps.length === 0 ? <p className="muted">No steps yet.</p> : renderList(steps, [])}
      <button
        type="button"
        className="button"
        id={`${prefix}-add`}
        disabled={steps.length >= MAX_STEPS}
        onClick={() => {
          const step = emptyStep(kind, steps.length);
          pendingFocus.current = idOf(step.key, kind === 'classic' ? 'action' : 'keyword');
          onChange([...steps, step]);
        }}
      >
        Add step
      </button>
      {steps.length >= MAX_STEPS ? <p className="muted">A case holds at most {MAX_STEPS} steps.</p> : null}
    </div>
  );
}

function findStep(steps: StepDraft[], path: number[]): StepDraft | undefined {
  let list = steps;
  let found: StepDraft | undefined;
  for (const i of path) {
    found = list[i];
    if (!found) return undefined;
    list = found.subSteps;
  }
  return found;
}
