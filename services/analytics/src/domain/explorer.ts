/**
 * The explorer's choices checked against the contract's value sets (@assay/contracts/analytics): the `status`
 * filter, the sort key and the order, each optional (unset: no filter, executions, descending); an unspecified or
 * unknown value is 400 at its query path.
 */
import { validation } from '@assay/errors';
import type { EnumMap } from '@assay/contracts/common/enums';
import {
  DEFAULT_EXPLORER_SORT,
  DEFAULT_SORT_ORDER,
  type ExplorerSortName,
  type ExplorerStatusName,
  type SortOrderName,
} from '@assay/contracts/analytics/values';
import { explorerSort, explorerStatus, sortOrder } from '@assay/contracts/analytics/test-case-explorer';
import type { ExplorerSortBy, ExplorerStatus, SortOrder } from '@assay/proto/assay/analytics/v1/analytics_pb';
import { either } from './words';

export interface ExplorerChoice {
  filter?: ExplorerStatusName;
  sort: ExplorerSortName;
  order: SortOrderName;
}

function chosen<S extends string, E extends number>(map: EnumMap<S, E>, value: E | undefined, field: string): S | undefined {
  if (value === undefined) return undefined;
  const name = map.names.find((n) => map.toProto(n) === value);
  if (name === undefined)
    throw validation(`${field} must be ${either(map.names)}`, [{ path: `query.${field}`, message: `must be ${either(map.names)}` }]);
  return name;
}

export function explorerChoice(req: { status?: ExplorerStatus; sortBy?: ExplorerSortBy; order?: SortOrder }): ExplorerChoice {
  return {
    filter: chosen(explorerStatus, req.status, 'status'),
    sort: chosen(explorerSort, req.sortBy, 'sortBy') ?? DEFAULT_EXPLORER_SORT,
    order: chosen(sortOrder, req.order, 'order') ?? DEFAULT_SORT_ORDER,
  };
}
