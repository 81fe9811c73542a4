import { loadConfig, serviceSettings, Str, Type, type Settings } from '@assay/config';

export const IdentitySettings = Type.Object({
  ...serviceSettings(7206, 9206),
  REDIS_URL: Str(
    'redis://127.0.0.1:6390',
    "the gateway's Redis: identity raises the auth-cache generations there after a revoke, rotate or role change",
  ),
  PUBLIC_UI_URL: Str('http://localhost:8080', 'base of the web app: invitation links point there'),
  SESSION_IDLE_HOURS: Type.Integer({ minimum: 1, maximum: 24 * 30, default: 24, description: 'a web app session unused this long ends' }),
  SESSION_MAX_DAYS: Type.Integer({ minimum: 1, maximum: 365, default: 30, description: 'a web app session ends this long after sign-in' }),
  // Fractions are allowed so that a test can see a sweep in seconds.
  SESSION_RETENTION_DAYS: Type.Number({
    exclusiveMinimum: 0,
    maximum: 3650,
    default: 30,
    description:
      'an ended web app session (signed out, idle or past SESSION_MAX_DAYS) and a used or expired invitation or sign-in link are deleted this many days after they ended',
  }),
  SESSION_SWEEP_INTERVAL_SECONDS: Type.Integer({
    minimum: 1,
    maximum: 86400,
    default: 3600,
    description: 'how often the retention sweeper deletes ended sessions and spent links',
  }),
});
export type IdentityConfig = Settings<typeof IdentitySettings>;

export const loadIdentityConfig = (env: Record<string, string | undefined> = process.env) => loadConfig(IdentitySettings, env);
