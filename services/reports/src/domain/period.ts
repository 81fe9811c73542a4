/**
 * The period of a report, its file name, and the checks of the parameters a caller may send. The limits are the
 * contract's (@assay/contracts/reports): the service accepts up to MAX_REPORT_DAYS (the analytics window limit),
 * the public API 1–30.
 */
import { validation } from '@assay/errors';
import { DEFAULT_REPORT_DAYS, MAX_FILTER_LENGTH, MAX_REPORT_DAYS, MAX_REPORT_TAGS } from '@assay/contracts/reports/values';
import { characterCount } from '@assay/contracts/common/text';

export interface Period {
  days: number;
  /** YYYY-MM-DD, UTC, both included. */
  fromDate: string;
  untilDate: string;
}

const DAY_MS = 86_400_000;
const isoDate = (d: Date) => d.toISOString().slice(0, 10);

/** The `days` whole UTC days ending with the day of `now` (today included), as analytics counts windows. */
export function periodEnding(now: Date, days: number): Period {
  const until = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  const from = new Date(until.getTime() - (days - 1) * DAY_MS);
  return { days, fromDate: isoDate(from), untilDate: isoDate(until) };
}

/** Start of the first day and end of the last day (exclusive: the next day 00:00 UTC). */
export function periodBounds(p: Period): { from: Date; until: Date } {
  return { from: new Date(`${p.fromDate}T00:00:00.000Z`), until: new Date(new Date(`${p.untilDate}T00:00:00.000Z`).getTime() + DAY_MS) };
}

export interface ReportParams {
  days: number;
  branch: string;
  environment: string;
  tags: string[];
}

/** Checks and normalizes what a caller sent (the gateway has checked the public limits already). */
export function checkParams(input: { days?: number; branch?: string; environment?: string; tags?: string[] }, path = 'body'): ReportParams {
  const days = input.days || DEFAULT_REPORT_DAYS;
  if (!Number.isInteger(days) || days < 1 || days > MAX_REPORT_DAYS)
    throw validation(`days must be an integer from 1 to ${MAX_REPORT_DAYS}`, [
      { path: `${path}.days`, message: `must be from 1 to ${MAX_REPORT_DAYS}` },
    ]);
  const text = (name: 'branch' | 'environment') => {
    const v = (input[name] ?? '').trim();
    if (characterCount(v) > MAX_FILTER_LENGTH)
      throw validation(`${name} is too long`, [{ path: `${path}.${name}`, message: `at most ${MAX_FILTER_LENGTH} characters` }]);
    return v;
  };
  const tags = [...new Set((input.tags ?? []).map((t) => t.trim()).filter((t) => t.length > 0))];
  if (tags.length > MAX_REPORT_TAGS)
    throw validation('too many tags', [{ path: `${path}.tags`, message: `at most ${MAX_REPORT_TAGS} tags` }]);
  if (tags.some((t) => characterCount(t) > MAX_FILTER_LENGTH))
    throw validation('a tag is too long', [{ path: `${path}.tags`, message: `each at most ${MAX_FILTER_LENGTH} characters` }]);
  return { days, branch: text('branch'), environment: text('environment'), tags };
}

/** `Web Shop (EU)` → `web-shop-eu`; ASCII letters and digits only, at most 40 characters. */
export function slug(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/g, '');
}

/** `assay-<project>-<from>_<until>.pdf`; the project id stands in for a name with no ASCII letter or digit. */
export function reportFileName(projectName: string, projectId: string, p: Period): string {
  return `assay-${slug(projectName) || projectId}-${p.fromDate}_${p.untilDate}.pdf`;
}
