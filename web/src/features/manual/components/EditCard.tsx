import { useState, type ReactNode } from 'react';

/**
 * A detail page's edit section (`Edit <what>`): a button opens the form; a submit that changes nothing says so
 * instead of sending; a saved change closes the form. `children` renders the form around `submit`, which takes
 * the changed fields, and the record as it was when the form opened: the page reads it again meanwhile (its own
 * buttons, another tab's save), and the form keeps what was typed and sends only what differs from what it opened
 * with, never a field changed meanwhile. `save` sends them and calls `saved` once the API has stored them.
 */
export function EditCard<Body extends object, Record>({
  what,
  record,
  save,
  children,
}: {
  what: string;
  record: Record;
  save: (body: Body, saved: () => void) => void;
  children: (submit: (body: Body) => void, opened: Record) => ReactNode;
}) {
  const [opened, setOpened] = useState<{ record: Record }>();
  const open = opened !== undefined;
  const setOpen = (on: boolean) => setOpened(on ? { record } : undefined);
  const [nothing, setNothing] = useState(false);
  const heading = `edit-${what}-heading`;
  const submit = (body: Body) => {
    const empty = Object.keys(body).length === 0;
    setNothing(empty);
    if (!empty) save(body, () => setOpen(false));
  };
  return (
    <section className="card" aria-labelledby={heading}>
      <h2 id={heading}>Edit {what}</h2>
      <button type="button" className="button" aria-expanded={open} onClick={() => setOpen(!open)}>
        {open ? 'Close the form' : `Edit ${what}`}
      </button>
      {opened ? children(submit, opened.record) : null}
      {nothing && open ? (
        <p className="muted" role="status">
          Nothing changed.
        </p>
      ) : null}
    </section>
  );
}
