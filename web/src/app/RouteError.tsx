import { isRouteErrorResponse, Link, useRouteError } from 'react-router';
import { PAGES } from './paths';

/** A page that failed to load or render: say so, keep the frame, offer a way on (never a blank screen). */
export function RouteError() {
  const error = useRouteError();
  const message = isRouteErrorResponse(error)
    ? `${error.status} ${error.statusText}`
    : error instanceof Error
      ? error.message
      : 'Unknown error';
  return (
    <div className="callout callout-error" role="alert">
      <p>
        <strong>This page failed.</strong> {message}
      </p>
      <p>
        <button type="button" className="button" onClick={() => window.location.reload()}>
          Reload
        </button>{' '}
        <Link to={PAGES.projects}>Go to your projects</Link>
      </p>
    </div>
  );
}
