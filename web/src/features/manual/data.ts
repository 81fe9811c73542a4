/**
 * Reads several manual-testing pages share: the suite trees (selects and the tree), the releases (selects and
 * names), and a way to refresh every read of a path after a write.
 */
import { useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import { $api, type Schemas } from '../../api/client';
import { keepSameList } from '../../api/lists';

export const P = {
  suites: '/api/v1/public/{projectId}/manual-test-suites',
  suite: '/api/v1/public/{projectId}/manual-test-suites/{suiteId}',
  cases: '/api/v1/public/{projectId}/manual-test-cases',
  case: '/api/v1/public/{projectId}/manual-test-cases/{caseId}',
  releases: '/api/v1/public/{projectId}/releases',
  release: '/api/v1/public/{projectId}/releases/{releaseId}',
  sessions: '/api/v1/public/{projectId}/sessions',
  session: '/api/v1/public/{projectId}/sessions/{sessionId}',
  runs: '/api/v1/public/{projectId}/manual-runs',
  run: '/api/v1/public/{projectId}/manual-runs/{runId}',
  runCases: '/api/v1/public/{projectId}/manual-runs/{runId}/test-cases',
  runCase: '/api/v1/public/{projectId}/manual-runs/{runId}/test-cases/{caseRef}',
} as const;

/** The root suites with their sub-suites, 100 roots a page (the largest page the API serves). */
export function useSuites(projectId: string, page = 1) {
  // A page of suites stays shown while the next one loads (api/lists.ts).
  return $api.useQuery(
    'get',
    P.suites,
    { params: { path: { projectId }, query: { page, limit: 100 } } },
    { placeholderData: keepSameList({ projectId }) },
  );
}

/** The newest 100 releases, for release selects and for naming a release by its id. */
export function useReleaseOptions(projectId: string) {
  return $api.useQuery('get', P.releases, { params: { path: { projectId }, query: { limit: 100 } } });
}

export type Release = Schemas['Release'];

/** Refreshes every cached read of the given API paths (any parameters), e.g. after a write. */
export function useRefresh() {
  const queryClient = useQueryClient();
  return useCallback(
    (...paths: string[]) => Promise.all(paths.map((path) => queryClient.invalidateQueries({ queryKey: ['get', path] }))),
    [queryClient],
  );
}
