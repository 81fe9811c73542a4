/**
 * Partial updates send only what changed (spec §4.4: "send only fields to change"): a rich field edited
 * elsewhere is never overwritten by a form that did not touch it.
 */
export function changedFields<T extends Record<string, unknown>>(before: T, after: T): Partial<T> {
  const out: Partial<T> = {};
  for (const key of Object.keys(after) as (keyof T)[]) {
    if (JSON.stringify(before[key]) !== JSON.stringify(after[key])) out[key] = after[key];
  }
  return out;
}
