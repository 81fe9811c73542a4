/** UTC days as integers (days since 1970-01-01) and the windows built from them. */

const DAY_MS = 86_400_000;

export const dayOf = (d: Date | number): number => Math.floor((typeof d === 'number' ? d : d.getTime()) / DAY_MS);

export const dayStart = (day: number): Date => new Date(day * DAY_MS);

/** YYYY-MM-DD */
export const dateOf = (day: number): string => dayStart(day).toISOString().slice(0, 10);

/** The `days` UTC days ending with `until` (both ends included). */
export interface DayWindow {
  days: number;
  from: number;
  until: number;
}

export const windowEnding = (until: number, days: number): DayWindow => ({ days, from: until - days + 1, until });

/** The rolling windows the read model keeps current (the public `days` values). */
export const WINDOWS = [7, 30, 90] as const;
export type WindowDays = (typeof WINDOWS)[number];

export const isKeptWindow = (days: number): days is WindowDays => (WINDOWS as readonly number[]).includes(days);
