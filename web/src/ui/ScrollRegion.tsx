import type { ReactNode, Ref } from 'react';

/**
 * A box that scrolls what it holds (a wide table) and holds no link or button of its own: it takes keyboard focus
 * itself, as a named region, or a keyboard cannot scroll it (axe's scrollable-region-focusable). A box whose rows
 * hold links needs none of this: use a plain `.table-scroll` div.
 */
export function ScrollRegion({
  label,
  className = 'table-scroll',
  ref,
  children,
}: {
  /** What the box holds; screen readers hear it with "(scrolls)". */
  label: string;
  className?: string;
  ref?: Ref<HTMLDivElement>;
  children: ReactNode;
}) {
  return (
    // The one place the app makes a non-interactive element focusable, for the reason above.
    // eslint-disable-next-line jsx-a11y/no-noninteractive-tabindex
    <div ref={ref} className={className} tabIndex={0} role="region" aria-label={`${label} (scrolls)`}>
      {children}
    </div>
  );
}
