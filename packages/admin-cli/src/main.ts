#!/usr/bin/env node
/**
 * `npm run admin -- <command> [--flags]`: prints one JSON object on stdout; on failure prints
 * `{"error": {"code", "message"}}` and exits non-zero.
 */
import { parseArgs } from 'node:util';
import { fromConnectError } from '@assay/errors';
import { createRpcClient } from '@assay/service-kit';
import { AdminService, Role } from '@assay/proto/assay/identity/v1/identity_pb';
import { RunsAdminService } from '@assay/proto/assay/runs/v1/runs_pb';
import { ruleOperation } from '@assay/contracts/runs/workflow-rules';
import { oneOf, RULE_OPERATIONS } from '@assay/contracts/runs/values';
import { AnalyticsAdminService } from '@assay/proto/assay/analytics/v1/analytics_pb';
import { timestampDate, timestampFromDate } from '@bufbuild/protobuf/wkt';
import { cliEnv, type CliEnv } from './env';

class UsageError extends Error {}

type Flags = Record<string, string | undefined>;
type Command = { flags: string[]; switches?: string[]; run: (f: Flags, env: CliEnv) => Promise<unknown> };

const ROLES: Record<string, Role> = { owner: Role.OWNER, admin: Role.ADMIN, member: Role.MEMBER, viewer: Role.VIEWER };
const EXPIRY_DAYS = [30, 60, 90, 180];

function required(f: Flags, name: string): string {
  const v = f[name];
  if (v === undefined || v === '') throw new UsageError(`--${name} is required`);
  return v;
}

function role(f: Flags): Role {
  const r = required(f, 'role');
  const value = ROLES[r];
  if (value === undefined) throw new UsageError(`--role must be one of ${Object.keys(ROLES).join(', ')} (got "${r}")`);
  return value;
}

function expiresInSeconds(f: Flags): bigint {
  if (f['expires-days'] !== undefined && f['expires-in-seconds'] !== undefined)
    throw new UsageError('give --expires-days or --expires-in-seconds, not both');
  if (f['expires-days'] !== undefined) {
    const days = Number(f['expires-days']);
    if (!EXPIRY_DAYS.includes(days)) throw new UsageError(`--expires-days must be one of ${EXPIRY_DAYS.join(', ')}`);
    return BigInt(days * 86400);
  }
  if (f['expires-in-seconds'] !== undefined) {
    const s = Number(f['expires-in-seconds']);
    if (!Number.isInteger(s) || s < 1) throw new UsageError('--expires-in-seconds must be a positive integer');
    return BigInt(s);
  }
  return 0n;
}

const admin = (env: CliEnv) => createRpcClient(AdminService, { baseUrl: env.adminUrl, internalToken: env.internalToken, timeoutMs: 15000 });

const runsAdmin = (env: CliEnv) =>
  createRpcClient(RunsAdminService, { baseUrl: env.runsUrl, internalToken: env.internalToken, timeoutMs: 15000 });

// A rebuild answers when it is done: minutes for a big project.
const analyticsAdmin = (env: CliEnv) =>
  createRpcClient(AnalyticsAdminService, { baseUrl: env.analyticsUrl, internalToken: env.internalToken, timeoutMs: 6 * 3600 * 1000 });

/** A project's artifact storage as the CLI prints it. */
const storageJson = (r: { projectId: string; retentionDays: number; bytes: bigint; count: bigint } | undefined) => ({
  projectId: r?.projectId ?? '',
  retentionDays: r?.retentionDays ?? 0,
  bytes: Number(r?.bytes ?? 0),
  count: Number(r?.count ?? 0),
});

