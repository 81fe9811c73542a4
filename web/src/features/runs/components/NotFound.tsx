import type { ReactNode } from 'react';
import { isNotFound } from '../../../api/client';
import { ErrorView } from '../../../ui/states';

/** A read that failed: the not-found state when the API says 404 (an unknown or inaccessible id), else the error. */
export function FailedRead({ error, what, children }: { error: unknown; what: string; children?: ReactNode }) {
  if (isNotFound(error)) {
    return (
      <div className="callout" role="alert">
        <p>
          <strong>{what} not found.</strong> It does not exist in this project, or your account cannot see it.
        </p>
        {children}
      </div>
    );
  }
  return <ErrorView error={error} />;
}
