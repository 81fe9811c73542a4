import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { errorMessage, isNotFound } from '../api/client';

export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <p className="muted" role="status" aria-live="polite">
      {label}
    </p>
  );
}

/** A read that failed, in the API's words; one whose address names nothing (not found) also leads back. */
export function ErrorView({ error, title = 'This could not be loaded' }: { error: unknown; title?: string }) {
  return (
    <>
      <div className="callout callout-error" role="alert">
        <strong>{title}.</strong> {errorMessage(error)}
      </div>
      {isNotFound(error) ? (
        <p>
          <Link to="/">Go to your projects</Link>
        </p>
      ) : null}
    </>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <p className="empty">{children}</p>;
}
