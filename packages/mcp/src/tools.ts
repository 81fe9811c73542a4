/**
 * The tools, each one API call (or a few) through @assay/client, so an agent can do what a person does in the
 * app: read runs and their failures, debug a failed test, follow a test's history, find flaky, failing and slow
 * tests, read analytics and the action rules, work on manual testing (suites, cases, releases, sessions, manual
 * runs and verdicts) and generate a PDF report. Authorization is the API's: a write a viewer may not make answers
 * the API's 403 FORBIDDEN, which comes back as a tool error carrying that code.
 */
import { z } from 'zod';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { paths } from '@assay/client';
import {
  call,
  days,
  failure,
  limit,
  linkedIssues,
  nextPageHint,
  ok,
  page,
  projectId,
  projectOf,
  ToolError,
  type ToolContext,
} from './kit.ts';

type Shape = z.ZodRawShape;
type Args<S extends Shape> = z.infer<z.ZodObject<S>>;

interface ToolSpec<S extends Shape> {
  title: string;
  description: string;
  input: S;
  /** Reads change nothing; writes create or update (never delete). */
  kind: 'read' | 'write';
  run(args: Args<S>, ctx: ToolContext): Promise<CallToolResult>;
}

/** Every tool, by name (the names are the MCP tool names). */
export const TOOLS: Record<string, ToolSpec<Shape>> = {};

function tool<S extends Shape>(name: string, spec: ToolSpec<S>): void {
  TOOLS[name] = spec as unknown as ToolSpec<Shape>;
}

export function registerTools(server: McpServer, ctx: ToolContext): void {
  for (const [name, spec] of Object.entries(TOOLS)) {
    const annotations: ToolAnnotations = {
      title: spec.title,
      readOnlyHint: spec.kind === 'read',
      destructiveHint: false,
      idempotentHint: spec.kind === 'read',
      openWorldHint: false,
    };
    server.registerTool(name, { title: spec.title, description: spec.description, inputSchema: spec.input, annotations }, (async (
      args: Args<Shape>,
    ) => {
      try {
        return await spec.run(args, ctx);
      } catch (err) {
        return failure(err);
      }
    }) as never);
  }
}

const P = '/api/v1/public/{projectId}';
type ProjectPath = Extract<keyof paths, `${typeof P}${string}`>;

/** GET/POST/PATCH of a project path with the tool's projectId (or the default project). */
async function projectCall(
  ctx: ToolContext,
  method: 'GET' | 'POST' | 'PATCH',
  path: ProjectPath,
  args: { projectId?: string },
  init: { path?: Record<string, string>; query?: Record<string, unknown>; body?: unknown; parseAs?: 'json' | 'text' } = {},
): Promise<unknown> {
  const project = await projectOf(ctx, args.projectId);
  return call(ctx, method, path, { ...init, path: { projectId: project, ...init.path } });
}

/** A list tool's result: the page, and the hint for the next one. */
async function listResult(ctx: ToolContext, body: Promise<unknown>): Promise<CallToolResult> {
  const b = await body;
  return ok(ctx, b, nextPageHint(b));
}

/** The body of a write: the arguments without projectId and the path ids (`omit`), unset fields left out. */
function bodyOf(args: Record<string, unknown>, omit: string[] = []): Record<string, unknown> {
  return Object.fromEntries(Object.entries(args).filter(([k, v]) => k !== 'projectId' && !omit.includes(k) && v !== undefined));
}

// ---------------------------------------------------------------------------------------------- projects

tool('list_projects', {
  title: 'List projects',
  description:
    'The projects this token (or signed-in user) can use, with their ids and names, and the token type (pat or api_key). Call this first when you do not know the projectId the other tools take.',
  kind: 'read',
  input: {},
  async run(_args, ctx) {
    const info = (await call(ctx, 'GET', '/api/v1/public/token-info')) as {
      data: { type: string; scopes: unknown[]; project?: { id: string; name: string }; expiresAt?: unknown };
    };
    const projects: { id: string; name: string | null; orgId?: string }[] = [];
    let wildcard = false;
    for (const s of info.data.scopes) {
      if (typeof s !== 'object' || s === null) continue;
      const scope = s as { orgId?: string; projects?: unknown };
      if (scope.projects === '*') wildcard = true;
      else if (Array.isArray(scope.projects))
        for (const p of scope.projects as { id: string; name: string | null }[]) projects.push({ ...p, orgId: scope.orgId });
    }
    // A wildcard lists no projects; token-info still names the one project when it covers exactly one.
    if (wildcard && info.data.project) projects.push({ id: info.data.project.id, name: info.data.project.name });
    return ok(ctx, {
      tokenType: info.data.type,
      defaultProjectId: ctx.defaultProjectId ?? null,
      projects,
      ...(wildcard ? { note: 'The token covers every project of an organization (wildcard); ids not listed here are accepted too.' } : {}),
    });
  },
});

