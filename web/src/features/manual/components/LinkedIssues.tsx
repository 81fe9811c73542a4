/**
 * Issue-tracker tickets linked to a release, session, run or run case: `{provider, displayId, url, title}`,
 * each with a displayId or a url (the API refuses one with neither).
 */
import type { Schemas } from '../../../api/client';

export type LinkedIssue = Schemas['Release']['linkedIssues'][number];

export function LinkedIssuesView({ issues }: { issues: LinkedIssue[] }) {
  if (issues.length === 0) return <span className="muted">None</span>;
  return (
    <ul className="manual-inline-list">
      {issues.map((issue, i) => {
        const text = [issue.provider, issue.displayId, issue.title].filter(Boolean).join(' · ') || issue.url;
        const href = issue.url && /^https?:\/\//i.test(issue.url) ? issue.url : undefined;
        return (
          <li key={`${issue.displayId ?? ''}-${issue.url ?? ''}-${i}`}>
            {href ? (
              <a href={href} rel="noreferrer noopener" target="_blank">
                {text}
              </a>
            ) : (
              text
            )}
          </li>
        );
      })}
    </ul>
  );
}

const FIELDS = [
  ['displayId', 'ID'],
  ['url', 'URL'],
  ['title', 'Title'],
  ['provider', 'Provider'],
] as const;

export function LinkedIssuesEditor({ issues, onChange }: { issues: LinkedIssue[]; onChange: (issues: LinkedIssue[]) => void }) {
  return (
    <fieldset className="manual-fieldset">
      <legend>Linked issues</legend>
      {issues.length === 0 ? <p className="muted">No linked issues.</p> : null}
      {issues.map((issue, i) => (
        <div key={i} className="manual-row">
          {FIELDS.map(([key, label]) => (
            <label key={key} className="manual-inline-field">
              <span>
                <span className="visually-hidden">Issue {i + 1} </span>
                {label}
              </span>
              <input
                value={issue[key] ?? ''}
                onChange={(e) => onChange(issues.map((x, j) => (j === i ? { ...x, [key]: e.target.value } : x)))}
              />
            </label>
          ))}
          <button type="button" className="button button-small button-danger" onClick={() => onChange(issues.filter((_, j) => j !== i))}>
            Remove<span className="visually-hidden"> issue {i + 1}</span>
          </button>
        </div>
      ))}
      <button type="button" className="button button-small" onClick={() => onChange([...issues, { displayId: '', url: '' }])}>
        Add linked issue
      </button>
    </fieldset>
  );
}

/**
 * Empty fields dropped (the API keeps what is sent, so "" would be stored), and a row left blank with them, as the
 * case editor leaves out a blank step row: "Add linked issue" clicked and nothing typed is no issue to refuse.
 */
export function cleanIssues(issues: LinkedIssue[]): LinkedIssue[] {
  return issues
    .map((i) => Object.fromEntries(Object.entries(i).filter(([, v]) => typeof v === 'string' && v.trim() !== '')) as LinkedIssue)
    .filter((i) => Object.keys(i).length > 0);
}
