/**
 * Every deep link with an id that is not there, in a real browser, for a signed-in member: each page that takes an
 * id opened with a well-formed id that does not exist, with a malformed one (`nope`, a space, 300 characters) and
 * with the id of another organization's record; each project page with a project id of those three kinds; an
 * unknown path inside a project and an unknown top-level path. Each says what is missing in words, leads back, shows
 * no validator text, no blank page and no spinner left turning; another organization's record reads exactly as one
 * that does not exist (the API does not tell them apart).
 */
import { largePlaywrightReport } from '@assay/testkit';
import type { Page } from '@playwright/test';
import { api, created, expect, expectAccessible, test } from './support/fixtures';

/** A well-formed id (24 hex characters, as the API's) that names nothing. */
const MISSING = '0123456789abcdef01234567';
const MALFORMED = ['nope', '%20', 'x'.repeat(300)];

/** A run sent the way a CI job sends it (two tests in one spec file), into `t`'s project; answers its id. */
async function ingestRun(t: { token: string; projectId: string }): Promise<string> {
  const res = await api(t.token).request('POST', `/api/v1/ingest/${t.projectId}/playwright`, {
    rawBody: JSON.stringify(largePlaywrightReport(2)),
    headers: { 'content-type': 'application/json' },
  });
  expect(res.status, res.text).toBe(201);
  return res.body.data.runId;
}

/** Everything a page takes an id of, made in `t`'s project (its user an owner) through the public API. */
async function arrange(t: { token: string; projectId: string }) {
  const a = api(t.token);
  const P = `/${t.projectId}`;
  const run = await ingestRun(t);
  const spec = (await a.get(`${P}/test-runs/${run}?include=specs`)).body.data.specs[0];
  const result: string = spec.tests[0].caseId;
  const history: string = (await a.get(`${P}/debug-bundle?caseId=${result}`)).body.data.links.history;
  const suite = await created(a.post(`${P}/manual-test-suites`, { name: 'Checkout' }));
  const testCase = await created(a.post(`${P}/manual-test-cases`, { title: 'Pay by invoice', suiteId: suite._id }));
  const manualRun = await created(a.post(`${P}/manual-runs`, { name: 'Regression', selectionMode: 'selected', suiteIds: [suite._id] }));
  const report = await a.post(`${P}/reports`, { days: 7 });
  expect(report.status, report.text).toBe(202);
  return {
    run,
    spec: spec.id as string,
    result,
    test: history.split('/').pop()!,
    testCase: testCase._id as string,
    release: (await created(a.post(`${P}/releases`, { name: '1.0.0' })))._id as string,
    session: (await created(a.post(`${P}/sessions`, { name: 'Tour the invoices' })))._id as string,
    manualRun: manualRun._id as string,
    webhook: (await created(a.post(`${P}/webhooks`, { url: 'https://hooks.example.com/assay', events: ['RUN_FINISHED'] })))._id as string,
    report: report.body.data.reportId as string,
  };
}
type Ids = Awaited<ReturnType<typeof arrange>>;

/**
 * The pages that take an id, and what each says when its record is not there: `says` in words, `back` the link out.
 * `path` puts the id under test (`id`) in the member's project, under the member's own run where the page needs one.
 */
const RECORDS: { kind: keyof Ids; path: (id: string, run: string) => string; says: string; back: string }[] = [
  { kind: 'run', path: (id) => `runs/${id}`, says: 'Run not found.', back: 'All runs' },
  { kind: 'spec', path: (id, run) => `runs/${run}/specs/${id}`, says: 'Spec file not found.', back: 'Run #1' },
  { kind: 'result', path: (id, run) => `runs/${run}/test-cases/${id}`, says: 'Test result not found.', back: 'Back to the run' },
  { kind: 'test', path: (id) => `tests/${id}`, says: 'Test not found.', back: 'All runs' },
  { kind: 'testCase', path: (id) => `manual-test-cases/${id}`, says: 'Test case not found', back: 'Back to test cases' },
  { kind: 'release', path: (id) => `releases/${id}`, says: 'Release not found', back: 'Back to releases' },
  { kind: 'session', path: (id) => `sessions/${id}`, says: 'Session not found', back: 'Back to sessions' },
  { kind: 'manualRun', path: (id) => `manual-runs/${id}`, says: 'Manual run not found', back: 'Back to manual runs' },
  { kind: 'webhook', path: (id) => `webhooks/${id}`, says: 'Webhook not found.', back: 'All webhooks' },
  { kind: 'report', path: (id) => `reports/${id}`, says: 'Report not found.', back: 'Generate a report' },
];

/** The API's words for a project that does not exist or that the user's organizations do not hold. */
const NO_PROJECT = 'Project not found or not accessible to your account';

