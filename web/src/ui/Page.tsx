import { useEffect, type ReactNode } from 'react';

/**
 * A page's frame: its title (the document title too), optional actions beside it, then the content. The title
 * takes the focus after a navigation (`useRouteFocus`), hence `tabIndex={-1}`: focusable by script, not by Tab.
 */
export function Page({
  title,
  actions,
  children,
  subtitle,
}: {
  title: string;
  subtitle?: ReactNode;
  actions?: ReactNode;
  children?: ReactNode;
}) {
  useEffect(() => {
    document.title = `${title} · Assay`;
  }, [title]);
  return (
    <section className="page" aria-labelledby="page-title">
      <header className="page-header">
        <div>
          <h1 id="page-title" tabIndex={-1}>
            {title}
          </h1>
          {subtitle ? <p className="page-subtitle">{subtitle}</p> : null}
        </div>
        {actions ? <div className="page-actions">{actions}</div> : null}
      </header>
      {children}
    </section>
  );
}
