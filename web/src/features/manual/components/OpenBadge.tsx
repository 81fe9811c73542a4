/** The open/closed status of a session or manual run, as a word with its colour. */
export function OpenBadge({ status }: { status: 'open' | 'closed' }) {
  return <span className={`badge ${status === 'open' ? 'badge-info' : 'badge-neutral'}`}>{status === 'open' ? 'Open' : 'Closed'}</span>;
}
