/**
 * A case's steps to read (for viewers, and while executing a run): classic steps as action, data and
 * expected result; Gherkin steps as keyword and text; sub-steps nested. `extra` adds controls to each
 * top-level step (the execution view's step results, keyed by the step number the API uses as `order`).
 */
import type { ReactNode } from 'react';
import type { Schemas } from '../../../api/client';
import type { ClassicStep, GherkinStep } from '../steps';

type Steps = Schemas['ManualTestCase']['steps'];

function Classic({ steps, prefix, extra }: { steps: ClassicStep[]; prefix: string; extra?: (order: number) => ReactNode }) {
  return (
    <ol className="steps-view">
      {steps.map((s) => {
        const n = `${prefix}${s.step}`;
        return (
          <li key={n}>
            <span className="step-number">{n}</span>
            <div className="step-body">
              <dl className="step-parts">
                {s.action ? (
                  <>
                    <dt>Action</dt>
                    <dd>{s.action}</dd>
                  </>
                ) : null}
                {s.data ? (
                  <>
                    <dt>Data</dt>
                    <dd className="mono">{s.data}</dd>
                  </>
                ) : null}
                {s.expectedResult ? (
                  <>
                    <dt>Expected result</dt>
                    <dd>{s.expectedResult}</dd>
                  </>
                ) : null}
              </dl>
              {extra && !prefix ? extra(s.step) : null}
              {s.subSteps.length > 0 ? <Classic steps={s.subSteps} prefix={`${n}.`} /> : null}
            </div>
          </li>
        );
      })}
    </ol>
  );
}

function Gherkin({ steps, prefix, extra }: { steps: GherkinStep[]; prefix: string; extra?: (order: number) => ReactNode }) {
  return (
    <ol className="steps-view">
      {steps.map((s) => {
        const n = `${prefix}${s.step}`;
        return (
          <li key={n}>
            <span className="step-number">{n}</span>
            <div className="step-body">
              <p className="gherkin-line">
                <strong className="gherkin-keyword">{s.keyword}</strong> {s.text}
              </p>
              {extra && !prefix ? extra(s.step) : null}
              {s.subSteps.length > 0 ? <Gherkin steps={s.subSteps} prefix={`${n}.`} /> : null}
            </div>
          </li>
        );
      })}
    </ol>
  );
}

export function StepsView({ steps, extra }: { steps: Steps; extra?: (order: number) => ReactNode }) {
  if (steps.type === 'gherkin') {
    return steps.gherkin.length === 0 ? <p className="muted">No steps.</p> : <Gherkin steps={steps.gherkin} prefix="" extra={extra} />;
  }
  return steps.classic.length === 0 ? <p className="muted">No steps.</p> : <Classic steps={steps.classic} prefix="" extra={extra} />;
}

/** The top-level steps of a case in the style it is written in (their `step` numbers are step results' `order`). */
export function topLevelSteps(steps: Steps): { step: number; label: string }[] {
  return steps.type === 'gherkin'
    ? steps.gherkin.map((s) => ({ step: s.step, label: `${s.keyword} ${s.text}` }))
    : steps.classic.map((s) => ({ step: s.step, label: s.action || s.expectedResult || s.data }));
}
