import { useEffect, useState } from 'react';
import copy from 'clipboard-copy';

/**
 * Copies `text` to the clipboard and says so (to screen readers too). Through clipboard-copy: the Clipboard API
 * exists on https and localhost only, and Assay may be served over plain http inside a company's network, where the
 * library falls back on the selection's copy command.
 */
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
        copy(text).then(
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
