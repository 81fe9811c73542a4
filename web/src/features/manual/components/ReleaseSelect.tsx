import { useId } from 'react';
import type { Release } from '../data';

/** Picks one of the project's releases (or none). */
export function ReleaseSelect({
  releases,
  value,
  onChange,
  label = 'Release',
  exclude,
}: {
  releases: Release[];
  value: string;
  onChange: (releaseId: string) => void;
  label?: string;
  /** A release that cannot be chosen (a release is never its own parent). */
  exclude?: string;
}) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select id={id} value={value} onChange={(e) => onChange(e.target.value)}>
        <option value="">None</option>
        {releases
          .filter((r) => r._id !== exclude)
          .map((r) => (
            <option key={r._id} value={r._id}>
              {r.name}
            </option>
          ))}
      </select>
    </div>
  );
}

/** A release's lifecycle as one word (the API keeps two flags). */
export function releaseStatus(r: Pick<Release, 'isStarted' | 'isCompleted'>): 'completed' | 'in_progress' | 'planned' {
  return r.isCompleted ? 'completed' : r.isStarted ? 'in_progress' : 'planned';
}
