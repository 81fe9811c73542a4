/**
 * The `filters` family (CONTRACT §2): GET /filters and GET /filters/{environments|branches|developers|tags}, the
 * values seen in the project's runs, sorted; no query parameters (any given are stripped). Developers are commit
 * authors; tags are run tags and test tags.
 */
import { Type, type Static } from '@sinclair/typebox';
import type { GetFiltersResponse } from '@assay/proto/assay/analytics/v1/analytics_pb';
import type { FilterKind } from './values';

/** What each list holds, as the document describes it. */
export const FILTER_VALUES_OF: Record<FilterKind, string> = {
  environments: 'environments',
  branches: 'branches',
  developers: 'commit authors',
  tags: 'run and test tags',
};

export const FiltersQuery = Type.Object({});

export const FilterValuesSchema = (kind: FilterKind) =>
  Type.Array(Type.String(), { description: `${FILTER_VALUES_OF[kind]} seen in the project's runs, sorted` });

export const FiltersSchema = Type.Object({
  environments: FilterValuesSchema('environments'),
  branches: FilterValuesSchema('branches'),
  developers: FilterValuesSchema('developers'),
  tags: FilterValuesSchema('tags'),
});
export type FiltersJson = Static<typeof FiltersSchema>;

export const filtersToJson = (f: GetFiltersResponse): FiltersJson => ({
  environments: f.environments,
  branches: f.branches,
  developers: f.developers,
  tags: f.tags,
});
