import { errorMessage, isErrorEnvelope, isSignedOut } from '../api/client';
import { PAGES } from '../app/paths';

/** A Gherkin step's fields as the case editor labels them (the API writes them `event` and `stepDescription`). */
const STEP_FIELDS: Record<string, string> = { event: 'keyword', stepDescription: 'text' };

/**
 * `body.steps.0.subSteps.1.action` → "Step 1.2 action"; `body.steps.2.stepDescription` → "Step 3 text";
 * `body.endDate` → "End date"; `body.customFields.price.EUR` → "Custom fields price.EUR"; `body.url` → "URL". The
 * API names the invalid field by its path; a person reads the field's name. A custom field's key is the user's own
 * text, dots and capitals included, so it is kept as written.
 */
export function fieldName(path: string): string {
  const parts = path.split('.').filter((p) => p !== 'body' && p !== 'query');
  const out: string[] = [];
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    if ((part === 'steps' || part === 'stepResults') && /^\d+$/.test(parts[i + 1] ?? '')) {
      const numbers = [Number(parts[i + 1]) + 1];
      i += 1;
      while (parts[i + 1] === 'subSteps' && /^\d+$/.test(parts[i + 2] ?? '')) {
        numbers.push(Number(parts[i + 2]) + 1);
        i += 2;
      }
      out.push(`${part === 'steps' ? 'Step' : 'Step result'} ${numbers.join('.')}`);
    } else if (part === 'customFields' && i + 1 < parts.length) {
      out.push('custom fields', parts.slice(i + 1).join('.'));
      break;
    } else if (out.at(-1)?.startsWith('Step ') && STEP_FIELDS[part]) out.push(STEP_FIELDS[part]);
    else if (/^\d+$/.test(part)) out.push(`#${Number(part) + 1}`);
    else
      out.push(
        part
          .replace(/([a-z])([A-Z])/g, '$1 $2')
          .toLowerCase()
          .replace(/\b(url|id|ci)\b/g, (w) => w.toUpperCase()),
      );
  }
  const text = out.join(' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function detailText(d: { path: string; message: string }): string {
  const name = fieldName(d.path);
  return name ? `${name}: ${d.message}` : d.message;
}

/**
 * What the API said about a refused write, next to the form that sent it: one line per invalid field when the
 * API lists them (VALIDATION_ERROR details), else its message; a write refused because its user was signed out
 * meanwhile says so, and how to sign in again without losing the page.
 */
export function FormError({ error, title = 'Not saved' }: { error: unknown; title?: string }) {
  if (!error) return null;
  if (isSignedOut(error)) {
    // Signing in here would leave the page and what was typed on it: a new tab signs in, this one sends again.
    const login = `${PAGES.login}?next=${encodeURIComponent(window.location.pathname + window.location.search)}`;
    return (
      <div className="callout callout-error" role="alert">
        <strong>{title}.</strong> You were signed out (in another tab, or everywhere). What you entered is kept here:{' '}
        <a href={login} target="_blank" rel="noopener">
          sign in again in a new tab
        </a>
        , then send it again from this page.
      </div>
    );
  }
  if (!isErrorEnvelope(error)) {
    // No answer: the write may have been done before the connection dropped. Sent again, it carries the same
    // idempotency key (api/idempotency.ts), so what was done is answered, not done twice.
    return (
      <div className="callout callout-error" role="alert">
        <strong>Perhaps {title.charAt(0).toLowerCase() + title.slice(1)}.</strong> {errorMessage(error)} Send it again once it answers: if
        it was done before the connection dropped, it is not done twice.
      </div>
    );
  }
  const details = error.error.details ?? [];
  return (
    <div className="callout callout-error" role="alert">
      <strong>{title}.</strong>{' '}
      {details.length === 0 ? (
        errorMessage(error)
      ) : details.length === 1 ? (
        detailText(details[0]!)
      ) : (
        <ul className="manual-error-list">
          {details.map((d) => (
            <li key={`${d.path}|${d.message}`}>{detailText(d)}</li>
          ))}
        </ul>
      )}
    </div>
  );
}
