/** Manual testing: named after the API families (manual-test-cases, releases, sessions, manual-runs). */
export const manualPaths = {
  manualTestCases: '/projects/:projectId/manual-test-cases',
  newManualTestCase: '/projects/:projectId/manual-test-cases/new',
  manualTestCase: '/projects/:projectId/manual-test-cases/:caseId',
  releases: '/projects/:projectId/releases',
  release: '/projects/:projectId/releases/:releaseId',
  sessions: '/projects/:projectId/sessions',
  session: '/projects/:projectId/sessions/:sessionId',
  manualRuns: '/projects/:projectId/manual-runs',
  manualRun: '/projects/:projectId/manual-runs/:runId',
} as const;
