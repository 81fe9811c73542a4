/**
 * Where the CLI finds the system: environment variables, else the `.data/local.env` that `make up` writes
 * (addresses and the internal token of the local system).
 */
import fs from 'node:fs';
import path from 'node:path';

export interface CliEnv {
  adminUrl: string;
  runsUrl: string;
  analyticsUrl: string;
  internalToken: string;
}

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
  const pick = (key: string, fallback: string) => env[key] ?? file[key] ?? fallback;
  return {
    adminUrl: pick('ASSAY_ADMIN_URL', 'http://127.0.0.1:7206'),
    runsUrl: pick('RUNS_URL', 'http://127.0.0.1:7202'),
    analyticsUrl: pick('ANALYTICS_URL', 'http://127.0.0.1:7203'),
    internalToken: pick('INTERNAL_AUTH_TOKEN', ''),
  };
}