// ---------------------------------------------------------------------------------------------- runs

const runStatus = z.enum(['passed', 'failed', 'interrupted', 'incomplete', 'running']);

tool('list_runs', {
  title: 'List test runs',
  description:
    'Automated test runs of the project, newest first: id, counter, status, start/end time, duration, testStats (total, passed, failed, flaky, skipped, timedOut), git metadata (branch, environment, commit) and a url to the run in the web app. Filter by branch, environment, status or a time range. Paged: `pagination` says total and hasNext; ask the next page with page+1.',
  kind: 'read',
  input: {
    projectId,
    branch: z.string().max(500).optional().describe('Only runs of this git branch (exact).'),
    environment: z.string().max(500).optional().describe('Only runs of this environment (exact; get_filter_values lists them).'),
    status: runStatus.optional().describe('Only runs with this status.'),
    startDate: z
      .string()
      .optional()
      .describe('RFC 3339 timestamp (e.g. 2026-01-31T00:00:00Z): runs started at or after it. Give endDate too.'),
    endDate: z.string().optional().describe('RFC 3339 timestamp: runs started at or before it. Give startDate too.'),
    page,
    limit,
  },
  run: (a, ctx) =>
    listResult(
      ctx,
      projectCall(ctx, 'GET', `${P}/test-runs`, a, {
        query: {
          branch: a.branch,
          environment: a.environment,
          status: a.status,
          start_date: a.startDate,
          end_date: a.endDate,
          page: a.page,
          limit: a.limit,
        },
      }),
    ),
});

tool('get_run', {
  title: 'Get a test run',
  description:
    'One automated test run: status, testStats, git metadata, errorCategory, tagStats and url; with `include` also errorGroups (errors), coverage, specs (spec files with their test results) or artifacts. For the failures of a run grouped by error use get_run_failures instead.',
  kind: 'read',
  input: {
    projectId,
    runId: z.string().max(200).describe('The run id (list_runs).'),
    include: z
      .array(z.enum(['errors', 'coverage', 'specs', 'artifacts', 'all']))
      .optional()
      .describe('Extra sections. `specs` can be large.'),
  },
  run: async (a, ctx) =>
    ok(
      ctx,
      await projectCall(ctx, 'GET', `${P}/test-runs/{runId}`, a, { path: { runId: a.runId }, query: { include: a.include?.join(',') } }),
    ),
});

tool('get_run_failures', {
  title: "A run's failures grouped by error",
  description:
    'The failures of one run grouped by error (errorGroups: the error message, how many tests failed with it and which), with the run summary (status, testStats, branch, commit, url), and the first page of its failed test results (ids to pass to get_debug_bundle or get_test_result). Use get_debug_bundle with the runId for a markdown digest of the whole run.',
  kind: 'read',
  input: {
    projectId,
    runId: z.string().max(200).describe('The run id (list_runs).'),
    limit,
  },
  async run(a, ctx) {
    const run = (await projectCall(ctx, 'GET', `${P}/test-runs/{runId}`, a, {
      path: { runId: a.runId },
      query: { include: 'errors' },
    })) as {
      data: Record<string, unknown>;
    };
    const failed = (await projectCall(ctx, 'GET', `${P}/test-runs/{runId}/test-cases`, a, {
      path: { runId: a.runId },
      query: { status: 'failed', limit: a.limit ?? 25 },
    })) as { data: unknown[]; pagination: { total?: number; hasNext?: boolean } };
    const { errorGroups, id, counter, status, testStats, metadata, url, errorCategory } = run.data;
    return ok(ctx, {
      run: { id, counter, status, testStats, metadata, url, errorCategory },
      errorGroups: errorGroups ?? [],
      failedTests: failed.data,
      failedTestsTotal: failed.pagination.total,
      ...(failed.pagination.hasNext
        ? { hint: `More failed tests: list_run_tests with runId=${a.runId}, status=failed and page=2 (same limit).` }
        : {}),
    });
  },
});

tool('list_run_tests', {
  title: "List a run's test results",
  description:
    'The test results of one run, flattened: result id (pass it as caseId/resultId to get_test_result, get_debug_bundle, get_test_history), title, file, status, duration, retries, error. Filter by status. Paged (page, limit).',
  kind: 'read',
  input: {
    projectId,
    runId: z.string().max(200).describe('The run id (list_runs).'),
    status: z
      .enum(['passed', 'failed', 'flaky', 'skipped', 'timedOut', 'interrupted'])
      .optional()
      .describe('Only results with this status.'),
    page,
    limit,
  },
  run: (a, ctx) =>
    listResult(
      ctx,
      projectCall(ctx, 'GET', `${P}/test-runs/{runId}/test-cases`, a, {
        path: { runId: a.runId },
        query: { status: a.status, page: a.page, limit: a.limit },
      }),
    ),
});

