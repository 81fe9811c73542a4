import type { Verdict } from '../values';
import { valueLabel } from '../values';

const TONE: Record<Verdict, 'good' | 'bad' | 'warn' | 'neutral'> = {
  passed: 'good',
  failed: 'bad',
  blocked: 'bad',
  retest: 'warn',
  skipped: 'neutral',
  untested: 'neutral',
};

/** A verdict as a word with its colour (the word is always there). */
export function VerdictBadge({ verdict }: { verdict: Verdict }) {
  return <span className={`badge badge-${TONE[verdict]}`}>{valueLabel(verdict)}</span>;
}
