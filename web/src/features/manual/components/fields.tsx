/**
 * Labelled form fields (each input gets its own id and a visible label), in the `.form` layout of styles.css.
 * The app's text fields carry no `maxLength`: a browser cuts typed or pasted text there without a word, and counts
 * UTF-16 units where the API counts characters (an emoji is two). Text over a limit is sent whole; the API's
 * refusal names the field next to the form, and what was typed stays.
 */
import { useId, type InputHTMLAttributes, type ReactNode, type TextareaHTMLAttributes } from 'react';
import { valueLabel } from '../values';

export function TextField({
  label,
  hint,
  value,
  onChange,
  ...rest
}: { label: string; hint?: ReactNode; value: string; onChange: (value: string) => void } & Omit<
  InputHTMLAttributes<HTMLInputElement>,
  'value' | 'onChange'
>) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        aria-describedby={hint ? `${id}-hint` : undefined}
        {...rest}
      />
      {hint ? (
        <span className="field-hint" id={`${id}-hint`}>
          {hint}
        </span>
      ) : null}
    </div>
  );
}

export function TextArea({
  label,
  hint,
  value,
  onChange,
  ...rest
}: { label: string; hint?: ReactNode; value: string; onChange: (value: string) => void } & Omit<
  TextareaHTMLAttributes<HTMLTextAreaElement>,
  'value' | 'onChange'
>) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <textarea
        id={id}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        aria-describedby={hint ? `${id}-hint` : undefined}
        {...rest}
      />
      {hint ? (
        <span className="field-hint" id={`${id}-hint`}>
          {hint}
        </span>
      ) : null}
    </div>
  );
}

/** A select of API values (labelled "Not set", "E2E", …); `empty` adds a first option meaning "none"/"any". */
export function SelectField<T extends string>({
  label,
  value,
  values,
  onChange,
  empty,
  labels,
}: {
  label: string;
  value: T | '';
  values: readonly T[];
  onChange: (value: T | '') => void;
  empty?: string;
  labels?: (value: T) => string;
}) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select id={id} value={value} onChange={(e) => onChange(e.target.value as T | '')}>
        {empty !== undefined ? <option value="">{empty}</option> : null}
        {values.map((v) => (
          <option key={v} value={v}>
            {labels ? labels(v) : valueLabel(v)}
          </option>
        ))}
      </select>
    </div>
  );
}