// ---------------------------------------------------------------------------------------------- tests

tool('get_test_result', {
  title: 'Get a test result',
  description:
    "One test result of one run: the run and test metadata (test id, title path, file, tags), the overview (status, outcome, error, duration, attempts with their errors, steps, attachments) and a url. includeHistory adds the test's summary over past runs (totalRuns, passed, failed, flaky, stabilityScore).",
  kind: 'read',
  input: {
    projectId,
    resultId: z.string().max(200).describe('The test result id (list_run_tests or get_run_failures).'),
    includeHistory: z.boolean().optional(),
  },
  run: async (a, ctx) =>
    ok(
      ctx,
      await projectCall(ctx, 'GET', `${P}/test-cases/{caseId}`, a, {
        path: { caseId: a.resultId },
        query: { include: a.includeHistory ? 'history' : undefined },
      }),
    ),
});

tool('get_debug_bundle', {
  title: 'Debug bundle (markdown)',
  description:
    'Everything needed to debug a failure, as markdown. Scope by the deepest id given: resultId (one test result: error, steps, attempts, failure window = last passing and first failing run with commits, artifacts, trace, deep links, a shell command that reruns just this test), suiteId (a spec file of a run: its failing and flaky tests) or runId (failing spec files and deduplicated failing tests). maxLength bounds the text (100 to 100000 characters, default 20000).',
  kind: 'read',
  input: {
    projectId,
    runId: z.string().max(200).optional(),
    suiteId: z.string().max(200).optional().describe('A spec file of a run (metadata.test.specId of get_test_result).'),
    resultId: z.string().max(200).optional().describe('A test result id.'),
    maxLength: z.number().int().min(100).max(100000).optional(),
  },
  async run(a, ctx) {
    if (!a.runId && !a.suiteId && !a.resultId) throw new ToolError('VALIDATION_ERROR', 'Give one of runId, suiteId or resultId.');
    const text = (await projectCall(ctx, 'GET', `${P}/debug-bundle`, a, {
      query: { runId: a.runId, suiteId: a.suiteId, caseId: a.resultId, format: 'md', maxLength: a.maxLength ?? 20000 },
      parseAs: 'text',
    })) as string;
    return { content: [{ type: 'text', text: text.slice(0, ctx.maxResultChars) }] };
  },
});

tool('get_test_history', {
  title: "A test's history and stability",
  description:
    'Past results of one test across runs, newest first (result id, run, status, duration, retries, branch, commit, error), and its stability: totalRuns, passed, failed, flaky, skipped, stabilityScore (passed/total x 100), lastPassed, lastFailed, lastFlaky. Name the test by resultId (any of its results), testId, or its full title. Paged by offset: pass offset = offset + limit for the next page.',
  kind: 'read',
  input: {
    projectId,
    resultId: z.string().max(200).optional().describe('Any result of the test (list_run_tests).'),
    testId: z.string().max(200).optional().describe('The test id (metadata.test.id of get_test_result).'),
    title: z.string().max(2000).optional().describe('The full title (`describe › test`), when the id is not known.'),
    branch: z.string().max(500).optional().describe('Only results on this branch.'),
    offset: z.number().int().min(0).optional(),
    limit,
  },
  async run(a, ctx) {
    let testId = a.testId;
    let stability: unknown;
    if (a.resultId) {
      const r = (await projectCall(ctx, 'GET', `${P}/test-cases/{caseId}`, a, {
        path: { caseId: a.resultId },
        query: { include: 'history' },
      })) as {
        data: { metadata: { test: { id: string } }; history?: { summary?: unknown } };
      };
      testId = r.data.metadata.test.id;
      stability = r.data.history?.summary;
    }
    if (!testId && !a.title) throw new ToolError('VALIDATION_ERROR', 'Give resultId, testId or title.');
    const history = (await projectCall(ctx, 'GET', `${P}/test-cases/history`, a, {
      query: { testId, title: testId ? undefined : a.title, branch: a.branch, offset: a.offset, limit: a.limit },
    })) as { data: { caseId: string }[]; pagination: unknown };
    if (stability === undefined && history.data[0]) {
      const newest = (await projectCall(ctx, 'GET', `${P}/test-cases/{caseId}`, a, {
        path: { caseId: history.data[0].caseId },
        query: { include: 'history' },
      })) as { data: { history?: { summary?: unknown } } };
      stability = newest.data.history?.summary;
    }
    return ok(ctx, { stability: stability ?? null, data: history.data, pagination: history.pagination }, nextPageHint(history));
  },
});

