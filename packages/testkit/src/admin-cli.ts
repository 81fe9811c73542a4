/**
 * The admin CLI (`npm run admin -- …`) as an operator runs it, against a test system: the built
 * packages/admin-cli, given the system's addresses and internal token, never the laptop's `.data/local.env`.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import type { TestSystemInfo } from './context';
import { REPO_ROOT } from './paths';

export const ADMIN_CLI = path.join(REPO_ROOT, 'packages', 'admin-cli', 'dist', 'main.js');

/** What the shared test system and a private one (`RunningSystem`) both have. */
export type AdminCliTarget = Pick<TestSystemInfo, 'adminUrl' | 'internalToken' | 'ports'>;

export interface AdminCliOutcome<T = any> {
  /** The exit code: 0, or what the CLI exited with. */
  code: number;
  /** The JSON it printed: on stdout after a success, on stderr after a failure (undefined when it printed none). */
  json: T;
  stdout: string;
  stderr: string;
}

/** The CLI's environment for `s`: every address it may need (`packages/admin-cli/src/env.ts`), then `extra`. */
export function adminCliEnv(s: AdminCliTarget, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const rpc = (name: string) => `http://127.0.0.1:${s.ports.services[name]!.rpcPort}`;
  return {
    PATH: process.env.PATH,
    ASSAY_ADMIN_URL: s.adminUrl,
    RUNS_URL: rpc('runs'),
    ANALYTICS_URL: rpc('analytics'),
    INTERNAL_AUTH_TOKEN: s.internalToken,
    ASSAY_DATA_DIR: '/nonexistent',
    ...extra,
  };
}

const jsonOf = (text: string) => (/^\s*[[{]/.test(text) ? JSON.parse(text) : undefined);

/** Runs `args` through the CLI against `s`; a failure (a non-zero exit) is an outcome too, not a throw. */
export async function adminCli(s: AdminCliTarget, args: string[], extra?: Record<string, string>): Promise<AdminCliOutcome> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [ADMIN_CLI, ...args], { env: adminCliEnv(s, extra) });
    return { code: 0, json: jsonOf(stdout), stdout, stderr };
  } catch (err) {
    const e = err as { code?: unknown; stdout?: string; stderr?: string };
    // Not an exit (the CLI was not found, say): the test should see that as it is.
    if (typeof e.code !== 'number') throw err;
    return { code: e.code, json: jsonOf(e.stderr ?? ''), stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}
