/**
 * Gathers one report's data over RPC, never from another service's tables: every figure from
 * `AnalyticsService.GetReportData`, the run summary table from `RunsService.ListRuns`, the project name from
 * the gateway's `IdentityService.GetProject`. Calls carry the principal of whoever asked for the report.
 */
import type { Client } from '@connectrpc/connect';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { AnalyticsService } from '@assay/proto/assay/analytics/v1/analytics_pb';
import { RunsService } from '@assay/proto/assay/runs/v1/runs_pb';
import { IdentityService } from '@assay/proto/assay/identity/v1/identity_pb';
import type { RunSnapshot } from '@assay/proto/assay/events/v1/run_lifecycle_pb';
import { fromConnectError, type AppError } from '@assay/errors';
import { asPrincipal, createRpcClient, type Principal } from '@assay/service-kit';
import { renderReport } from '../render/pdf';
import { buildModel, type ReportModel } from './model';
import { periodBounds, type Period, type ReportParams } from './period';

/** Rows of the run summary table, and how many pages of ListRuns (100 runs each) may be read to fill it. */
export const RUN_TABLE_ROWS = 25;
const RUN_PAGES = 10;
const PAGE = 100;
/** Rows of each top list (failing, flaky, slowest). */
export const TOP_ROWS = 10;

export interface Sources {
  analytics: Client<typeof AnalyticsService>;
  runs: Client<typeof RunsService>;
  identity: Client<typeof IdentityService>;
}

export function createSources(opts: {
  analyticsUrl: string;
  runsUrl: string;
  identityUrl: string;
  internalToken: string;
  timeoutMs: number;
}): Sources {
  const common = { internalToken: opts.internalToken, timeoutMs: opts.timeoutMs };
  return {
    analytics: createRpcClient(AnalyticsService, { baseUrl: opts.analyticsUrl, ...common }),
    runs: createRpcClient(RunsService, { baseUrl: opts.runsUrl, ...common }),
    identity: createRpcClient(IdentityService, { baseUrl: opts.identityUrl, ...common }),
  };
}

/** A failed call to another service, named for the failure reason of a report (never a host or a port). */
export class SourceError extends Error {
  /** The error of the call (its reason tells a transient failure from a permanent one). */
  readonly error: AppError;

  constructor(
    readonly source: 'analytics' | 'runs' | 'identity',
    cause: unknown,
  ) {
    const error = fromConnectError(cause);
    super(`${SOURCE_TEXT[source]}: ${error.message}`, { cause });
    this.name = 'SourceError';
    this.error = error;
  }
}

const SOURCE_TEXT = {
  analytics: 'Could not get the report figures from the analytics service',
  runs: 'Could not list the runs from the runs service',
  identity: 'Could not look up the project',
} as const;

async function call<T>(source: SourceError['source'], p: Promise<T>): Promise<T> {
  try {
    return await p;
  } catch (err) {
    throw new SourceError(source, err);
  }
}

export async function projectName(sources: Sources, projectId: string, signal?: AbortSignal): Promise<string> {
  const p = await call('identity', sources.identity.getProject({ projectId }, { signal }));
  return p.name;
}

function matches(run: RunSnapshot, params: ReportParams): boolean {
  if (params.branch && run.git?.branch !== params.branch) return false;
  if (params.environment && run.git?.environment !== params.environment) return false;
  if (params.tags.length > 0 && !run.tags.some((t) => params.tags.includes(t))) return false;
  return true;
}

/** The latest runs of the period that match the filters, newest first (at most RUN_TABLE_ROWS). */
async function latestRuns(
  sources: Sources,
  projectId: string,
  period: Period,
  params: ReportParams,
  principal: Principal,
  signal?: AbortSignal,
) {
  const { from, until } = periodBounds(period);
  const out: RunSnapshot[] = [];
  for (let page = 1; page <= RUN_PAGES && out.length < RUN_TABLE_ROWS; page++) {
    const res = await call(
      'runs',
      sources.runs.listRuns(
        {
          projectId,
          page: { page, limit: PAGE },
          startTime: timestampFromDate(from),
          // ListRuns includes both ends; the period ends just before the next day.
          endTime: timestampFromDate(new Date(until.getTime() - 1)),
        },
        { ...asPrincipal(principal), signal },
      ),
    );
    for (const r of res.runs) if (matches(r, params) && out.length < RUN_TABLE_ROWS) out.push(r);
    if (page * PAGE >= Number(res.page?.total ?? 0)) break;
  }
  return out;
}

export interface CollectInput {
  projectId: string;
  projectName: string;
  period: Period;
  params: ReportParams;
  /** Whoever asked for the report: the calls carry it. */
  principal: Principal;
  now: Date;
  signal?: AbortSignal;
}

export async function collect(sources: Sources, input: CollectInput): Promise<ReportModel> {
  const { projectId, period, params, principal, signal } = input;
  const { from, until } = periodBounds(period);
  const [data, runs] = await Promise.all([
    call(
      'analytics',
      sources.analytics.getReportData(
        {
          projectId,
          from: timestampFromDate(from),
          until: timestampFromDate(new Date(until.getTime() - 1)),
          branch: params.branch,
          environment: params.environment,
          tags: params.tags,
          topLimit: TOP_ROWS,
        },
        { ...asPrincipal(principal), signal },
      ),
    ),
    latestRuns(sources, projectId, period, params, principal, signal),
  ]);
  return buildModel({
    project: { id: projectId, name: input.projectName },
    period,
    filters: { branch: params.branch, environment: params.environment, tags: params.tags },
    data,
    runs,
    generatedAt: input.now,
  });
}

/** One report from request to bytes: collect the data over RPC, render the PDF (the worker and the synchronous endpoint). */
export async function generatePdf(sources: Sources, input: CollectInput): Promise<Buffer> {
  return renderReport(await collect(sources, input));
}
