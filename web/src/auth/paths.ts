/** Pages reachable signed out. The invitation and sign-in link pages carry their token in the fragment. */
export const authPaths = {
  login: '/login',
  acceptInvitation: '/accept-invitation',
  signIn: '/sign-in',
} as const;
