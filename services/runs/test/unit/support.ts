/**
 * What the runs handler tests share: the service wired on a schema of its own (its migrations), in-memory clients
 * of RunsService and RunsAdminService through the service's routes, and ingestion through the same code the
 * internal HTTP port runs (normalizer + Ingestion), so every read is tested against data written the real way.
 */
import { Code, ConnectError } from '@connectrpc/connect';
import Fastify, { type FastifyInstance } from 'fastify';
import { fromConnectError, isAppError, toConnectError } from '@assay/errors';
import { RunsAdminService, RunsService } from '@assay/proto/assay/runs/v1/runs_pb';
import { decodePrincipal, formatCallers, PRINCIPAL_HEADER, type Clock, type Principal } from '@assay/service-kit';
import { inMemoryClient, principal, testContext, testSchema, type TestSchema } from '@assay/testkit';
import { loadRunsConfig } from '../../src/config';
import { httpRoutes, routes } from '../../src/routes';
import { MIGRATIONS_DIR } from '../../src/service';
import { wire, type Overrides, type Wiring } from '../../src/wiring';
import { Ingestion } from '../../src/ingest/ingestion';
import { normalizeMetadata } from '../../src/ingest/normalize';
import { readPlaywrightReport, readResultBatch } from '../../src/ingest/stream';

/** The service's internal HTTP routes mounted as the service kit mounts them: the caller principal from its header. */
export async function httpApp(u: RunsUnit): Promise<FastifyInstance> {
  const app = Fastify();
  app.addHook('onRequest', async (request) => {
    request.principal = decodePrincipal(request.headers[PRINCIPAL_HEADER] as string | undefined);
  });
  await app.register(async (scope) => httpRoutes(scope, u.w));
  await app.ready();
  return app;
}

/** A JSON body as the service reads it: bytes, parsed as a stream. */
export const bytes = (body: unknown) => [Buffer.from(JSON.stringify(body))];

export interface RunsUnit {
  db: TestSchema;
  w: Wiring;
  runs: ReturnType<typeof inMemoryClient<typeof RunsService>>;
  admin: ReturnType<typeof inMemoryClient<typeof RunsAdminService>>;
  ingestion: Ingestion;
  /** Moves the service's clock (the database's own `now()` does not move). */
  shift(ms: number): void;
}

/** Settings of the service under test; `env` adds or overrides. */
export const unitConfig = (env: Record<string, string> = {}) =>
  loadRunsConfig({
    INTERNAL_AUTH_TOKEN: 'x'.repeat(32),
    INTERNAL_CALLERS: formatCallers({ gateway: 'g'.repeat(32) }),
    LOG_LEVEL: 'silent',
    PUBLIC_UI_URL: 'https://ui.example.test/',
    ...env,
  });

export async function runsUnit(label: string, env: Record<string, string> = {}, overrides: Overrides = {}): Promise<RunsUnit> {
  const db = await testSchema(MIGRATIONS_DIR, label);
  let offset = 0;
  const clock: Clock = () => new Date(Date.now() + offset);
  const w = wire(testContext('runs', unitConfig(env), db.pool), { clock, ...overrides });
  return {
    db,
    w,
    runs: inMemoryClient(RunsService, (router) => routes(router, w)),
    admin: inMemoryClient(RunsAdminService, (router) => routes(router, w)),
    ingestion: new Ingestion(w),
    shift: (ms) => {
      offset += ms;
    },
  };
}

/** A writer in organization `orgId` (the principal the gateway forwards with an ingestion). */
export const writer = (orgId = 'c'.repeat(24)): Principal => principal('member', { orgId });

/** The reason, code and detail paths a call (over Connect, or of the ingestion directly) failed with; throws when it succeeded. */
export async function failure(call: Promise<unknown>): Promise<{ code: Code; reason: string; paths: string[] }> {
  try {
    await call;
  } catch (err) {
    const ce = isAppError(err) ? toConnectError(err) : ConnectError.from(err);
    const e = fromConnectError(ce);
    return { code: ce.code, reason: e.reason, paths: (e.details ?? []).map((d) => d.path) };
  }
  throw new Error('the call succeeded');
}

/** One attempt of one test, in the streaming API's item shape (Playwright's per-test result). */
export interface Item {
  file?: string;
  titlePath: string[];
  projectName?: string;
  status: string;
  duration?: number;
  retry?: number;
  errors?: unknown[];
  steps?: unknown[];
  attachments?: unknown[];
  annotations?: unknown[];
  tags?: string[];
}

/** Start → one batch of results → finish, as the streaming API does it; answers the finished run. */
export async function streamRun(
  u: RunsUnit,
  projectId: string,
  items: Item[],
  opts: { branch?: string; environment?: string; startTime?: Date; finish?: boolean; totalTests?: number; caller?: Principal } = {},
) {
  const caller = opts.caller ?? writer();
  const started = await u.ingestion.start(projectId, caller, {
    metadata: normalizeMetadata({
      git: { branch: opts.branch ?? 'main', commit: { hash: 'abc123', message: 'Fix', author: 'Ada' } },
      environment: opts.environment,
    }),
    totalTests: opts.totalTests,
    startTime: opts.startTime,
  });
  if (items.length > 0)
    await u.ingestion.results(
      projectId,
      started.runId,
      readResultBatch(bytes({ results: items.map((i) => ({ file: 'a.spec.ts', ...i })) })),
    );
  if (opts.finish === false) return { ...started, finished: undefined };
  const finished = await u.ingestion.finish(projectId, started.runId, {});
  return { ...started, finished };
}

/** A Playwright JSON report (one-shot ingestion), `suites` as the reporter writes them. */
export async function playwrightRun(u: RunsUnit, projectId: string, suites: unknown[], extra: Record<string, unknown> = {}) {
  return u.ingestion.oneShot(projectId, writer(), 'playwright', readPlaywrightReport(bytes({ suites, ...extra })));
}