function list(v: string | undefined): string[] {
  return (v ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
}

export const commands: Record<string, Command> = {
  'analytics:rebuild': {
    flags: ['project'],
    switches: ['all'],
    run: async (f, env) => {
      const all = f.all !== undefined;
      if (all === (f.project !== undefined)) throw new UsageError('give exactly one of --project or --all');
      const res = await analyticsAdmin(env).rebuild({ projectId: f.project ?? '', all });
      return { projects: Number(res.projects), runs: Number(res.runs), results: Number(res.results), durationMs: Number(res.durationMs) };
    },
  },
  'rule:create': {
    flags: ['project', 'name', 'description', 'operations', 'title-pattern', 'file', 'tag', 'match-tag', 'expires-at'],
    run: async (f, env) => {
      const given = list(required(f, 'operations'));
      const bad = given.find((o) => !oneOf(RULE_OPERATIONS, o));
      if (bad !== undefined) throw new UsageError(`--operations takes ${RULE_OPERATIONS.join(', ')} (got "${bad}")`);
      const operations = given.filter((o) => oneOf(RULE_OPERATIONS, o));
      // --tag is the tag the `tag` operation adds; without that operation it is the tag to match.
      const addsTag = operations.includes('tag');
      let expiresAt: Date | undefined;
      if (f['expires-at'] !== undefined) {
        expiresAt = new Date(f['expires-at']);
        if (Number.isNaN(expiresAt.getTime())) throw new UsageError('--expires-at must be a date-time (e.g. 2026-12-31T00:00:00Z)');
      }
      const res = await runsAdmin(env).createRule({
        projectId: required(f, 'project'),
        name: required(f, 'name'),
        description: f.description ?? '',
        operations: operations.map(ruleOperation.toProto),
        titlePattern: f['title-pattern'] ?? '',
        file: f.file ?? '',
        matchTag: f['match-tag'] ?? (addsTag ? '' : (f.tag ?? '')),
        tag: addsTag ? (f.tag ?? '') : '',
        expiresAt: expiresAt ? timestampFromDate(expiresAt) : undefined,
        createdBy: 'admin-cli',
      });
      return { id: res.id };
    },
  },
  'rule:disable': {
    flags: ['id', 'project'],
    run: async (f, env) => {
      await runsAdmin(env).disableRule({ id: required(f, 'id'), projectId: f.project ?? '' });
      return { ok: true };
    },
  },
  'plan:set': {
    flags: ['org', 'plan', 'test-results-per-month'],
    run: async (f, env) => {
      const n = Number(required(f, 'test-results-per-month'));
      if (!Number.isInteger(n) || n < 0) throw new UsageError('--test-results-per-month must be a non-negative integer');
      await runsAdmin(env).setPlan({ orgId: required(f, 'org'), planName: required(f, 'plan'), testResultsPerMonth: BigInt(n) });
      return { ok: true };
    },
  },
  'project:artifacts': {
    flags: ['project'],
    run: async (f, env) => storageJson((await runsAdmin(env).getArtifactStorage({ projectId: required(f, 'project') })).storage),
  },
  'project:set-artifact-retention': {
    flags: ['project', 'days'],
    run: async (f, env) => {
      const days = Number(required(f, 'days'));
      if (!Number.isInteger(days) || days < 1 || days > 3650) throw new UsageError('--days must be an integer from 1 to 3650');
      return storageJson((await runsAdmin(env).setArtifactRetention({ projectId: required(f, 'project'), days })).storage);
    },
  },

  'org:create': { flags: ['name'], run: async (f, env) => ({ id: (await admin(env).createOrg({ name: required(f, 'name') })).id }) },
  'user:create': {
    flags: ['email', 'name'],
    run: async (f, env) => ({ id: (await admin(env).createUser({ email: required(f, 'email'), name: required(f, 'name') })).id }),
  },
  // A one-time link (valid 7 days) where the user chooses a password and is signed in.
  'user:invite': {
    flags: ['user'],
    run: async (f, env) => {
      const res = await admin(env).createInvitation({ userId: required(f, 'user') });
      return { url: res.url, expiresAt: res.expiresAt ? timestampDate(res.expiresAt).toISOString() : null };
    },
  },
  // A one-time link (valid 24 hours) that signs the user in directly: for demos and recovery.
  'user:sign-in-link': {
    flags: ['user'],
    run: async (f, env) => {
      const res = await admin(env).createSignInLink({ userId: required(f, 'user') });
      return { url: res.url, expiresAt: res.expiresAt ? timestampDate(res.expiresAt).toISOString() : null };
    },
  },
  'member:add': {
    flags: ['org', 'user', 'role'],
    run: async (f, env) => {
      await admin(env).addMember({ orgId: required(f, 'org'), userId: required(f, 'user'), role: role(f) });
      return { ok: true };
    },
  },
  'member:set-role': {
    flags: ['org', 'user', 'role'],
    run: async (f, env) => {
      await admin(env).setMemberRole({ orgId: required(f, 'org'), userId: required(f, 'user'), role: role(f) });
      return { ok: true };
    },
  },
  'project:create': {
    flags: ['org', 'name'],
    run: async (f, env) => ({ id: (await admin(env).createProject({ orgId: required(f, 'org'), name: required(f, 'name') })).id }),
  },
  'token:create': {
    flags: ['user', 'project', 'name', 'projects', 'expires-days', 'expires-in-seconds'],
    run: async (f, env) => {
      if ((f.user === undefined) === (f.project === undefined)) throw new UsageError('give exactly one of --user or --project');
      if (f.project !== undefined && f.projects !== undefined) throw new UsageError('--projects applies to user tokens only');
      const res = await admin(env).createToken({
        userId: f.user ?? '',
        projectId: f.project ?? '',
        name: f.name ?? '',
        projectIds: (f.projects ?? '*')
          .split(',')
          .map((p) => p.trim())
          .filter(Boolean),
        expiresInSeconds: expiresInSeconds(f),
      });
      return res.uploadKey ? { id: res.id, token: res.token, uploadKey: res.uploadKey } : { id: res.id, token: res.token };
    },
  },
  'token:revoke': {
    flags: ['id'],
    run: async (f, env) => {
      await admin(env).revokeToken({ id: required(f, 'id') });
      return { ok: true };
    },
  },
  'token:rotate': {
    flags: ['id'],
    run: async (f, env) => {
      const res = await admin(env).rotateToken({ id: required(f, 'id') });
      return res.uploadKey ? { id: res.id, token: res.token, uploadKey: res.uploadKey } : { id: res.id, token: res.token };
    },
  },
};

function fail(code: string, message: string): never {
  const out = JSON.stringify({ error: { code, message } });
  process.stdout.write(`${out}\n`);
  process.stderr.write(`${out}\n`);
  process.exit(code === 'USAGE' ? 2 : 1);
}

async function main(argv: string[]): Promise<void> {
  const [name, ...rest] = argv;
  const command = name ? commands[name] : undefined;
  if (!command) fail('USAGE', `unknown command "${name ?? ''}"; commands: ${Object.keys(commands).join(', ')}`);
  let flags: Flags;
  try {
    flags = parseArgs({
      args: rest,
      options: Object.fromEntries([
        ...command.flags.map((f) => [f, { type: 'string' as const }]),
        ...(command.switches ?? []).map((f) => [f, { type: 'boolean' as const }]),
      ]),
      strict: true,
      allowPositionals: false,
    }).values as Flags;
    for (const [k, v] of Object.entries(flags)) if (v === (true as unknown)) flags[k] = 'true';
  } catch (err) {
    fail('USAGE', (err as Error).message);
  }
  const env = cliEnv();
  if (!env.internalToken) fail('USAGE', 'INTERNAL_AUTH_TOKEN is not set (run `make up`, or export it)');
  try {
    const result = await command.run(flags, env);
    process.stdout.write(`${JSON.stringify(result)}\n`);
  } catch (err) {
    if (err instanceof UsageError) fail('USAGE', err.message);
    const appErr = fromConnectError(err);
    fail(
      appErr.reason,
      appErr.reason === 'SERVICE_UNAVAILABLE' ? `cannot reach the system at ${env.adminUrl}: is it running?` : appErr.message,
    );
  }
}

void main(process.argv.slice(2));
