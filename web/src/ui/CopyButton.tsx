import { useEffect, useState } from 'react';

/** Copies `text` to the clipboard and says so (to screen readers too). */
export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  useEffect(() => {
    if (state === 'idle') return;
    const t = setTimeout(() => setState('idle'), 2000);
    return () => clearTimeout(t);
  }, [state]);
  return (
    <button
      type="button"
      className="button button-small"
      onClick={() =>
        navigator.clipboard.writeText(text).then(
          () => setState('copied'),
          () => setState('failed'),
        )
      }
    >
      {label}
      <span role="status" aria-live="polite" className="copy-state">
        {state === 'copied' ? ' ✓ Copied' : state === 'failed' ? ' (copy failed)' : ''}
      </span>
    </button>
  );
}
