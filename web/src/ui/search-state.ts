import { useCallback, useEffect, useRef } from 'react';
import { useSearchParams } from 'react-router';

/** What a page makes of a key's (non-empty) value from the URL: the value it uses, or undefined if it ignores it. */
export type Reader = (value: string, query: Readonly<Record<string, string | undefined>>) => string | undefined;

/** A reader taking only one of `values` (as written in the URL: `limit=25`, `status=failed`). */
export const oneOf =
  (values: readonly (string | number)[]): Reader =>
  (value) =>
    values.some((v) => String(v) === value) ? value : undefined;

/** A reader taking a whole number from `min` to `max`, written plainly (`1e2` is read, and shown, as 100). */
export const wholeNumber =
  (min: number, max: number): Reader =>
  (value) => {
    const n = Number(value);
    return Number.isInteger(n) && n >= min && n <= max ? String(n) : undefined;
  };

/** A list's `page`: from 1 to the API's highest (1,000,000). */
export const PAGE_NUMBER = wholeNumber(1, 1_000_000);

/** An id as the API writes them (24 hex characters); whether it names anything, only the API can say. */
export const AN_ID: Reader = (value) => (/^[0-9a-f]{24}$/.test(value) ? value : undefined);

/**
 * Filters, tabs and page numbers live in the URL (a link shows what its sender saw; back/forward work).
 * `set({ status: 'failed', page: undefined })` changes some keys and removes those given as undefined or ''.
 * `read()` gives the values as last set, which a render may not show yet: what a key handler moves from.
 *
 * `readers` say which values a page uses. The values given are those it uses: an empty one, or one a key's reader
 * refuses, is undefined; of a key given twice, the first. The URL is then rewritten to show them (replaced: no
 * step for Back), as an edited link or an old bookmark otherwise kept showing a filter that did not apply. A reader
 * must take its own output unchanged, or the page rewrites its URL for ever.
 */
export function useSearchState<K extends string>(keys: readonly K[], readers: Partial<Record<K, Reader>> = {}) {
  const [params, setParams] = useSearchParams();
  // Each change starts from the latest one, not from the last render's params: react-router's updater form
  // does not queue, so two changes before a re-render (clearing the search, then picking a status, while a
  // 10,000-row list renders) lost the first. react-router renders a change in a transition, and may render
  // one of several quick changes on its way to the last: the latest stays the last one set until it renders
  // (three quick j keys in a manual run moved two cases). A change from elsewhere (back, a link) is the latest.
  const latest = useRef(params);
  const sent = useRef<string[]>([]);
  useEffect(() => {
    const at = sent.current.indexOf(params.toString());
    sent.current = at === -1 ? [] : sent.current.slice(at + 1);
    if (sent.current.length === 0) latest.current = params;
  }, [params]);
  const values = (from: URLSearchParams) => {
    const raw = Object.fromEntries(keys.map((k) => [k, from.get(k) || undefined])) as Record<K, string | undefined>;
    const used = { ...raw };
    for (const k of keys) {
      const reader = readers[k];
      if (reader && raw[k] !== undefined) used[k] = reader(raw[k], raw) || undefined;
    }
    return used;
  };
  const replace = useCallback(
    (next: URLSearchParams) => {
      latest.current = next;
      sent.current.push(next.toString());
      // A filter, a page or a selected item changes the page in place: it keeps its scroll (ScrollRestoration in the
      // Shell scrolls a new page to the top).
      setParams(next, { replace: true, preventScrollReset: true });
    },
    [setParams],
  );
  const set = useCallback(
    (changes: Partial<Record<K, string | number | undefined>>) => {
      const next = new URLSearchParams(latest.current);
      for (const [k, v] of Object.entries(changes)) {
        if (v === undefined || v === '') next.delete(k);
        else next.set(k, String(v));
      }
      if (next.toString() !== latest.current.toString()) replace(next);
    },
    [replace],
  );
  // The URL as it would show the values used (URLSearchParams.set leaves one value of a key given twice).
  const q = values(params);
  const shown = new URLSearchParams(params);
  for (const k of keys) {
    const v = q[k];
    if (v === undefined) shown.delete(k);
    else shown.set(k, v);
  }
  const wanted = shown.toString();
  useEffect(() => {
    // Not while a change of the page's own is on its way (the URL rendered is not the latest yet).
    if (sent.current.length === 0 && wanted !== params.toString()) replace(new URLSearchParams(wanted));
  }, [params, wanted, replace]);
  const read = () => values(latest.current);
  return [q, set, read] as const;
}

/**
 * A filter form whose text fields are drafts until Apply (uncontrolled, `defaultValue` from the address): when the
 * address's `values` change (Apply, Back, a link) its inputs are put back to their defaults, so they show what the
 * page uses (`main` for `  main `, the older filter after Back). The form stays mounted, so the focus stays on Apply
 * or the field Enter was pressed in; keyed on the values, it was replaced and the focus fell to the document. Only
 * inputs: a form's `reset()` would also put a controlled select back to its first option, behind React's back.
 */
export function useDraftFields(values: readonly (string | undefined)[]) {
  const form = useRef<HTMLFormElement>(null);
  const shown = JSON.stringify(values);
  const last = useRef(shown);
  useEffect(() => {
    if (last.current === shown) return;
    last.current = shown;
    for (const input of form.current?.querySelectorAll('input') ?? []) input.value = input.defaultValue;
  }, [shown]);
  return form;
}
