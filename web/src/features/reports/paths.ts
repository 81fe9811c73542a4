/** PDF reports: request one, follow its status, download it. */
export const reportsPaths = {
  reports: '/projects/:projectId/reports',
  report: '/projects/:projectId/reports/:reportId',
} as const;
