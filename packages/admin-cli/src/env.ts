/**
 * Where the CLI finds the system: environment variables, else the `.data/local.env` that `make up` writes
 * (addresses and the internal token of the local system). One table, read by cliEnv and by the help.
 */
import fs from 'node:fs';
import path from 'node:path';

export interface CliEnv {
  adminUrl: string;
  runsUrl: string;
  analyticsUrl: string;
  internalToken: string;
}

export const ENV_VARS: { name: string; field: keyof CliEnv; fallback: string; description: string }[] = [
  { name: 'ASSAY_ADMIN_URL', field: 'adminUrl', fallback: 'http://127.0.0.1:7206', description: "the identity service's RPC address" },
  {
    name: 'RUNS_URL',
    field: 'runsUrl',
    fallback: 'http://127.0.0.1:7202',
    description: "the runs service's RPC address (rule:*, rules, plan:set, project:*artifact*, run:delete)",
  },
  {
    name: 'ANALYTICS_URL',
    field: 'analyticsUrl',
    fallback: 'http://127.0.0.1:7203',
    description: "the analytics service's RPC address (analytics:rebuild, run:delete)",
  },
  {
    name: 'INTERNAL_AUTH_TOKEN',
    field: 'internalToken',
    fallback: '',
    description: 'the admin credential, the only one the admin RPCs accept (required)',
  },
];

function readEnvFile(file: string): Record<string, string> {
  if (!fs.existsSync(file)) return {};
  const out: Record<string, string> = {};
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    const m = /^\s*([A-Z0-9_]+)=(.*)$/.exec(line);
    if (m) out[m[1]!] = m[2]!.replace(/^"(.*)"$/, '$1');
  }
  return out;
}

export function cliEnv(env: NodeJS.ProcessEnv = process.env): CliEnv {
  const dataDir = env.ASSAY_DATA_DIR ?? path.resolve(__dirname, '..', '..', '..', '.data');
  const file = readEnvFile(path.join(dataDir, 'local.env'));
  const out = { adminUrl: '', runsUrl: '', analyticsUrl: '', internalToken: '' };
  for (const v of ENV_VARS) out[v.field] = env[v.name] ?? file[v.name] ?? v.fallback;
  return out;
}
