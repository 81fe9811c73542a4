/**
 * Demo data for `make up`: a realistic automated-testing history ingested through the public ingestion API, as
 * a CI job would send it. Twelve runs over the last ten days of a Playwright suite (six spec files, UI tests in
 * Chromium and Firefox, an API project): `main` and a feature branch, `staging` and `production`; passes,
 * failures with Playwright's error messages and stacks, a flaky test that passes on retry, a regression on the
 * feature branch, a timeout, a network error, a skipped test; the newest run is left running (it streams, half
 * of its results sent). The outcomes follow a fixed seed, so every seeding looks the same.
 *
 * Idempotence is the caller's business: each call adds twelve more runs.
 */
import { Api } from '../http';

type Status = 'passed' | 'failed' | 'timedOut' | 'skipped';

interface DemoTest {
  file: string;
  describe: string;
  title: string;
  line: number;
  /** Browser projects it runs in. */
  projects: string[];
  tags?: string[];
  skip?: string;
}

const UI = ['chromium', 'firefox'];
const TESTS: DemoTest[] = [
  {
    file: 'tests/auth/login.spec.ts',
    describe: 'Login',
    title: 'signs in with valid credentials',
    line: 12,
    projects: UI,
    tags: ['@smoke'],
  },
  { file: 'tests/auth/login.spec.ts', describe: 'Login', title: 'shows an error for a wrong password', line: 27, projects: UI },
  { file: 'tests/auth/login.spec.ts', describe: 'Login', title: 'locks the account after five attempts', line: 41, projects: UI },
  {
    file: 'tests/checkout/cart.spec.ts',
    describe: 'Cart',
    title: 'adds an item from the product page',
    line: 9,
    projects: UI,
    tags: ['@smoke'],
  },
  { file: 'tests/checkout/cart.spec.ts', describe: 'Cart', title: 'applies a discount code', line: 33, projects: UI },
  { file: 'tests/checkout/cart.spec.ts', describe: 'Cart', title: 'updates the total when the quantity changes', line: 58, projects: UI },
  {
    file: 'tests/checkout/payment.spec.ts',
    describe: 'Payment',
    title: 'pays with a saved card',
    line: 15,
    projects: UI,
    tags: ['@smoke'],
  },
  { file: 'tests/checkout/payment.spec.ts', describe: 'Payment', title: 'declines an expired card', line: 42, projects: UI },
  { file: 'tests/checkout/payment.spec.ts', describe: 'Payment', title: 'completes a 3-D Secure challenge', line: 70, projects: UI },
  { file: 'tests/search/search.spec.ts', describe: 'Search', title: 'finds products by name', line: 8, projects: UI },
  { file: 'tests/search/search.spec.ts', describe: 'Search', title: 'shows suggestions while typing', line: 24, projects: UI },
  { file: 'tests/search/search.spec.ts', describe: 'Search', title: 'filters by category', line: 47, projects: UI },
  { file: 'tests/profile/settings.spec.ts', describe: 'Settings', title: 'changes the display name', line: 11, projects: UI },
  {
    file: 'tests/profile/settings.spec.ts',
    describe: 'Settings',
    title: 'deletes the account',
    line: 36,
    projects: UI,
    skip: 'fixme: needs a disposable account (#412)',
  },
  { file: 'tests/api/orders.api.spec.ts', describe: 'Orders API', title: 'creates an order', line: 10, projects: ['api'], tags: ['@api'] },
  {
    file: 'tests/api/orders.api.spec.ts',
    describe: 'Orders API',
    title: 'lists orders of the customer',
    line: 29,
    projects: ['api'],
    tags: ['@api'],
  },
  {
    file: 'tests/api/orders.api.spec.ts',
    describe: 'Orders API',
    title: 'rejects an invalid payload',
    line: 51,
    projects: ['api'],
    tags: ['@api'],
  },
];

const COMMITS = [
  ['Add discount codes to the cart', 'Ada Lovelace'],
  ['Fix rounding of cart totals', 'Grace Hopper'],
  ['Speed up product search', 'Alan Turing'],
  ['Upgrade Playwright to 1.55', 'Margaret Hamilton'],
  ['Show suggestions while typing', 'Alan Turing'],
  ['Refactor payment form', 'Katherine Johnson'],
  ['Handle expired cards in checkout', 'Katherine Johnson'],
  ['Lock accounts after repeated failures', 'Grace Hopper'],
  ['Add order listing endpoint', 'Ada Lovelace'],
  ['Tidy settings page', 'Margaret Hamilton'],
  ['Retry flaky payment provider calls', 'Katherine Johnson'],
  ['Redesign the checkout summary', 'Katherine Johnson'],
];