tool('find_tests', {
  title: 'Flaky, failing and slow tests',
  description:
    'Tests across runs of the last `days` (test case explorer): per test its executions, pass/failure/flaky rates and duration percentiles. status picks flaky, failing, slow or stable tests; sortBy orders by flaky_rate, failure_rate, p95_duration or executions. Paged (page; limit 10, 25 or 50).',
  kind: 'read',
  input: {
    projectId,
    status: z.enum(['flaky', 'failing', 'slow', 'stable']).optional(),
    sortBy: z.enum(['flaky_rate', 'failure_rate', 'p95_duration', 'executions']).optional(),
    order: z.enum(['asc', 'desc']).optional(),
    days,
    page,
    limit: z
      .union([z.literal(10), z.literal(25), z.literal(50)])
      .optional()
      .describe('Items per page: 10, 25 or 50 (default 10).'),
  },
  run: (a, ctx) =>
    listResult(
      ctx,
      projectCall(ctx, 'GET', `${P}/test-case-explorer`, a, {
        query: { status: a.status, sortBy: a.sortBy, order: a.order, days: a.days, page: a.page, limit: a.limit },
      }),
    ),
});

tool('list_spec_files', {
  title: 'Spec file health',
  description:
    'Per spec file over the last `days`: executions, pass, failure and flaky rates, average and p95 duration, last run. Paged (page, limit).',
  kind: 'read',
  input: { projectId, days, page, limit },
  run: (a, ctx) => listResult(ctx, projectCall(ctx, 'GET', `${P}/specs`, a, { query: { days: a.days, page: a.page, limit: a.limit } })),
});

// ---------------------------------------------------------------------------------------------- analytics

tool('get_analytics_summary', {
  title: 'Analytics summary',
  description:
    'Project analytics over the last `days`: totals, pass rate, flaky rate, average duration, top failing, top flaky and slowest tests, results by tag and by environment, and the trend by day.',
  kind: 'read',
  input: { projectId, days },
  run: async (a, ctx) => ok(ctx, await projectCall(ctx, 'GET', `${P}/analytics/summary`, a, { query: { days: a.days } })),
});

tool('get_dashboard', {
  title: 'Dashboard',
  description:
    'The project dashboard (fixed 30-day window): run counts by status, pass-rate trend by day, top 10 flaky and failing tests, runs still running.',
  kind: 'read',
  input: { projectId },
  run: async (a, ctx) => ok(ctx, await projectCall(ctx, 'GET', `${P}/dashboard`, a)),
});

tool('get_filter_values', {
  title: 'Filter values',
  description:
    'The environments, branches, developers and tags seen in the project runs: the valid values of the filters of the other tools.',
  kind: 'read',
  input: { projectId },
  run: async (a, ctx) => ok(ctx, await projectCall(ctx, 'GET', `${P}/filters`, a)),
});

tool('list_action_rules', {
  title: 'Action rules',
  description:
    'The action (workflow) rules of the project: name, operations (skip, quarantine, tag), match (titlePattern, file, tag), expiry and status (active, expired, disabled). A quarantined test still runs but its failure does not fail the run. Paged (page, limit).',
  kind: 'read',
  input: { projectId, status: z.enum(['active', 'expired', 'disabled']).optional(), page, limit },
  run: (a, ctx) =>
    listResult(ctx, projectCall(ctx, 'GET', `${P}/workflow-rules`, a, { query: { status: a.status, page: a.page, limit: a.limit } })),
});

tool('get_quarantine_summary', {
  title: 'Action rules and quarantine summary',
  description:
    'How many rules skip, quarantine or tag tests (a rule with several operations counts under each), and how many quarantined tests there were in the window (7 or 30 days, default 7).',
  kind: 'read',
  input: { projectId, windowDays: z.union([z.literal(7), z.literal(30)]).optional() },
  run: async (a, ctx) => ok(ctx, await projectCall(ctx, 'GET', `${P}/action-rules/summary`, a, { query: { windowDays: a.windowDays } })),
});

// ---------------------------------------------------------------------------------------------- manual testing

tool('list_manual_suites', {
  title: 'Manual test suites',
  description:
    'The manual test suites as a tree: root suites with their nested children (id, name, description, depth). Paged over root suites.',
  kind: 'read',
  input: { projectId, page, limit },
  run: (a, ctx) => listResult(ctx, projectCall(ctx, 'GET', `${P}/manual-test-suites`, a, { query: { page: a.page, limit: a.limit } })),
});

