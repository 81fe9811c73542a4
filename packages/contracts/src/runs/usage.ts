/** The `usage` family (CONTRACT §2): the organization's plan, current period and the test results and runs ingested in it. */
import { Type, type Static } from '@sinclair/typebox';
import type { GetUsageResponse } from '@assay/proto/assay/runs/v1/runs_pb';
import { Ok } from '../common/envelope';
import { isoRequired } from '../common/json';

const UsageSchema = Type.Object({
  planName: Type.String(),
  periodStart: Type.String({ format: 'date-time' }),
  periodEnd: Type.String({ format: 'date-time' }),
  limits: Type.Object({ testResultsPerMonth: Type.Integer() }),
  used: Type.Object({ testResults: Type.Integer(), runs: Type.Integer() }),
  remaining: Type.Integer({ description: 'test results left in the period' }),
  artifacts: Type.Object(
    {
      bytes: Type.Integer({ description: "bytes of the project's stored artifacts (screenshots, videos, traces, files)" }),
      count: Type.Integer(),
      retentionDays: Type.Integer({ description: 'how long the project keeps them' }),
    },
    { description: "the project's artifact storage" },
  ),
});

export const UsageAnswer = Ok(UsageSchema);

export function usageToJson(u: GetUsageResponse): Static<typeof UsageSchema> {
  return {
    planName: u.planName,
    periodStart: isoRequired(u.periodStart),
    periodEnd: isoRequired(u.periodEnd),
    limits: { testResultsPerMonth: Number(u.testResultsPerMonth) },
    used: { testResults: Number(u.usedTestResults), runs: Number(u.usedRuns) },
    remaining: Number(u.remaining),
    artifacts: { bytes: Number(u.artifactBytes), count: Number(u.artifactCount), retentionDays: u.artifactRetentionDays },
  };
}