/** A small deterministic generator (mulberry32): the same seed, the same history. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const hex = (rand: () => number, n: number) => Array.from({ length: n }, () => Math.floor(rand() * 16).toString(16)).join('');

interface Attempt {
  status: Status;
  error?: { message: string; stack: string; location: { file: string; line: number; column: number }; snippet?: string };
  stdout?: string[];
}

/** Why a test fails, as Playwright words it. */
function failure(t: DemoTest, kind: 'locator' | 'text' | 'timeout' | 'network', line: number): Required<Attempt>['error'] {
  const at = `    at ${t.file.replace('tests/', '/builds/shop/tests/')}:${line}:${kind === 'network' ? 24 : 38}`;
  const location = { file: t.file, line, column: kind === 'network' ? 24 : 38 };
  switch (kind) {
    case 'locator':
      return {
        message:
          "Error: locator.click: Timeout 10000ms exceeded.\nCall log:\n  - waiting for getByRole('button', { name: 'Apply code' })\n" +
          '  - locator resolved to <button disabled class="btn">Apply code</button>\n  - element is not enabled',
        stack: `Error: locator.click: Timeout 10000ms exceeded.\n${at}`,
        location,
        snippet: `  ${line - 1} |     await page.getByLabel('Discount code').fill('SPRING10');\n> ${line} |     await page.getByRole('button', { name: 'Apply code' }).click();\n     |                                                             ^`,
      };
    case 'text':
      return {
        message:
          'Error: expect(locator).toHaveText(expected) failed\n\nLocator: getByRole(\'alert\')\nExpected: "Your card has expired"\n' +
          'Received: "Payment failed, please try again"\nTimeout: 5000ms',
        stack: `Error: expect(locator).toHaveText(expected) failed\n${at}`,
        location,
        snippet: `  ${line - 1} |     await page.getByRole('button', { name: 'Pay now' }).click();\n> ${line} |     await expect(page.getByRole('alert')).toHaveText('Your card has expired');\n     |                                           ^`,
      };
    case 'timeout':
      return {
        message: 'Test timeout of 30000ms exceeded.',
        stack: `Error: Test timeout of 30000ms exceeded.\n${at}`,
        location,
      };
    case 'network':
      return {
        message:
          'Error: apiRequestContext.get: connect ECONNREFUSED 10.0.3.12:443\nCall log:\n  - → GET https://api.staging.shop.test/v2/orders',
        stack: `Error: apiRequestContext.get: connect ECONNREFUSED 10.0.3.12:443\n${at}`,
        location,
      };
  }
}

interface RunPlan {
  index: number;
  branch: string;
  environment: string;
  startTime: Date;
}

/** The attempts of one test in one run: passes mostly; the planned troubles where the plan says. */
function attemptsOf(t: DemoTest, project: string, run: RunPlan, rand: () => number): Attempt[] {
  const r = rand();
  if (t.skip) return [{ status: 'skipped' }];
  const feature = run.branch !== 'main';
  if (t.title === 'applies a discount code' && r < 0.45)
    return [{ status: 'failed', error: failure(t, 'locator', t.line + 6) }, { status: 'passed' }];
  if (t.title === 'shows suggestions while typing' && project === 'firefox' && r < 0.5)
    return [{ status: 'failed', error: failure(t, 'locator', t.line + 4) }, { status: 'passed' }];
  if (t.title === 'declines an expired card' && feature && run.index >= 5) {
    const e = failure(t, 'text', t.line + 9);
    return [
      { status: 'failed', error: e },
      { status: 'failed', error: e },
    ];
  }
  if (t.title === 'lists orders of the customer' && run.environment === 'production' && r < 0.7)
    return [
      { status: 'failed', error: failure(t, 'network', t.line + 3) },
      { status: 'failed', error: failure(t, 'network', t.line + 3) },
    ];
  if (t.title === 'locks the account after five attempts' && project === 'chromium' && r < 0.15)
    return [
      { status: 'timedOut', error: failure(t, 'timeout', t.line) },
      { status: 'timedOut', error: failure(t, 'timeout', t.line) },
    ];
  return [{ status: 'passed', stdout: t.projects[0] === 'api' ? [`POST /v2/orders 201 in ${40 + Math.round(r * 80)} ms\n`] : [] }];
}