tool('create_manual_suite', {
  title: 'Create a manual test suite',
  description: 'Creates a manual test suite (top level, or inside parentSuiteId; at most 6 levels deep). Returns the suite with its id.',
  kind: 'write',
  input: {
    projectId,
    name: z.string().min(1).max(500),
    description: z.string().max(2000).optional(),
    parentSuiteId: z.string().max(128).optional(),
  },
  run: async (a, ctx) => ok(ctx, await projectCall(ctx, 'POST', `${P}/manual-test-suites`, a, { body: bodyOf(a) })),
});

tool('update_manual_suite', {
  title: 'Update a manual test suite',
  description: 'Renames, describes or moves a suite (parentSuiteId; null moves it to the top level). Send only what changes.',
  kind: 'write',
  input: {
    projectId,
    suiteId: z.string().max(128),
    name: z.string().min(1).max(500).optional(),
    description: z.string().max(2000).optional(),
    parentSuiteId: z.union([z.string().max(128), z.null()]).optional(),
  },
  run: async (a, ctx) =>
    ok(
      ctx,
      await projectCall(ctx, 'PATCH', `${P}/manual-test-suites/{suiteId}`, a, {
        path: { suiteId: a.suiteId },
        body: bodyOf(a, ['suiteId']),
      }),
    ),
});

const classicOrGherkinSteps = z
  .array(
    z.object({
      action: z.string().max(5000).optional().describe('Classic step: what the tester does.'),
      expectedResult: z.string().max(5000).optional().describe('Classic step: what should happen.'),
      data: z.string().max(5000).optional().describe('Classic step: test data.'),
      event: z.enum(['Given', 'When', 'Then', 'And', 'But']).optional().describe('Gherkin step keyword.'),
      stepDescription: z.string().max(5000).optional().describe('Gherkin step text.'),
    }),
  )
  .max(100)
  .optional()
  .describe(
    'Steps (at most 100): classic {action, expectedResult, data} or, with testStepsDeclarationType Gherkin, {event, stepDescription}.',
  );

const caseFields = {
  description: z.string().optional().describe('What the case checks (HTML or plain text).'),
  preconditions: z.string().optional(),
  postconditions: z.string().optional(),
  status: z.string().optional().describe('Classification status: active, draft or deprecated.'),
  testStepsDeclarationType: z.enum(['Classic', 'Gherkin']).optional(),
  steps: classicOrGherkinSteps,
  priority: z.string().optional().describe('critical, high, medium, low or not_set.'),
  severity: z.string().optional().describe('blocker, critical, major, normal, minor, trivial or not_set.'),
  type: z.string().optional().describe('smoke, regression, functional, integration, e2e, api, unit, performance, security, …'),
  layer: z.string().optional().describe('e2e, api, unit or not_set.'),
  behavior: z.string().optional().describe('positive, negative, destructive or not_set.'),
  automationStatus: z.string().optional().describe('manual or automated.'),
  tags: z.string().optional().describe('Comma-separated tags, e.g. "smoke,login".'),
  flags: z.array(z.enum(['To be Automated', 'Is flaky', 'Muted'])).optional(),
  customFields: z.record(z.string(), z.string()).optional(),
};

tool('list_manual_cases', {
  title: 'Manual test cases',
  description:
    'Manual test cases (id, human caseId like TC-12, title, suite, classification, steps, tags). Filter by suiteId, search text, tags or classification. Paged (page, limit).',
  kind: 'read',
  input: {
    projectId,
    suiteId: z.string().max(128).optional(),
    search: z.string().max(500).optional().describe('Text to find in titles.'),
    tags: z.string().max(1000).optional().describe('Comma-separated tags.'),
    status: z.string().optional(),
    priority: z.string().optional(),
    severity: z.string().optional(),
    type: z.string().optional(),
    automationStatus: z.string().optional(),
    page,
    limit,
  },
  run: (a, ctx) => listResult(ctx, projectCall(ctx, 'GET', `${P}/manual-test-cases`, a, { query: bodyOf(a) })),
});

tool('get_manual_case', {
  title: 'Get a manual test case',
  description:
    'One manual test case with its steps, classification, linked automated tests and attachments. caseId is its id or its human number (TC-12).',
  kind: 'read',
  input: { projectId, caseId: z.string().max(128) },
  run: async (a, ctx) => ok(ctx, await projectCall(ctx, 'GET', `${P}/manual-test-cases/{caseId}`, a, { path: { caseId: a.caseId } })),
});

