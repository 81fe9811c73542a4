/**
 * The runs family's reads, shared by its pages: a run's detail (polled while it runs), the whole run's compact
 * rows (one app-API answer, cached across the run, spec and result pages), and the words for statuses.
 */
import type { LoaderFunctionArgs } from 'react-router';
import { $api, queryClient, type Schemas } from '../../api/client';

export type Run = Schemas['TestRunListItem'];
export type TestStats = Schemas['TestStats'];
export type TestStatus = Schemas['TestCase']['status'];

/** How often a page asks again while a run it shows is running. */
export const POLL_MS = 5_000;

export const TEST_STATUSES: readonly TestStatus[] = ['passed', 'failed', 'flaky', 'skipped', 'timedOut', 'interrupted'];
export const RUN_STATUSES: readonly Run['status'][] = ['running', 'passed', 'failed', 'interrupted', 'incomplete'];

/** `timedOut` reads "timed out"; the others as they are. */
export const statusLabel = (status: string) => (status === 'timedOut' ? 'timed out' : status);

export const runTitle = (run: Pick<Run, 'counter'>) => `Run #${run.counter}`;
export const shortHash = (hash: string) => hash.slice(0, 7);

const RUN = '/api/v1/public/{projectId}/test-runs/{runId}';
const ROWS = '/api/v1/app/projects/{projectId}/test-runs/{runId}/results';
const runInit = (projectId: string, runId: string) => ({ params: { path: { projectId, runId }, query: { include: 'errors' as const } } });
const rowsInit = (projectId: string, runId: string) => ({ params: { path: { projectId, runId } } });
const FIRST = '/api/v1/public/{projectId}/test-runs/{runId}/test-cases';
const firstInit = (projectId: string, runId: string) => ({ params: { path: { projectId, runId }, query: { limit: 100 as const } } });

/**
 * The first 100 results of a run (one page of the public list): shown while the whole run's rows load, so a
 * 10,000-test run shows tests as soon as a small one does.
 */
export function useFirstTests(projectId: string, runId: string, enabled: boolean) {
  return $api.useQuery('get', FIRST, firstInit(projectId, runId), { enabled });
}

/** The run with its stats, live stats and failures grouped by error; asked again every few seconds while it runs. */
export function useRun(projectId: string, runId: string) {
  return $api.useQuery('get', RUN, runInit(projectId, runId), {
    refetchInterval: (q) => (q.state.data?.data.status === 'running' ? POLL_MS : false),
  });
}

const artifactsInit = (projectId: string, runId: string) => ({
  params: { path: { projectId, runId }, query: { include: 'artifacts' } },
});

/**
 * The run's stored artifacts (bytes stored, run-level files such as an uploaded HTML report, each with its signed
 * URL). Asked once the run has finished, not with every poll: the list holds up to 1,000 attachments.
 */
export function useRunArtifacts(projectId: string, runId: string, enabled: boolean) {
  return $api.useQuery('get', RUN, artifactsInit(projectId, runId), { enabled, staleTime: 60_000 });
}

/**
 * The route loader of the run and spec pages: both reads start with the navigation, while the page's code is still
 * loading (a 10,000-test run's rows take a few hundred ms to answer). The pages read them from the cache.
 */
export function prefetchRun({ params }: LoaderFunctionArgs): null {
  const { projectId = '', runId = '' } = params;
  void queryClient.prefetchQuery($api.queryOptions('get', RUN, runInit(projectId, runId)));
  void queryClient.prefetchQuery($api.queryOptions('get', ROWS, rowsInit(projectId, runId)));
  void queryClient.prefetchQuery($api.queryOptions('get', FIRST, firstInit(projectId, runId)));
  return null;
}

/**
 * Every result of the run as a compact row, and its spec files, in one answer of the app API. The public list
 * pages by 100 (a 10,000-test run would take 100 requests and the reads limit is 100 a minute); searching titles
 * needs every row at once. At 10,000 tests the answer is about 1.5 MiB, served in 0.3–0.5 s here (bench/src/web.ts
 * measures the page end to end). While the run runs, rows are asked again, less often than its stats.
 */
export function useRunRows(projectId: string, runId: string, running = false) {
  return $api.useQuery('get', ROWS, rowsInit(projectId, runId), {
    staleTime: running ? 0 : 60_000,
    refetchInterval: running ? 2 * POLL_MS : false,
  });
}

export type RunRows = NonNullable<ReturnType<typeof useRunRows>['data']>['data'];
export type RunRow = RunRows['rows'][number];
export type SpecFile = RunRows['specs'][number];
