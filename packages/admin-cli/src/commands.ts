/**
 * The one table of the admin CLI: each command with its summary, its flags (value or switch, description,
 * required or not) and its run function. The parser (main.ts) and every help text (help.ts) are read from it.
 */
import { createRpcClient } from '@assay/service-kit';
import { AdminService, TokenType } from '@assay/proto/assay/identity/v1/identity_pb';
import { RunsAdminService } from '@assay/proto/assay/runs/v1/runs_pb';
import { AnalyticsAdminService } from '@assay/proto/assay/analytics/v1/analytics_pb';
import { role as roles } from '@assay/contracts/identity/app';
import { ruleOperation, ruleToJson } from '@assay/contracts/runs/workflow-rules';
import { oneOf, RULE_OPERATIONS } from '@assay/contracts/runs/values';
import { iso } from '@assay/contracts/common/json';
import { timestampDate, timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { CliEnv } from './env';

/** A mistake in the command line itself: exit code 2, nothing was sent. */
export class UsageError extends Error {}

/** Flag values by flag name (a switch that is given reads 'true'). */
export type Flags = Record<string, string | undefined>;

export interface Flag {
  name: string;
  /** What the value is, in the help (`--org ID`); absent for a switch (`--all`). */
  value?: string;
  description: string;
  /** The parser refuses the command without it. */
  required?: boolean;
}

export interface Command {
  /** One line for `assay --help`. */
  summary: string;
  flags: Flag[];
  /** What it prints, for `assay <command> --help`. */
  prints: string;
  run: (f: Flags, env: CliEnv) => Promise<unknown>;
}

const EXPIRY_DAYS = [30, 60, 90, 180];
/** A page of a list command: 50 rows unless --limit says otherwise, never more than 200. */
export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 200;

/** A flag's value; the parser has already refused a command without a required flag. */
function required(f: Flags, name: string): string {
  const v = f[name];
  if (v === undefined || v === '') throw new UsageError(`--${name} is required`);
  return v;
}

function role(f: Flags) {
  const r = required(f, 'role');
  const value = roles.toProto(r as (typeof roles.names)[number]);
  if (!value) throw new UsageError(`--role must be one of ${roles.names.join(', ')} (got "${r}")`);
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

const PAGE_FLAGS: Flag[] = [
  { name: 'limit', value: 'N', description: `rows of the page, 1 to ${MAX_LIMIT} (default ${DEFAULT_LIMIT})` },
  { name: 'cursor', value: 'CURSOR', description: 'the nextCursor of the previous page' },
];
const pagePrints = (item: string) => `{"items": [${item}, …], "nextCursor"}: newest first; nextCursor is null on the last page`;

/** The page a list command asks for. */
function page(f: Flags): { pageSize: number; pageToken: string } {
  let pageSize = DEFAULT_LIMIT;
  if (f.limit !== undefined) {
    pageSize = Number(f.limit);
    if (!/^\d+$/.test(f.limit) || pageSize < 1 || pageSize > MAX_LIMIT)
      throw new UsageError(`--limit must be an integer from 1 to ${MAX_LIMIT} (got "${f.limit}")`);
  }
  if (f.cursor === '') throw new UsageError('--cursor needs a value');
  return { pageSize, pageToken: f.cursor ?? '' };
}

const pageJson = <T>(items: T[], nextPageToken: string) => ({ items, nextCursor: nextPageToken || null });

const tokenPrints = '{"id", "token"}; the secret is shown this once';

export const commands: Record<string, Command> = {
  'org:create': {
    summary: 'Create an organization',
    flags: [{ name: 'name', value: 'NAME', description: 'its name', required: true }],
    prints: '{"id"}',
    run: async (f, env) => ({ id: (await admin(env).createOrg({ name: required(f, 'name') })).id }),
  },
  organizations: {
    summary: 'List the organizations',
    flags: PAGE_FLAGS,
    prints: pagePrints('{"id", "name", "createdAt"}'),
    run: async (f, env) => {
      const res = await admin(env).listOrganizations(page(f));
      return pageJson(
        res.organizations.map((o) => ({ id: o.id, name: o.name, createdAt: iso(o.createdAt) })),
        res.nextPageToken,
      );
    },
  },
  'user:create': {
    summary: 'Create a user (an e-mail that exists answers its user)',
    flags: [
      { name: 'email', value: 'EMAIL', description: 'the e-mail address (stored lower-cased)', required: true },
      { name: 'name', value: 'NAME', description: 'the display name', required: true },
    ],
    prints: '{"id"}',
    run: async (f, env) => ({ id: (await admin(env).createUser({ email: required(f, 'email'), name: required(f, 'name') })).id }),
  },
  users: {
    summary: 'List the users',
    flags: PAGE_FLAGS,
    prints: pagePrints('{"id", "email", "name", "createdAt"}'),
    run: async (f, env) => {
      const res = await admin(env).listUsers(page(f));
      return pageJson(
        res.users.map((u) => ({ id: u.id, email: u.email, name: u.name, createdAt: iso(u.createdAt) })),
        res.nextPageToken,
      );
    },
  },
  'user:invite': {
    summary: 'A one-time link (7 days) where the user chooses a password and is signed in',
    flags: [{ name: 'user', value: 'ID', description: 'the user', required: true }],
    prints: '{"url", "expiresAt"}',
    run: async (f, env) => {
      const res = await admin(env).createInvitation({ userId: required(f, 'user') });
      return { url: res.url, expiresAt: res.expiresAt ? timestampDate(res.expiresAt).toISOString() : null };
    },
  },
  'user:sign-in-link': {
    summary: 'A one-time link (24 hours) that signs the user in directly: for demos and recovery',
    flags: [{ name: 'user', value: 'ID', description: 'the user', required: true }],
    prints: '{"url", "expiresAt"}',
    run: async (f, env) => {
      const res = await admin(env).createSignInLink({ userId: required(f, 'user') });
      return { url: res.url, expiresAt: res.expiresAt ? timestampDate(res.expiresAt).toISOString() : null };
    },
  },
  'member:add': {
    summary: "Make a user a member of an organization (or change a member's role)",
    flags: [
      { name: 'org', value: 'ID', description: 'the organization', required: true },
      { name: 'user', value: 'ID', description: 'the user', required: true },
      { name: 'role', value: 'ROLE', description: roles.names.join(', '), required: true },
    ],
    prints: '{"ok": true}',
    run: async (f, env) => {
      await admin(env).addMember({ orgId: required(f, 'org'), userId: required(f, 'user'), role: role(f) });
      return { ok: true };
    },
  },
  'member:set-role': {
    summary: "Change a member's role",
    flags: [
      { name: 'org', value: 'ID', description: 'the organization', required: true },
      { name: 'user', value: 'ID', description: 'the member', required: true },
      { name: 'role', value: 'ROLE', description: roles.names.join(', '), required: true },
    ],
    prints: '{"ok": true}',
    run: async (f, env) => {
      await admin(env).setMemberRole({ orgId: required(f, 'org'), userId: required(f, 'user'), role: role(f) });
      return { ok: true };
    },
  },
  members: {
    summary: 'List the members of an organization',
    flags: [{ name: 'org', value: 'ID', description: 'the organization', required: true }, ...PAGE_FLAGS],
    prints: pagePrints('{"userId", "email", "name", "role", "joinedAt"}'),
    run: async (f, env) => {
      const res = await admin(env).listMembers({ orgId: required(f, 'org'), ...page(f) });
      return pageJson(
        res.members.map((m) => ({
          userId: m.userId,
          email: m.email,
          name: m.name,
          role: roles.fromProto(m.role),
          joinedAt: iso(m.joinedAt),
        })),
        res.nextPageToken,
      );
    },
  },
  'project:create': {
    summary: 'Create a project in an organization',
    flags: [
      { name: 'org', value: 'ID', description: 'the organization', required: true },
      { name: 'name', value: 'NAME', description: 'its name', required: true },
    ],
    prints: '{"id"}',
    run: async (f, env) => ({ id: (await admin(env).createProject({ orgId: required(f, 'org'), name: required(f, 'name') })).id }),
  },
  projects: {
    summary: 'List the projects, of one organization or of all',
    flags: [{ name: 'org', value: 'ID', description: 'only the projects of this organization' }, ...PAGE_FLAGS],
    prints: pagePrints('{"id", "orgId", "name", "createdAt"}'),
    run: async (f, env) => {
      const res = await admin(env).listProjects({ orgId: f.org ?? '', ...page(f) });
      return pageJson(
        res.projects.map((p) => ({ id: p.id, orgId: p.orgId, name: p.name, createdAt: iso(p.createdAt) })),
        res.nextPageToken,
      );
    },
  },
  'project:artifacts': {
    summary: "A project's artifact storage: retention and what it stores now",
    flags: [{ name: 'project', value: 'ID', description: 'the project', required: true }],
    prints: '{"projectId", "retentionDays", "bytes", "count"}',
    run: async (f, env) => storageJson((await runsAdmin(env).getArtifactStorage({ projectId: required(f, 'project') })).storage),
  },
  'project:set-artifact-retention': {
    summary: "Set a project's artifact retention; what it stores already expires accordingly",
    flags: [
      { name: 'project', value: 'ID', description: 'the project', required: true },
      { name: 'days', value: 'N', description: 'retention in days, 1 to 3650', required: true },
    ],
    prints: '{"projectId", "retentionDays", "bytes", "count"}, after the change',
    run: async (f, env) => {
      const days = Number(required(f, 'days'));
      if (!Number.isInteger(days) || days < 1 || days > 3650) throw new UsageError('--days must be an integer from 1 to 3650');
      return storageJson((await runsAdmin(env).setArtifactRetention({ projectId: required(f, 'project'), days })).storage);
    },
  },
  'run:delete': {
    summary: "Delete a run with its results; its artifacts expire at once; the project's analytics are refolded without it",
    flags: [
      { name: 'project', value: 'ID', description: 'the project', required: true },
      { name: 'run', value: 'ID', description: 'the run', required: true },
    ],
    prints: '{"runId", "results", "artifacts", "analytics": {"runs", "results", "durationMs"}}',
    run: async (f, env) => {
      const projectId = required(f, 'project');
      const res = await runsAdmin(env).deleteRun({ projectId, runId: required(f, 'run') });
      // The analytics read model folded the run's results into its figures: refold the project without it.
      const folded = await analyticsAdmin(env).rebuild({ projectId, all: false });
      return {
        runId: res.runId,
        results: Number(res.results),
        artifacts: Number(res.artifacts),
        analytics: { runs: Number(folded.runs), results: Number(folded.results), durationMs: Number(folded.durationMs) },
      };
    },
  },
  'token:create': {
    summary: "Create a user's personal access token, or a project's api key",
    flags: [
      { name: 'user', value: 'ID', description: 'the user of a personal access token (give --user or --project)' },
      { name: 'project', value: 'ID', description: 'the project of an api key (give --user or --project)' },
      { name: 'name', value: 'NAME', description: 'what the token is for' },
      {
        name: 'projects',
        value: 'IDS',
        description: "projects a user's token covers, comma-separated; '*' (default): every project of the user's organizations",
      },
      { name: 'expires-days', value: 'N', description: `expires after ${EXPIRY_DAYS.join(', ')} days (default: never)` },
      { name: 'expires-in-seconds', value: 'N', description: 'expires after N seconds (for tests)' },
    ],
    prints: `${tokenPrints}; an api key also {"uploadKey"}: the same secret in the upload spelling`,
    run: async (f, env) => {
      if ((f.user === undefined) === (f.project === undefined)) throw new UsageError('give exactly one of --user or --project');
      if (f.project !== undefined && f.projects !== undefined) throw new UsageError('--projects applies to user tokens only');
      const res = await admin(env).createToken({
        userId: f.user ?? '',
        projectId: f.project ?? '',
        name: f.name ?? '',
        projectIds: list(f.projects ?? '*'),
        expiresInSeconds: expiresInSeconds(f),
      });
      return res.uploadKey ? { id: res.id, token: res.token, uploadKey: res.uploadKey } : { id: res.id, token: res.token };
    },
  },
  tokens: {
    summary: "List a user's personal access tokens or a project's api keys (never a secret)",
    flags: [
      { name: 'user', value: 'ID', description: "the user's personal access tokens (give --user or --project)" },
      { name: 'project', value: 'ID', description: "the project's api keys (give --user or --project)" },
      ...PAGE_FLAGS,
    ],
    prints: pagePrints(
      '{"id", "type": "pat" | "api_key", "name", "userId", "projectId", "allProjects", "projectIds", "createdAt", "expiresAt", "lastUsedAt", "revoked"}',
    ),
    run: async (f, env) => {
      if ((f.user === undefined) === (f.project === undefined)) throw new UsageError('give exactly one of --user or --project');
      const res = await admin(env).listTokens({ userId: f.user ?? '', projectId: f.project ?? '', ...page(f) });
      return pageJson(
        res.tokens.map((t) => ({
          id: t.id,
          type: t.type === TokenType.API_KEY ? 'api_key' : 'pat',
          name: t.name,
          userId: t.userId || null,
          projectId: t.projectId || null,
          allProjects: t.allProjects,
          projectIds: t.projectIds,
          createdAt: iso(t.createdAt),
          expiresAt: iso(t.expiresAt),
          lastUsedAt: iso(t.lastUsedAt),
          revoked: t.revoked,
        })),
        res.nextPageToken,
      );
    },
  },
  'token:rotate': {
    summary: 'Give a token a new secret; the old one answers 401 TOKEN_REVOKED',
    flags: [{ name: 'id', value: 'ID', description: 'the token', required: true }],
    prints: `${tokenPrints}; an api key also {"uploadKey"}`,
    run: async (f, env) => {
      const res = await admin(env).rotateToken({ id: required(f, 'id') });
      return res.uploadKey ? { id: res.id, token: res.token, uploadKey: res.uploadKey } : { id: res.id, token: res.token };
    },
  },
  'token:revoke': {
    summary: 'Revoke a token',
    flags: [{ name: 'id', value: 'ID', description: 'the token', required: true }],
    prints: '{"ok": true}',
    run: async (f, env) => {
      await admin(env).revokeToken({ id: required(f, 'id') });
      return { ok: true };
    },
  },
  'rule:create': {
    summary: "Create an action rule on a project's tests (quarantine, skip, tag)",
    flags: [
      { name: 'project', value: 'ID', description: 'the project', required: true },
      { name: 'name', value: 'NAME', description: 'its name', required: true },
      { name: 'operations', value: 'OPS', description: `comma-separated: ${RULE_OPERATIONS.join(', ')}`, required: true },
      { name: 'description', value: 'TEXT', description: 'why the rule exists' },
      {
        name: 'title-pattern',
        value: 'RE2',
        description: 'case-insensitive regular expression on the full title (describe › test), at most 500 characters',
      },
      { name: 'file', value: 'PATH', description: 'the test file, or a path suffix of it' },
      { name: 'match-tag', value: 'TAG', description: "one of the test's tags" },
      { name: 'tag', value: 'TAG', description: 'the tag the tag operation adds (without that operation: the tag to match)' },
      { name: 'expires-at', value: 'DATE', description: 'when the rule stops applying (e.g. 2026-12-31T00:00:00Z)' },
    ],
    prints: '{"id"}',
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
    summary: 'Disable an action rule',
    flags: [
      { name: 'id', value: 'ID', description: 'the rule', required: true },
      { name: 'project', value: 'ID', description: 'refuse unless the rule belongs to this project' },
    ],
    prints: '{"ok": true}',
    run: async (f, env) => {
      await runsAdmin(env).disableRule({ id: required(f, 'id'), projectId: f.project ?? '' });
      return { ok: true };
    },
  },
  rules: {
    summary: 'List the action rules of a project, with their status (active, expired, disabled)',
    flags: [{ name: 'project', value: 'ID', description: 'the project (an unknown project has no rules)', required: true }, ...PAGE_FLAGS],
    prints: pagePrints(
      '{"id", "name", "description", "operations", "match", "tag"?, "enabled", "expiresAt", "createdBy", "createdAt", "updatedAt", "status"}',
    ),
    run: async (f, env) => {
      const res = await runsAdmin(env).listRules({ projectId: required(f, 'project'), ...page(f) });
      return pageJson(res.rules.map(ruleToJson), res.nextPageToken);
    },
  },
  'plan:set': {
    summary: "Set an organization's plan and its monthly quota of test results",
    flags: [
      { name: 'org', value: 'ID', description: 'the organization', required: true },
      { name: 'plan', value: 'NAME', description: "the plan's name", required: true },
      { name: 'test-results-per-month', value: 'N', description: 'the quota (test results per calendar month, UTC)', required: true },
    ],
    prints: '{"ok": true}',
    run: async (f, env) => {
      const n = Number(required(f, 'test-results-per-month'));
      if (!Number.isInteger(n) || n < 0) throw new UsageError('--test-results-per-month must be a non-negative integer');
      await runsAdmin(env).setPlan({ orgId: required(f, 'org'), planName: required(f, 'plan'), testResultsPerMonth: BigInt(n) });
      return { ok: true };
    },
  },
  'analytics:rebuild': {
    summary: 'Drop and refold the analytics read model of a project (or of all); answers when done',
    flags: [
      { name: 'project', value: 'ID', description: 'the project (give --project or --all)' },
      { name: 'all', description: 'every project (give --project or --all)' },
    ],
    prints: '{"projects", "runs", "results", "durationMs"}',
    run: async (f, env) => {
      const all = f.all !== undefined;
      if (all === (f.project !== undefined)) throw new UsageError('give exactly one of --project or --all');
      const res = await analyticsAdmin(env).rebuild({ projectId: f.project ?? '', all });
      return { projects: Number(res.projects), runs: Number(res.runs), results: Number(res.results), durationMs: Number(res.durationMs) };
    },
  },
};