tool('create_manual_case', {
  title: 'Create a manual test case',
  description:
    'Creates a manual test case from a description: a title, the suite it belongs to (suiteId, or suiteName matched exactly; the suite must exist), and optionally description, preconditions, steps (classic or Gherkin) and classification. Returns the case with its id and human caseId (TC-n).',
  kind: 'write',
  input: {
    projectId,
    title: z.string().min(1).max(500),
    suiteId: z.string().max(128).optional(),
    suiteName: z.string().max(500).optional(),
    ...caseFields,
  },
  run: async (a, ctx) => ok(ctx, await projectCall(ctx, 'POST', `${P}/manual-test-cases`, a, { body: bodyOf(a) })),
});

tool('update_manual_case', {
  title: 'Update a manual test case',
  description:
    'Updates a manual test case; send only what changes. steps replaces the whole list. comments are appended as new comments; issues links tracker tickets. caseId is its id or TC-n.',
  kind: 'write',
  input: {
    projectId,
    caseId: z.string().max(128),
    title: z.string().min(1).max(500).optional(),
    ...caseFields,
    comments: z.array(z.string()).max(20).optional(),
    issues: z.array(z.string()).max(50).optional(),
  },
  run: async (a, ctx) =>
    ok(
      ctx,
      await projectCall(ctx, 'PATCH', `${P}/manual-test-cases/{caseId}`, a, { path: { caseId: a.caseId }, body: bodyOf(a, ['caseId']) }),
    ),
});

const releaseFields = {
  description: z.string().optional(),
  note: z.string().optional().describe('Rich text (HTML).'),
  type: z.string().optional(),
  startDate: z.string().optional().describe('ISO date.'),
  endDate: z.string().optional().describe('ISO date.'),
  branch: z.string().optional(),
  environment: z.string().optional(),
  linkedIssues,
  buildTarget: z
    .object({
      platform: z.enum(['web', 'ios', 'android', 'api']),
      version: z.string().optional(),
      buildNumber: z.string().optional(),
      source: z.string().optional(),
      deployUrl: z.string().optional(),
    })
    .optional(),
  testers: z.array(z.string()).optional().describe('User ids of organization members.'),
};

tool('list_releases', {
  title: 'Releases',
  description:
    'Releases of the project (name, dates, branch, environment, isStarted, isCompleted). Filter by search text or completion. Paged.',
  kind: 'read',
  input: { projectId, search: z.string().max(500).optional(), isCompleted: z.boolean().optional(), page, limit },
  run: (a, ctx) => listResult(ctx, projectCall(ctx, 'GET', `${P}/releases`, a, { query: bodyOf(a) })),
});

tool('get_release', {
  title: 'Get a release',
  description:
    'One release: name, description, dates, branch, environment, build target, testers and its lifecycle (isStarted, startedAt, isCompleted, completedAt).',
  kind: 'read',
  input: { projectId, releaseId: z.string().max(128) },
  run: async (a, ctx) => ok(ctx, await projectCall(ctx, 'GET', `${P}/releases/{releaseId}`, a, { path: { releaseId: a.releaseId } })),
});

tool('create_release', {
  title: 'Create a release',
  description: 'Creates a release (nested under parentReleaseId, at most 3 levels). Returns it with its id.',
  kind: 'write',
  input: { projectId, name: z.string().min(1).max(255), parentReleaseId: z.string().max(128).optional(), ...releaseFields },
  run: async (a, ctx) => ok(ctx, await projectCall(ctx, 'POST', `${P}/releases`, a, { body: bodyOf(a) })),
});

tool('update_release', {
  title: 'Update a release',
  description: 'Updates a release; send only what changes. isStarted/startedAt and isCompleted/completedAt move it through its lifecycle.',
  kind: 'write',
  input: {
    projectId,
    releaseId: z.string().max(128),
    name: z.string().min(1).max(255).optional(),
    ...releaseFields,
    isStarted: z.boolean().optional(),
    startedAt: z
      .union([z.string().max(64), z.null()])
      .optional()
      .describe('ISO date-time.'),
    isCompleted: z.boolean().optional(),
    completedAt: z
      .union([z.string().max(64), z.null()])
      .optional()
      .describe('ISO date-time.'),
  },
  run: async (a, ctx) =>
    ok(
      ctx,
      await projectCall(ctx, 'PATCH', `${P}/releases/{releaseId}`, a, { path: { releaseId: a.releaseId }, body: bodyOf(a, ['releaseId']) }),
    ),
});

const sessionFields = {
  mission: z.string().optional().describe('The charter (HTML).'),
  sessionType: z.string().optional(),
  environment: z.string().optional(),
  state: z.string().optional(),
  estimate: z.number().int().min(0).optional().describe('Minutes.'),
  tags: z.array(z.string()).optional(),
  linkedIssues,
  releaseId: z.string().max(128).optional(),
  assigneeUserId: z.string().optional().describe('User id or e-mail.'),
};

