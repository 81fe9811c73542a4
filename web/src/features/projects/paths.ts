/** The signed-in user's projects, and a project's dashboard. */
export const projectsPaths = {
  projects: '/',
  dashboard: '/projects/:projectId',
} as const;
