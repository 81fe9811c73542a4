/** The user's own settings. */
export const settingsPaths = {
  tokens: '/settings/tokens',
} as const;