tool('list_sessions', {
  title: 'Exploratory sessions',
  description: 'Exploratory testing sessions (name, mission, assignee, status open or closed). Paged.',
  kind: 'read',
  input: { projectId, status: z.enum(['open', 'closed']).optional(), page, limit },
  run: (a, ctx) => listResult(ctx, projectCall(ctx, 'GET', `${P}/sessions`, a, { query: bodyOf(a) })),
});

tool('create_session', {
  title: 'Create an exploratory session',
  description: 'Creates an exploratory testing session. Returns it with its id.',
  kind: 'write',
  input: { projectId, name: z.string().min(1).max(255), ...sessionFields },
  run: async (a, ctx) => ok(ctx, await projectCall(ctx, 'POST', `${P}/sessions`, a, { body: bodyOf(a) })),
});

tool('update_session', {
  title: 'Update an exploratory session',
  description: 'Updates a session; send only what changes. status "closed" closes it.',
  kind: 'write',
  input: {
    projectId,
    sessionId: z.string().max(128),
    name: z.string().min(1).max(255).optional(),
    ...sessionFields,
    status: z.literal('closed').optional(),
  },
  run: async (a, ctx) =>
    ok(
      ctx,
      await projectCall(ctx, 'PATCH', `${P}/sessions/{sessionId}`, a, { path: { sessionId: a.sessionId }, body: bodyOf(a, ['sessionId']) }),
    ),
});

const manualRunFields = {
  note: z.string().optional().describe('Rich text (HTML).'),
  environment: z.string().optional(),
  state: z.string().optional(),
  releaseId: z.string().max(128).optional(),
  selectionMode: z.enum(['all', 'selected']).optional().describe('all (default): every case; selected: testCaseIds and suiteIds.'),
  forecast: z.number().min(0).optional(),
  tags: z.array(z.string()).optional(),
  linkedIssues,
  links: z.array(z.object({ title: z.string(), url: z.string() })).optional(),
};

tool('list_manual_runs', {
  title: 'Manual runs',
  description: 'Manual test runs with their rollup per verdict (passed, failed, blocked, …) and status (open or closed). Paged.',
  kind: 'read',
  input: { projectId, status: z.enum(['open', 'closed']).optional(), page, limit },
  run: (a, ctx) => listResult(ctx, projectCall(ctx, 'GET', `${P}/manual-runs`, a, { query: bodyOf(a) })),
});

tool('get_manual_run', {
  title: 'Get a manual run',
  description:
    'One manual run: name, release, environment, status (open or closed) and its rollup stats per verdict (untested, passed, failed, blocked, skipped, retest).',
  kind: 'read',
  input: { projectId, runId: z.string().max(128) },
  run: async (a, ctx) => ok(ctx, await projectCall(ctx, 'GET', `${P}/manual-runs/{runId}`, a, { path: { runId: a.runId } })),
});

tool('create_manual_run', {
  title: 'Create a manual run',
  description:
    'Creates a manual test run: every case (selectionMode all, the default) or the chosen testCaseIds and suiteIds (selectionMode selected). Its cases start untested. Returns the run with its id.',
  kind: 'write',
  input: {
    projectId,
    name: z.string().min(1).max(255),
    ...manualRunFields,
    testCaseIds: z.array(z.string()).optional(),
    suiteIds: z.array(z.string()).optional(),
    includeUnsorted: z.boolean().optional(),
  },
  run: async (a, ctx) => ok(ctx, await projectCall(ctx, 'POST', `${P}/manual-runs`, a, { body: bodyOf(a) })),
});

tool('update_manual_run', {
  title: 'Update or close a manual run',
  description: 'Updates a manual run; send only what changes. status "closed" closes it (a closed run takes no more verdicts).',
  kind: 'write',
  input: {
    projectId,
    runId: z.string().max(128),
    name: z.string().min(1).max(255).optional(),
    ...manualRunFields,
    status: z.literal('closed').optional(),
  },
  run: async (a, ctx) =>
    ok(ctx, await projectCall(ctx, 'PATCH', `${P}/manual-runs/{runId}`, a, { path: { runId: a.runId }, body: bodyOf(a, ['runId']) })),
});

tool('list_manual_run_cases', {
  title: "A manual run's cases",
  description:
    'The cases of a manual run with their verdict (result), assignee, elapsed time and step results. Filter by result or assignee. Paged.',
  kind: 'read',
  input: {
    projectId,
    runId: z.string().max(128),
    result: z.string().optional().describe('untested, passed, failed, blocked, skipped or retest.'),
    assignee: z.string().optional(),
    page,
    limit,
  },
  run: (a, ctx) =>
    listResult(
      ctx,
      projectCall(ctx, 'GET', `${P}/manual-runs/{runId}/test-cases`, a, {
        path: { runId: a.runId },
        query: { result: a.result, assignee: a.assignee, page: a.page, limit: a.limit },
      }),
    ),
});

