/**
 * The suites of a project as a tree (WAI-ARIA tree pattern): one tab stop; ↑/↓ move between visible suites,
 * → opens a suite or goes to its first sub-suite, ← closes it or goes to its parent, Home/End jump, Enter or
 * Space selects. The first item, "All cases", stands for no suite filter.
 */
import { useMemo, useRef, useState, type KeyboardEvent } from 'react';
import type { Schemas } from '../../../api/client';

export type Suite = Schemas['ManualTestSuite'];

export const ALL = '';

interface Row {
  id: string;
  name: string;
  level: number;
  parentId: string | undefined;
  hasChildren: boolean;
}

/** The ids from a root down to `id` (the suite's ancestors and itself). */
export function pathTo(suites: Suite[], id: string): string[] {
  for (const s of suites) {
    if (s._id === id) return [s._id];
    const below = pathTo(s.children, id);
    if (below.length > 0) return [s._id, ...below];
  }
  return [];
}

/** Every suite with its depth, parents before children (for selects and lookups). */
export function flattenSuites(suites: Suite[]): Suite[] {
  return suites.flatMap((s) => [s, ...flattenSuites(s.children)]);
}

export function SuiteTree({
  suites,
  selected,
  onSelect,
  label = 'Suites',
}: {
  suites: Suite[];
  /** A suite id, or ALL. */
  selected: string;
  onSelect: (id: string) => void;
  label?: string;
}) {
  // Open: the suites on the way to the selected one, so a shared link shows its suite.
  const [open, setOpen] = useState<Set<string>>(() => new Set(pathTo(suites, selected).slice(0, -1)));
  const [focused, setFocused] = useState<string>(selected);
  // A suite selected from outside (a link, a new suite), or the selected one moved under another parent, opens its
  // branch: the selected suite is always in view.
  const ancestors = pathTo(suites, selected).slice(0, -1);
  const place = [...ancestors, selected].join('/');
  const [shown, setShown] = useState(place);
  if (shown !== place) {
    setShown(place);
    if (ancestors.some((id) => !open.has(id))) setOpen(new Set([...open, ...ancestors]));
  }
  const items = useRef(new Map<string, HTMLLIElement>());

  const visible = useMemo(() => {
    const rows: Row[] = [{ id: ALL, name: 'All cases', level: 1, parentId: undefined, hasChildren: false }];
    const walk = (list: Suite[], level: number, parentId: string | undefined) => {
      for (const s of list) {
        rows.push({ id: s._id, name: s.name, level, parentId, hasChildren: s.children.length > 0 });
        if (open.has(s._id)) walk(s.children, level + 1, s._id);
      }
    };
    walk(suites, 1, undefined);
    return rows;
  }, [suites, open]);

  // The tab stop: the focused item if it is still visible, else the selected one, else "All cases".
  const tabStop = visible.some((r) => r.id === focused) ? focused : visible.some((r) => r.id === selected) ? selected : ALL;

  const focus = (id: string) => {
    setFocused(id);
    items.current.get(id)?.focus();
  };
  const toggle = (id: string, to: boolean) =>
    setOpen((prev) => {
      const next = new Set(prev);
      if (to) next.add(id);
      else next.delete(id);
      return next;
    });

  const onKeyDown = (e: KeyboardEvent<HTMLLIElement>, id: string) => {
    e.stopPropagation();
    const index = visible.findIndex((r) => r.id === id);
    const row = visible[index];
    if (!row) return;
    let handled = true;
    switch (e.key) {
      case 'ArrowDown':
        if (index < visible.length - 1) focus(visible[index + 1]!.id);
        break;
      case 'ArrowUp':
        if (index > 0) focus(visible[index - 1]!.id);
        break;
      case 'Home':
        focus(visible[0]!.id);
        break;
      case 'End':
        focus(visible[visible.length - 1]!.id);
        break;
      case 'ArrowRight':
        if (row.hasChildren && !open.has(row.id)) toggle(row.id, true);
        else if (row.hasChildren) focus(visible[index + 1]!.id);
        break;
      case 'ArrowLeft':
        if (row.hasChildren && open.has(row.id)) toggle(row.id, false);
        else if (row.parentId !== undefined) focus(row.parentId);
        break;
      case 'Enter':
      case ' ':
        onSelect(row.id);
        break;
      default:
        handled = false;
    }
    if (handled) e.preventDefault();
  };

  const renderLevel = (list: { id: string; name: string; children: Suite[] }[], level: number) =>
    list.map((s) => {
      const hasChildren = s.children.length > 0;
      const isOpen = open.has(s.id);
      return (
        <li
          key={s.id || 'all'}
          ref={(el) => {
            if (el) items.current.set(s.id, el);
            else items.current.delete(s.id);
          }}
          role="treeitem"
          aria-level={level}
          aria-selected={selected === s.id}
          aria-expanded={hasChildren ? isOpen : undefined}
          tabIndex={tabStop === s.id ? 0 : -1}
          className="suite-tree-item"
          onKeyDown={(e) => onKeyDown(e, s.id)}
          onFocus={(e) => {
            if (e.target === e.currentTarget) setFocused(s.id);
          }}
          onClick={(e) => {
            e.stopPropagation();
            setFocused(s.id);
            onSelect(s.id);
            if (hasChildren) toggle(s.id, selected === s.id ? !isOpen : true);
          }}
        >
          <span className="suite-tree-label">
            <span className="suite-tree-toggle" aria-hidden="true">
              {hasChildren ? (isOpen ? '▾' : '▸') : ''}
            </span>
            {s.name}
          </span>
          {hasChildren && isOpen ? (
            <ul role="group">
              {renderLevel(
                s.children.map((c) => ({ id: c._id, name: c.name, children: c.children })),
                level + 1,
              )}
            </ul>
          ) : null}
        </li>
      );
    });

  return (
    <ul role="tree" aria-label={label} className="suite-tree">
      {renderLevel(
        [{ id: ALL, name: 'All cases', children: [] }, ...suites.map((s) => ({ id: s._id, name: s.name, children: s.children }))],
        1,
      )}
    </ul>
  );
}
