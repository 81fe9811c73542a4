import { useState, type ReactNode } from 'react';

/**
 * A detail page's edit section (`Edit <what>`): a button opens the form; a submit that changes nothing says so
 * instead of sending; a saved change closes the form. `children` renders the form around `submit`, which takes
 * the changed fields; `save` sends them and calls `saved` once the API has stored them.
 */
export function EditCard<Body extends object>({
  what,
  save,
  children,
}: {
  what: string;
  save: (body: Body, saved: () => void) => void;
  children: (submit: (body: Body) => void) => ReactNode;
}) {
  const [open, setOpen] = useState(false);
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
      {open ? children(submit) : null}
      {nothing && open ? (
        <p className="muted" role="status">
          Nothing changed.
        </p>
      ) : null}
    </section>
  );
}
