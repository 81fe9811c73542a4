import { Link } from 'react-router';
import { Page } from '../../../ui/Page';
import { ErrorView } from '../../../ui/states';
import { isNotFound } from '../../../api/client';

/** A record the API does not know (404 NOT_FOUND): say so, and lead back to its list. */
function NotFound({ what, back, backLabel }: { what: string; back: string; backLabel: string }) {
  return (
    <Page title={`${what} not found`}>
      <p>This {what.toLowerCase()} does not exist in this project, or you cannot see it.</p>
      <p>
        <Link to={back}>{backLabel}</Link>
      </p>
    </Page>
  );
}

/** A detail page whose record could not be read: not found, or the API's error under the page's `title`. */
export function NotLoaded({ error, title, ...notFound }: { error: unknown; title: string; what: string; back: string; backLabel: string }) {
  return isNotFound(error) ? (
    <NotFound {...notFound} />
  ) : (
    <Page title={title}>
      <ErrorView error={error} />
    </Page>
  );
}
