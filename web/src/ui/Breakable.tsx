import { Fragment } from 'react';

/**
 * A path, branch, file name or URL that may break after each `/`, `.`, `-`, `_`, `?`, `&` or `=` (a `<wbr>` there),
 * not only at spaces: a table column can be as narrow as the longest segment, and a name is never cut mid-segment.
 * The text itself is unchanged (copying it copies no break).
 */
export function Breakable({ text }: { text: string }) {
  const parts = text.split(/(?<=[/._\-?&=])/);
  return (
    <>
      {parts.map((part, i) => (
        <Fragment key={i}>
          {i > 0 ? <wbr /> : null}
          {part}
        </Fragment>
      ))}
    </>
  );
}