function steps(t: DemoTest, attempt: Attempt, rand: () => number) {
  const d = () => Math.round(20 + rand() * 400);
  const path = `/${t.file.split('/')[1]}`;
  const last =
    attempt.error !== undefined
      ? {
          title: attempt.status === 'timedOut' ? 'Wait for the account to lock' : 'expect.toHaveText',
          category: 'expect',
          duration: d(),
          error: attempt.error,
          steps: [],
        }
      : { title: 'expect.toBeVisible', category: 'expect', duration: d(), steps: [] };
  return [
    {
      title: 'Before Hooks',
      category: 'hook',
      duration: d(),
      steps: [{ title: 'browserContext.newPage', category: 'pw:api', duration: d(), steps: [] }],
    },
    { title: `page.goto(${path})`, category: 'pw:api', duration: d(), steps: [] },
    {
      title: `${t.describe}: ${t.title}`,
      category: 'test.step',
      duration: d(),
      steps: [{ title: 'locator.click', category: 'pw:api', duration: d(), steps: [] }, last],
    },
    { title: 'After Hooks', category: 'hook', duration: d(), steps: [] },
  ];
}

/** One test in one browser project, as the streaming API's items (one per attempt). */
function items(t: DemoTest, project: string, run: RunPlan, rand: () => number, clock: { at: number }) {
  return attemptsOf(t, project, run, rand).map((a, retry) => {
    const duration =
      a.status === 'timedOut' ? 30_000 : a.status === 'skipped' ? 0 : Math.round(300 + rand() * (project === 'api' ? 400 : 4000));
    const startTime = new Date(clock.at).toISOString();
    clock.at += duration + 50;
    return {
      file: t.file,
      titlePath: [t.describe, t.title],
      projectName: project,
      location: { file: t.file, line: t.line, column: 3 },
      expectedStatus: t.skip ? 'skipped' : 'passed',
      status: a.status,
      duration,
      retry,
      startTime,
      workerIndex: Math.floor(rand() * 4),
      errors: a.error ? [a.error] : [],
      steps: a.status === 'skipped' ? [] : steps(t, a, rand),
      stdout: (a.stdout ?? []).map((text) => ({ text })),
      stderr: a.error ? [{ text: `[${project}] retrying after failure #${retry + 1}\n` }] : [],
      attachments: a.error
        ? [
            {
              name: 'screenshot',
              contentType: 'image/png',
              path: `test-results/${t.title.replace(/\W+/g, '-')}-${project}/test-failed-${retry + 1}.png`,
            },
          ]
        : [],
      annotations: t.skip ? [{ type: 'fixme', description: t.skip }] : [],
      tags: t.tags ?? [],
    };
  });
}

/** Ingests the demo history into `projectId` with `token` (a writer's PAT or the project's api key). */
export async function seedDemoRuns(gatewayUrl: string, token: string, projectId: string): Promise<void> {
  const api = new Api(gatewayUrl, token);
  const ingest = async (path: string, body: unknown) => {
    const res = await api.post(`/api/v1/ingest/${projectId}${path}`, body);
    if (res.status !== 200 && res.status !== 201) throw new Error(`demo ingestion ${path} answered ${res.status}: ${res.text}`);
    return res.body as { data: { runId: string } };
  };
  const rand = random(16);
  const now = Date.now();
  const RUNS = 12;
  for (let index = 0; index < RUNS; index++) {
    const feature = index % 3 === 2;
    const run: RunPlan = {
      index,
      branch: feature ? 'feature/checkout-redesign' : 'main',
      environment: !feature && index % 4 === 3 ? 'production' : 'staging',
      // Spread over the last ten days, the newest about ten minutes ago.
      startTime: new Date(now - ((RUNS - 1 - index) * (10 * 86_400_000)) / RUNS - 10 * 60_000),
    };
    const [message, author] = COMMITS[index % COMMITS.length]!;
    const metadata = {
      git: { branch: run.branch, commit: { hash: hex(rand, 40), message, author } },
      environment: run.environment,
      ci: { provider: 'github', pipelineId: String(4200 + index), buildUrl: `https://ci.example.test/shop/actions/runs/${4200 + index}` },
      tags: index % 2 === 0 ? ['nightly'] : ['pull-request'],
    };
    const clock = { at: run.startTime.getTime() };
    // One entry per test in one project (its attempts together: a batch never splits a test's retries).
    const tests = TESTS.flatMap((t) => t.projects.map((p) => items(t, p, run, rand, clock)));
    const started = await ingest('/runs', { metadata, totalTests: tests.length, startTime: run.startTime.toISOString() });
    const runId = started.data.runId;
    const last = index === RUNS - 1;
    // The newest run is still going: about half of its results are in.
    const sent = last ? tests.slice(0, Math.ceil(tests.length / 2)) : tests;
    for (let i = 0; i < sent.length; i += 10) await ingest(`/runs/${runId}/results`, { results: sent.slice(i, i + 10).flat() });
    if (!last) await ingest(`/runs/${runId}/finish`, { endTime: new Date(clock.at).toISOString() });
  }
}
