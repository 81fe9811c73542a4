/**
 * Automated runs. The API's deep links (`url` fields, CONTRACT §10) open these pages: keep them in step with
 * services/runs/src/domain (links).
 */
export const runsPaths = {
  runs: '/projects/:projectId/runs',
  run: '/projects/:projectId/runs/:runId',
  spec: '/projects/:projectId/runs/:runId/specs/:specId',
  testCase: '/projects/:projectId/runs/:runId/test-cases/:testCaseId',
  test: '/projects/:projectId/tests/:testId',
} as const;
