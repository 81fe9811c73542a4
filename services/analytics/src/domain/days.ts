/** UTC days as integers (days since 1970-01-01) and the windows built from them. */
import { validation } from '@assay/errors';
import { DEFAULT_WINDOW_DAYS, WINDOW_DAYS, type WindowDays } from '@assay/contracts/analytics/values';
import { either } from './words';

const DAY_MS = 86_400_000;

export const dayOf = (d: Date | number): number => Math.floor((typeof d === 'number' ? d : d.getTime()) / DAY_MS);

export const dayStart = (day: number): Date => new Date(day * DAY_MS);

/** YYYY-MM-DD */
export const dateOf = (day: number): string => dayStart(day).toISOString().slice(0, 10);

/**
 * `days` of a public endpoint (the gateway has snapped it to 7, 30 or 90; 0 means the default): one of the rolling
 * windows the read model keeps, else 400 at `query.days`.
 */
export function windowDays(days: number): WindowDays {
  const d = days || DEFAULT_WINDOW_DAYS;
  if (!(WINDOW_DAYS as readonly number[]).includes(d)) {
    const allowed = either(WINDOW_DAYS);
    throw validation(`days must be ${allowed}`, [{ path: 'query.days', message: `must be ${allowed}` }]);
  }
  return d as WindowDays;
}
