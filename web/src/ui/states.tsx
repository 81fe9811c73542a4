import type { ReactNode } from 'react';
import { errorMessage } from '../api/client';

export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <p className="muted" role="status" aria-live="polite">
      {label}
    </p>
  );
}

export function ErrorView({ error, title = 'This could not be loaded' }: { error: unknown; title?: string }) {
  return (
    <div className="callout callout-error" role="alert">
      <strong>{title}.</strong> {errorMessage(error)}
    </div>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <p className="empty">{children}</p>;
}
