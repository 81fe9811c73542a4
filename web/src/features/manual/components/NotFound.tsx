import { Link } from 'react-router';
import { Page } from '../../../ui/Page';

/** A record the API does not know (404 NOT_FOUND): say so, and lead back to its list. */
export function NotFound({ what, back, backLabel }: { what: string; back: string; backLabel: string }) {
  return (
    <Page title={`${what} not found`}>
      <p>This {what.toLowerCase()} does not exist in this project, or you cannot see it.</p>
      <p>
        <Link to={back}>{backLabel}</Link>
      </p>
    </Page>
  );
}
