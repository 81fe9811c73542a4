import { useCallback, useEffect, useRef } from 'react';
import { useSearchParams } from 'react-router';

/**
 * Filters, tabs and page numbers live in the URL (a link shows what its sender saw; back/forward work).
 * `set({ status: 'failed', page: undefined })` changes some keys and removes those given as undefined or ''.
 * `read()` gives the values as last set, which a render may not show yet: what a key handler moves from.
 */
export function useSearchState<K extends string>(keys: readonly K[]) {
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
  const values = (from: URLSearchParams) =>
    Object.fromEntries(keys.map((k) => [k, from.get(k) ?? undefined])) as Record<K, string | undefined>;
  const set = useCallback(
    (changes: Partial<Record<K, string | number | undefined>>) => {
      const next = new URLSearchParams(latest.current);
      for (const [k, v] of Object.entries(changes)) {
        if (v === undefined || v === '') next.delete(k);
        else next.set(k, String(v));
      }
      if (next.toString() === latest.current.toString()) return;
      latest.current = next;
      sent.current.push(next.toString());
      setParams(next, { replace: true });
    },
    [setParams],
  );
  const read = () => values(latest.current);
  return [values(params), set, read] as const;
}
