/** Tags as a list of chips ("—" when there are none). */
export function Tags({ tags }: { tags: string[] }) {
  if (tags.length === 0) return <span className="muted">—</span>;
  return (
    <ul className="manual-tags" aria-label="Tags">
      {tags.map((t) => (
        <li key={t} className="manual-tag">
          {t}
        </li>
      ))}
    </ul>
  );
}
