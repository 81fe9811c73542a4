/** Plans and usage: ingested test results (one per test per run) and runs per organization and UTC month. */
import { AppError } from '@assay/errors';
import type { Queryable } from '@assay/db';

export interface Period {
  start: Date;
  end: Date;
}

export function periodOf(now: Date): Period {
  const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const end = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
  return { start, end };
}

export interface Plan {
  planName: string;
  testResultsPerMonth: number;
}

export interface Usage extends Plan, Period {
  testResults: number;
  runs: number;
  remaining: number;
}

export async function planOf(db: Queryable, orgId: string, fallback: Plan): Promise<Plan> {
  const { rows } = await db.query('SELECT plan_name, test_results_per_month FROM plans WHERE org_id = $1', [orgId]);
  return rows[0] ? { planName: rows[0].plan_name, testResultsPerMonth: Number(rows[0].test_results_per_month) } : fallback;
}

export async function setPlan(db: Queryable, orgId: string, plan: Plan): Promise<void> {
  await db.query(
    `INSERT INTO plans (org_id, plan_name, test_results_per_month) VALUES ($1, $2, $3)
     ON CONFLICT (org_id) DO UPDATE SET plan_name = EXCLUDED.plan_name, test_results_per_month = EXCLUDED.test_results_per_month,
       updated_at = now()`,
    [orgId, plan.planName, plan.testResultsPerMonth],
  );
}

export async function usageOf(db: Queryable, orgId: string, now: Date, fallback: Plan): Promise<Usage> {
  const period = periodOf(now);
  const plan = await planOf(db, orgId, fallback);
  const { rows } = await db.query('SELECT test_results, runs FROM usage WHERE org_id = $1 AND period_start = $2', [
    orgId,
    period.start.toISOString().slice(0, 10),
  ]);
  const testResults = Number(rows[0]?.test_results ?? 0);
  return {
    ...plan,
    ...period,
    testResults,
    runs: Number(rows[0]?.runs ?? 0),
    remaining: Math.max(0, plan.testResultsPerMonth - testResults),
  };
}

export const quotaExceeded = (u: { testResultsPerMonth: number; testResults: number }) =>
  new AppError(
    'QUOTA_LIMIT_EXCEEDED',
    `The plan allows ${u.testResultsPerMonth} test results per month; ${u.testResults} are used this period`,
  );

/** Refuses a new run when the period's quota is already used up. */
export async function assertQuotaLeft(db: Queryable, orgId: string, now: Date, fallback: Plan): Promise<void> {
  const u = await usageOf(db, orgId, now, fallback);
  if (u.testResults >= u.testResultsPerMonth) throw quotaExceeded(u);
}

/**
 * Adds to the period's usage (inside the ingestion transaction, last, so the row lock is short). Results that
 * would take the organization over its plan throw QUOTA_LIMIT_EXCEEDED, which rolls the whole write back.
 */
export async function charge(db: Queryable, orgId: string, now: Date, add: { testResults: number; runs: number }, fallback: Plan) {
  if (add.testResults === 0 && add.runs === 0) return;
  const period = periodOf(now).start.toISOString().slice(0, 10);
  const { rows } = await db.query(
    `INSERT INTO usage (org_id, period_start, test_results, runs) VALUES ($1, $2, $3, $4)
     ON CONFLICT (org_id, period_start) DO UPDATE SET test_results = usage.test_results + EXCLUDED.test_results,
       runs = usage.runs + EXCLUDED.runs
     RETURNING test_results`,
    [orgId, period, add.testResults, add.runs],
  );
  if (add.testResults > 0) {
    const plan = await planOf(db, orgId, fallback);
    const used = Number(rows[0].test_results);
    if (used > plan.testResultsPerMonth)
      throw quotaExceeded({ testResultsPerMonth: plan.testResultsPerMonth, testResults: used - add.testResults });
  }
}
