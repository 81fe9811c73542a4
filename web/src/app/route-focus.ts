/**
 * A page change, told to the keyboard and the screen reader. In a single-page app a followed link swaps the page
 * without a page load: nothing says a new page came, and the focus stays on the link followed (or falls to the top
 * of the document when that link went away). So, as Gatsby and GOV.UK's research on client-side routing do, after
 * a navigation to another path the focus moves to the new page's title, its `<h1>` (`Page`, `tabIndex={-1}`): a
 * screen reader reads the title (no live region: the focus says it once), and Tab goes on into the page's content.
 *
 * Not on the app's first load (the browser's own), nor a redirect while it opens, nor when only the query or the
 * hash changes (filters, paging, `?case=`, the skip link). The focus stays where it is when it is in a field (the
 * page's own autofocus, the project switcher being arrowed through) or on something the page focused itself. A page
 * that shows its title only once its data arrives gets the focus then, unless the person has moved it meanwhile.
 */
import { useEffect, useRef } from 'react';
import { useLocation, useNavigationType } from 'react-router';

const FIELD = 'input, select, textarea, [contenteditable]:not([contenteditable="false"])';

/** The page's title to focus, once the page shows it. */
const heading = () => document.querySelector<HTMLElement>('#main h1');

/**
 * Whether the focus, as the new page shows, is where someone chose to put it: in a field, or (in the page)
 * anywhere but a link or button (what is followed to get here, which a reused page keeps) or the old title.
 */
function chosen(focus: Element | null, title: HTMLElement): boolean {
  if (!focus || focus === document.body || focus === title) return false;
  if (focus.matches(FIELD)) return true;
  const main = document.getElementById('main');
  if (!main || focus === main || !main.contains(focus)) return false;
  return !focus.matches('a[href], button, h1');
}

/** Used once, by the Shell (every signed-in page). */
export function useRouteFocus(): void {
  const { pathname } = useLocation();
  const action = useNavigationType();
  const shown = useRef<string | null>(null);
  // The wait for a title not shown yet: ended by the next page, the person, or the Shell leaving (not by a query).
  const waiting = useRef<(() => void) | null>(null);

  useEffect(() => () => waiting.current?.(), []);

  useEffect(() => {
    const before = shown.current;
    shown.current = pathname;
    if (before === null || before === pathname) return;
    waiting.current?.();
    // An address put right (replaced) before the person did anything is still the app's first load; replaced after
    // an action of theirs (a new test case's form becomes its page), it is a page change.
    if (action === 'REPLACE' && !(navigator.userActivation?.hasBeenActive ?? true)) return;

    // This runs after the pages' own effects (a parent's run last): an autofocus or a page's `.focus()` came first.
    const settle = () => {
      const title = heading();
      if (!title) return;
      stop();
      const focus = document.activeElement;
      if (chosen(focus, title)) return;
      if (focus === title) title.blur(); // the same title kept by the page: focused anew, it is read anew
      // Without scrolling: a new page is at its top already, and Back returns to where the page was left (the Shell's
      // ScrollRestoration), which scrolling to the title would undo.
      title.focus({ preventScroll: true });
    };
    const observer = new MutationObserver(settle);
    const stop = () => {
      observer.disconnect();
      document.removeEventListener('focusin', stop, true);
      document.removeEventListener('pointerdown', stop, true);
      if (waiting.current === stop) waiting.current = null;
    };
    if (heading()) return settle();
    // Not shown yet (a page that loads first): wait for it, unless the person focuses or clicks something meanwhile.
    waiting.current = stop;
    observer.observe(document.body, { childList: true, subtree: true });
    document.addEventListener('focusin', stop, true);
    document.addEventListener('pointerdown', stop, true);
  }, [pathname, action]);
}
