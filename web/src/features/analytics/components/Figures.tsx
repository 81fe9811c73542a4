/** A row of figures (label, value) as cards. */
export function Figures({ items, label }: { items: [string, string][]; label: string }) {
  return (
    <dl className="grid figures" aria-label={label}>
      {items.map(([name, value]) => (
        <div key={name} className="card stat">
          <dt className="stat-label">{name}</dt>
          <dd className="stat-value">{value}</dd>
        </div>
      ))}
    </dl>
  );
}
