/**
 * A status as a word with a colour (the word is always there: colour alone says nothing to everyone). Known
 * statuses of runs, tests, attempts, manual verdicts and deliveries map to one of five tones.
 */
const TONE: Record<string, 'good' | 'bad' | 'warn' | 'info' | 'neutral'> = {
  passed: 'good',
  pass: 'good',
  success: 'good',
  succeeded: 'good',
  ready: 'good',
  completed: 'good',
  delivered: 'good',
  active: 'good',
  failed: 'bad',
  fail: 'bad',
  failure: 'bad',
  timedOut: 'bad',
  timed_out: 'bad',
  interrupted: 'bad',
  blocked: 'bad',
  disabled: 'bad',
  flaky: 'warn',
  incomplete: 'warn',
  retry: 'warn',
  pending: 'warn',
  running: 'info',
  in_progress: 'info',
  inProgress: 'info',
  generating: 'info',
  skipped: 'neutral',
  untested: 'neutral',
  cancelled: 'neutral',
  canceled: 'neutral',
};

export function StatusBadge({ status, label }: { status: string; label?: string }) {
  const tone = TONE[status] ?? 'neutral';
  return <span className={`badge badge-${tone}`}>{label ?? status.replace(/_/g, ' ')}</span>;
}
