import { Page } from './Page';

/** Scaffolding only: a page whose feature has not landed yet. No page may still use this when issue 16 closes. */
export function Unbuilt({ title }: { title: string }) {
  return (
    <Page title={title}>
      <p className="muted">This page is not built yet.</p>
    </Page>
  );
}
