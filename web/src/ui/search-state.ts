import { useCallback } from 'react';
import { useSearchParams } from 'react-router';

/**
 * Filters, tabs and page numbers live in the URL (a link shows what its sender saw; back/forward work).
 * `set({ status: 'failed', page: undefined })` changes some keys and removes those given as undefined or ''.
 */
export function useSearchState<K extends string>(keys: readonly K[]) {
  const [params, setParams] = useSearchParams();
  const values = Object.fromEntries(keys.map((k) => [k, params.get(k) ?? undefined])) as Record<K, string | undefined>;
  const set = useCallback(
    (changes: Partial<Record<K, string | number | undefined>>) =>
      setParams(
        (prev) => {
          const next = new URLSearchParams(prev);
          for (const [k, v] of Object.entries(changes)) {
            if (v === undefined || v === '') next.delete(k);
            else next.set(k, String(v));
          }
          return next;
        },
        { replace: true },
      ),
    [setParams],
  );
  return [values, set] as const;
}
