/**
 * The analytics domain's closed value sets and limits (spec §4.1, §4.2, CONTRACT §2), written once: the
 * gateway's schemas, the analytics service's checks and queries use these, and the proto enums map onto them
 * (./test-case-explorer.ts).
 */

/** Spec §4.1: the rolling windows (days) the public endpoints answer; any other `days` is snapped to one. */
export const WINDOW_DAYS = [7, 30, 90] as const;
export type WindowDays = (typeof WINDOW_DAYS)[number];
/** Absent or invalid `days` (and the service's 0). */
export const DEFAULT_WINDOW_DAYS = 30;
/** The dashboard's fixed window. */
export const DASHBOARD_DAYS = 30;

/** Rows of each top list of the dashboard and the summary (failing, flaky, slowest). */
export const TOP_TESTS = 10;
/** Runs running now that the dashboard lists (newest first). */
export const MAX_ACTIVE_RUNS = 50;
/** Rows of GET /analytics/test-cases/performance (slowest p95 first; the spec gives it no paging). */
export const MAX_PERFORMANCE_ROWS = 5000;

/** The explorer's `status` filter. */
export const EXPLORER_STATUSES = ['flaky', 'failing', 'stable', 'slow'] as const;
export type ExplorerStatusName = (typeof EXPLORER_STATUSES)[number];

/** The explorer's `sortBy` keys, and the one used when none is given. */
export const EXPLORER_SORT_KEYS = ['flaky_rate', 'failure_rate', 'p95_duration', 'executions'] as const;
export type ExplorerSortName = (typeof EXPLORER_SORT_KEYS)[number];
export const DEFAULT_EXPLORER_SORT: ExplorerSortName = 'executions';

export const SORT_ORDERS = ['asc', 'desc'] as const;
export type SortOrderName = (typeof SORT_ORDERS)[number];
export const DEFAULT_SORT_ORDER: SortOrderName = 'desc';

/** The value lists of GET /filters, each also served alone at /filters/{kind}. */
export const FILTER_KINDS = ['environments', 'branches', 'developers', 'tags'] as const;
export type FilterKind = (typeof FILTER_KINDS)[number];

/**
 * Report data (AnalyticsService.GetReportData, for the reports service): an exact window of at most 90 days
 * (30 when none is given), and at most 100 rows per top list (10 when none is given).
 */
export const REPORT_DATA_MAX_DAYS = 90;
export const REPORT_DATA_DEFAULT_DAYS = 30;
export const REPORT_DATA_MAX_TOP = 100;
