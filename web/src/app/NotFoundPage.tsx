import { Link } from 'react-router';
import { Page } from '../ui/Page';
import { PAGES } from './paths';

/** Any path the app does not know (the gateway answered this document with 404). */
export function NotFoundPage() {
  return (
    <main className="auth-screen" id="main">
      <Page title="Page not found">
        <p>There is no page at this address. It may have moved, or the link may be incomplete.</p>
        <p>
          <Link to={PAGES.projects}>Go to your projects</Link>
        </p>
      </Page>
    </main>
  );
}
