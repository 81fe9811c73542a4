/**
 * The `specs` family (CONTRACT §2): GET /specs, spec-file health over a rolling window (`days` snapped to 7, 30 or
 * 90), paginated; most failures first, then file name.
 */
import { Type, type Static } from '@sinclair/typebox';
import type { SpecRow } from '@assay/proto/assay/analytics/v1/analytics_pb';
import { iso } from '../common/json';
import { PageQuery } from '../common/pagination';
import { Counts, countsOf, DateTimeOrNull, DaysQuery, Percentiles, percentilesOf, Rates, ratesOf } from './figures';

export const AnalyticsSpecSchema = Type.Object(
  {
    file: Type.String(),
    tests: Type.Integer({ description: 'distinct tests of the file with results in the window' }),
    ...Counts,
    ...Rates,
    ...Percentiles,
    lastRunAt: DateTimeOrNull,
  },
  { $id: 'AnalyticsSpec', title: 'AnalyticsSpec', description: 'One spec file over the window' },
);
export type AnalyticsSpecJson = Static<typeof AnalyticsSpecSchema>;

export const SpecsQuery = Type.Object({ ...DaysQuery(), ...PageQuery() });

export const specJson = (s: SpecRow): AnalyticsSpecJson => ({
  file: s.file,
  tests: Number(s.tests),
  ...countsOf(s.stats),
  ...ratesOf(s.stats),
  ...percentilesOf(s.durations),
  lastRunAt: iso(s.lastRunAt),
});
