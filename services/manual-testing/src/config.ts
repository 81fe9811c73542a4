import { loadConfig, serviceSettings, Str, Type, type Settings } from '@assay/config';

export const ManualTestingSettings = Type.Object({
  ...serviceSettings(7201, 9201),
  IDENTITY_URL: Str('http://127.0.0.1:7206', 'identity RPC (organization members)'),
});
export type ManualTestingConfig = Settings<typeof ManualTestingSettings>;

export const loadManualTestingConfig = (env = process.env) => loadConfig(ManualTestingSettings, env);
