import { useCallback, useSyncExternalStore } from 'react';

/** Below this width the app lays out for a phone (styles.css uses the same 40rem). */
export const PHONE = '(max-width: 40rem)';

/** Whether the media query matches now; the component renders again when that changes (a rotation, a resize). */
export function useMediaQuery(query: string): boolean {
  const subscribe = useCallback(
    (onChange: () => void) => {
      const list = window.matchMedia(query);
      list.addEventListener('change', onChange);
      return () => list.removeEventListener('change', onChange);
    },
    [query],
  );
  return useSyncExternalStore(subscribe, () => window.matchMedia(query).matches);
}