tool('set_manual_verdict', {
  title: 'Record a verdict in a manual run',
  description:
    'Records the result of one case in a manual run. Either a quick verdict (result, assigneeUserId, elapsed seconds) or a detailed result (comment, stepResults, linkedIssues), not both in one call. caseRef is the run case id, the case id or its TC-n number.',
  kind: 'write',
  input: {
    projectId,
    runId: z.string().max(128),
    caseRef: z.string().max(128),
    result: z.enum(['untested', 'passed', 'failed', 'blocked', 'skipped', 'retest']).optional(),
    assigneeUserId: z
      .union([z.string().max(320), z.null()])
      .optional()
      .describe('User id or e-mail; null unassigns.'),
    elapsed: z.number().min(0).optional().describe('Seconds.'),
    comment: z.string().optional().describe('Detailed mode: rich text (HTML).'),
    stepResults: z
      .array(z.object({ order: z.number().int(), status: z.string(), comment: z.string().optional() }))
      .optional()
      .describe('Detailed mode: per step {order, status, comment}.'),
    linkedIssues,
  },
  run: async (a, ctx) =>
    ok(
      ctx,
      await projectCall(ctx, 'PATCH', `${P}/manual-runs/{runId}/test-cases/{caseRef}`, a, {
        path: { runId: a.runId, caseRef: a.caseRef },
        body: bodyOf(a, ['runId', 'caseRef']),
      }),
    ),
});

// ---------------------------------------------------------------------------------------------- reports

// Below the usual 30–60 s idle timeout of a proxy in front of /mcp; a report still pending is polled with get_report_status.
const REPORT_WAIT_MS = 20_000;
const REPORT_POLL_MS = 1_000;

tool('generate_pdf_report', {
  title: 'Generate a PDF report',
  description:
    'Starts a PDF report of the last `days` (1 to 30, default 7), optionally for one branch, environment or tags, and waits up to 20 s for it. Returns reportId, status (pending, ready, failed), sizeBytes and the API path to download the PDF with the same credentials. If it is still pending, call get_report_status later. Limited to 1 per minute per token (429 RATE_LIMIT_EXCEEDED otherwise).',
  kind: 'write',
  input: {
    projectId,
    days: z.number().int().min(1).max(30).optional(),
    branch: z.string().max(200).optional(),
    environment: z.string().max(200).optional(),
    tags: z.array(z.string().max(200)).optional(),
  },
  async run(a, ctx) {
    const project = await projectOf(ctx, a.projectId);
    const args = { projectId: project };
    const started = (await projectCall(ctx, 'POST', `${P}/reports`, args, { body: bodyOf(a) })) as {
      data: { reportId: string; status: string };
    };
    const reportId = started.data.reportId;
    let report: Record<string, unknown> = started.data;
    for (const deadline = Date.now() + REPORT_WAIT_MS; report.status === 'pending' && Date.now() < deadline;) {
      await new Promise((resolve) => setTimeout(resolve, REPORT_POLL_MS));
      report = (
        (await projectCall(ctx, 'GET', `${P}/reports/{reportId}`, args, { path: { reportId } })) as { data: Record<string, unknown> }
      ).data;
    }
    return ok(ctx, reportResult(project, reportId, report));
  },
});

tool('get_report_status', {
  title: 'PDF report status',
  description: 'The status of a PDF report (pending, ready, failed), its size, and the API path to download it when ready.',
  kind: 'read',
  input: { projectId, reportId: z.string().max(128) },
  async run(a, ctx) {
    const project = await projectOf(ctx, a.projectId);
    const report = (await projectCall(
      ctx,
      'GET',
      `${P}/reports/{reportId}`,
      { projectId: project },
      { path: { reportId: a.reportId } },
    )) as {
      data: Record<string, unknown>;
    };
    return ok(ctx, reportResult(project, a.reportId, report.data));
  },
});

function reportResult(project: string, reportId: string, report: Record<string, unknown>) {
  const download = `/api/v1/public/${project}/reports/${reportId}/download`;
  return {
    ...report,
    reportId,
    ...(report.status === 'ready'
      ? { downloadPath: download, hint: `GET ${download} on the Assay server with the same token answers the PDF.` }
      : report.status === 'pending'
        ? { hint: 'Still rendering: call get_report_status with this reportId in a few seconds.' }
        : {}),
  };
}
