/**
 * The `test-case-explorer` family (CONTRACT §2): GET /test-case-explorer, every automated test over a rolling
 * window (`days` snapped to 7, 30 or 90), filtered by status, sorted, paginated with the explorer's page sizes
 * (10, 25, 50; others → INVALID_LIMIT). The rows are AnalyticsTest (./figures.ts).
 */
import { Type, type Static } from '@sinclair/typebox';
import { ExplorerSortBy, ExplorerStatus, SortOrder } from '@assay/proto/assay/analytics/v1/analytics_pb';
import { enumMap } from '../common/enums';
import { EXPLORER_PAGE_SIZES, PageQuery } from '../common/pagination';
import { DaysQuery } from './figures';
import {
  DEFAULT_EXPLORER_SORT,
  DEFAULT_SORT_ORDER,
  EXPLORER_SORT_KEYS,
  EXPLORER_STATUSES,
  SORT_ORDERS,
  type ExplorerSortName,
  type ExplorerStatusName,
  type SortOrderName,
} from './values';

export const explorerStatus = enumMap<ExplorerStatusName, ExplorerStatus>([
  ['flaky', ExplorerStatus.FLAKY],
  ['failing', ExplorerStatus.FAILING],
  ['stable', ExplorerStatus.STABLE],
  ['slow', ExplorerStatus.SLOW],
]);
export const explorerSort = enumMap<ExplorerSortName, ExplorerSortBy>([
  ['flaky_rate', ExplorerSortBy.FLAKY_RATE],
  ['failure_rate', ExplorerSortBy.FAILURE_RATE],
  ['p95_duration', ExplorerSortBy.P95_DURATION],
  ['executions', ExplorerSortBy.EXECUTIONS],
]);
export const sortOrder = enumMap<SortOrderName, SortOrder>([
  ['asc', SortOrder.ASC],
  ['desc', SortOrder.DESC],
]);

/** A closed set as `{type: string, enum}` (how the document has always spelled these parameters). */
const OneOf = <T extends string>(values: readonly T[], description: string) =>
  Type.Optional(Type.Unsafe<T>({ type: 'string', enum: [...values], description }));

export const ExplorerQuery = Type.Object({
  ...DaysQuery(),
  status: OneOf(EXPLORER_STATUSES, 'filter'),
  sortBy: OneOf(EXPLORER_SORT_KEYS, `sort key (default ${DEFAULT_EXPLORER_SORT})`),
  order: OneOf(SORT_ORDERS, `default ${DEFAULT_SORT_ORDER}`),
  ...PageQuery(EXPLORER_PAGE_SIZES),
});
export type ExplorerQueryValue = Static<typeof ExplorerQuery>;