/** Every page of a project (the project id is the only id in its path). */
const PROJECT_PAGES = [
  '',
  '/runs',
  '/analytics',
  '/analytics/performance',
  '/test-case-explorer',
  '/specs',
  '/manual-test-cases',
  '/manual-test-cases/new',
  '/releases',
  '/sessions',
  '/manual-runs',
  '/webhooks',
  '/reports',
];

/**
 * Opens `url` and checks what the page shows once it has settled: `says` in words and a link named `back`, nothing
 * still loading, no validator's or programmer's words. Answers the text of the page's main region.
 */
async function opened(page: Page, url: string, says: string | RegExp, back: string): Promise<string> {
  await page.goto(url);
  const main = page.getByRole('main');
  await expect.soft(main.getByText(says, { exact: false }).first(), url).toBeVisible();
  await expect.soft(main.getByRole('link', { name: back, exact: true }).first(), url).toBeVisible();
  await expect.soft(main.getByText(/Loading/), url).toHaveCount(0);
  const text = await main.innerText();
  expect.soft(text, url).not.toMatch(/must match|must NOT|pattern|params\.|path\.\w+:|undefined|\[object|NaN|Internal|500/);
  return text;
}

test('an id that does not exist, on every page that takes one: the page says what is missing and leads back', async ({
  page,
  tenant,
  signIn,
}) => {
  test.setTimeout(120_000);
  const t = await tenant('member');
  const run = await ingestRun(t);
  await signIn(page, t.userId);
  for (const r of RECORDS) await opened(page, `/projects/${t.projectId}/${r.path(MISSING, run)}`, r.says, r.back);
  await expectAccessible(page);
});

test("a result linked under another run's id, or a run that does not exist, opens under its own run", async ({ page, tenant, signIn }) => {
  const t = await tenant('member');
  const run = await ingestRun(t);
  const other = await ingestRun(t);
  const result: string = (await api(t.token).get(`/${t.projectId}/test-runs/${run}?include=specs`)).body.data.specs[0].tests[0].caseId;
  await signIn(page, t.userId);
  for (const wrong of [other, MISSING]) {
    await page.goto(`/projects/${t.projectId}/runs/${wrong}/test-cases/${result}`);
    await expect(page).toHaveURL(new RegExp(`/projects/${t.projectId}/runs/${run}/test-cases/${result}$`));
    await expect(page.getByRole('alert')).toHaveCount(0);
    await expect(page.locator('.facts').getByRole('link', { name: /^Run #1\b/ })).toHaveAttribute(
      'href',
      `/projects/${t.projectId}/runs/${run}`,
    );
  }
});

test('a malformed id (nope, a space, 300 characters) reads as not found, never in the validator’s words', async ({
  page,
  tenant,
  signIn,
}) => {
  test.setTimeout(180_000);
  const t = await tenant('member');
  const run = await ingestRun(t);
  await signIn(page, t.userId);
  for (const r of RECORDS) {
    for (const id of MALFORMED) await opened(page, `/projects/${t.projectId}/${r.path(id, run)}`, r.says, r.back);
  }
});

test('another organization’s record reads exactly as one that does not exist', async ({ page, tenant, signIn }) => {
  test.setTimeout(180_000);
  const t = await tenant('member');
  const run = await ingestRun(t);
  const other = await arrange(await tenant('owner'));
  await signIn(page, t.userId);
  for (const r of RECORDS) {
    const base = `/projects/${t.projectId}/`;
    const missing = await opened(page, base + r.path(MISSING, run), r.says, r.back);
    const foreign = await opened(page, base + r.path(other[r.kind], run), r.says, r.back);
    expect.soft(foreign, `${r.kind} of another organization`).toBe(missing);
  }
});

test('a project id that does not exist, is malformed or is another organization’s: every project page says so', async ({
  page,
  tenant,
  signIn,
}) => {
  test.setTimeout(180_000);
  const t = await tenant('member');
  const other = await tenant('owner');
  await signIn(page, t.userId);
  for (const suffix of PROJECT_PAGES) {
    const missing = await opened(page, `/projects/${MISSING}${suffix}`, NO_PROJECT, 'Go to your projects');
    for (const id of ['nope', 'x'.repeat(300)]) await opened(page, `/projects/${id}${suffix}`, /not found/i, 'Go to your projects');
    const foreign = await opened(page, `/projects/${other.projectId}${suffix}`, NO_PROJECT, 'Go to your projects');
    expect.soft(foreign, `${suffix} of another organization's project`).toBe(missing);
  }
});

test('an unknown path inside a project, or anywhere, shows the not-found page with a way back', async ({ page, tenant, signIn }) => {
  const t = await tenant('member');
  await signIn(page, t.userId);
  for (const url of [`/projects/${t.projectId}/nothing`, '/projects/x/nothing', '/nothing/at/all']) {
    await opened(page, url, 'Page not found', 'Go to your projects');
  }
  await expectAccessible(page);
});
