import { useCallback, useEffect, useRef } from 'react';
import { useSearchParams } from 'react-router';

/**
 * Filters, tabs and page numbers live in the URL (a link shows what its sender saw; back/forward work).
 * `set({ status: 'failed', page: undefined })` changes some keys and removes those given as undefined or ''.
 */
export function useSearchState<K extends string>(keys: readonly K[]) {
  const [params, setParams] = useSearchParams();
  // Each change starts from the latest one, not from the last render's params: react-router's updater form
  // does not queue, so two changes before a re-render (clearing the search, then picking a status, while a
  // 10,000-row list renders) lost the first.
  const latest = useRef(params);
  useEffect(() => {
    latest.current = params;
  }, [params]);
  const values = Object.fromEntries(keys.map((k) => [k, params.get(k) ?? undefined])) as Record<K, string | undefined>;
  const set = useCallback(
    (changes: Partial<Record<K, string | number | undefined>>) => {
      const next = new URLSearchParams(latest.current);
      for (const [k, v] of Object.entries(changes)) {
        if (v === undefined || v === '') next.delete(k);
        else next.set(k, String(v));
      }
      latest.current = next;
      setParams(next, { replace: true });
    },
    [setParams],
  );
  return [values, set] as const;
}
