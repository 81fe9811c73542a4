/** The window of an analytics page (7, 30 or 90 days), as links that keep it in the URL (`?days=`). */
import { Link, useLocation } from 'react-router';

export const WINDOWS = [7, 30, 90] as const;
export type WindowDays = (typeof WINDOWS)[number];
export const windowOf = (value: string | undefined): WindowDays => WINDOWS.find((d) => String(d) === value) ?? 30;

export function WindowTabs({ days }: { days: WindowDays }) {
  const { pathname, search } = useLocation();
  const to = (d: number) => {
    const next = new URLSearchParams(search);
    next.set('days', String(d));
    next.delete('page');
    return `${pathname}?${next}`;
  };
  return (
    <nav className="tabs" aria-label="Window">
      {WINDOWS.map((d) => (
        <Link key={d} aria-current={d === days ? 'page' : undefined} to={to(d)} preventScrollReset>
          Last {d} days
        </Link>
      ))}
    </nav>
  );
}
