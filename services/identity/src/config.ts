import { loadConfig, serviceSettings, Str, Type, type Settings } from '@assay/config';

export const IdentitySettings = Type.Object({
  ...serviceSettings(7206, 9206),
  REDIS_URL: Str(
    'redis://127.0.0.1:6390',
    "the gateway's Redis: identity raises the auth-cache generations there after a revoke, rotate or role change",
  ),
});
export type IdentityConfig = Settings<typeof IdentitySettings>;

export const loadIdentityConfig = (env: Record<string, string | undefined> = process.env) => loadConfig(IdentitySettings, env);
