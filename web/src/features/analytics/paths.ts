/** Analytics: the summary, performance percentiles, the test case explorer and spec health. */
export const analyticsPaths = {
  analytics: '/projects/:projectId/analytics',
  performance: '/projects/:projectId/analytics/performance',
  testCaseExplorer: '/projects/:projectId/test-case-explorer',
  specs: '/projects/:projectId/specs',
} as const;
