/**
 * The runs pages in a real browser against the whole system: a failing run opened from the `url` of the
 * `run.finished` webhook it caused (the path), its failures by error, a result with its error, steps,
 * retry command and failure window; the deep links of a run, a result, a spec file and a test's history answer
 * 200 text/html; the runs list's filters in the URL; a 10,000-test run's list (first rows, search, status filter);
 * the spec page and the history page; ids that do not exist. A passed result's page: no error, no notice, no section
 * left broken; a result quarantined by an action rule (made with the admin CLI, as an operator does) says so, failed
 * or passed, and its run passes. A test's history filtered to a branch without its results keeps the filter and
 * leads back (it is not "Test not found"); an offset past its results says where the history ends.
 */
import { adminCli, largePlaywrightReport, testSystem, WebhookReceiver } from '@assay/testkit';
import { api, expect, expectAccessible, test } from './support/fixtures';

const ingest = (token: string, projectId: string, report: unknown) =>
  api(token).request('POST', `/api/v1/ingest/${projectId}/playwright`, {
    rawBody: JSON.stringify(report),
    headers: { 'content-type': 'application/json' },
  });

/** `npm run admin -- rule:create …` on the test system: an action rule quarantining the tests `titlePattern` names. */
async function quarantineRule(projectId: string, titlePattern: string): Promise<void> {
  const args = ['rule:create', '--project', projectId, '--name', 'Known failures', '--operations', 'quarantine'];
  const made = await adminCli(testSystem(), [...args, '--title-pattern', titlePattern]);
  expect([made.code, made.json], made.stderr).toEqual([0, { id: expect.any(String) }]);
}

/** A small report: one passing and one failing test in `checkout.spec.ts`, on `branch`. */
function checkoutReport(branch: string, fail: boolean) {
  const report = largePlaywrightReport(2, { branch, environment: 'staging' });
  const specs = report.suites[0]!.suites[0]!.specs;
  specs[0]!.title = 'pays with a saved card';
  specs[1]!.title = 'applies a discount code';
  const second = specs[1]!.tests[0]!;
  if (fail) {
    second.status = 'unexpected';
    second.results = [
      {
        ...second.results[0]!,
        status: 'failed',
        errors: [
          {
            message: 'Error: expect(locator).toHaveText(expected)\n\nExpected: "€90.00"\nReceived: "€100.00"',
            stack: 'Error: expect(locator).toHaveText(expected)\n    at specs/feature-0.spec.ts:11:5',
            location: { file: 'specs/feature-0.spec.ts', line: 11, column: 5 },
          },
        ],
      },
    ];
  }
  return report;
}

/**
 * Two runs of the checkout report, on main (passing) and on feature/cart (its second test failing): answers the
 * address of that test's history page.
 */
async function historyOnTwoBranches(t: { token: string; projectId: string }): Promise<string> {
  expect((await ingest(t.token, t.projectId, checkoutReport('main', false))).status).toBe(201);
  const failing = await ingest(t.token, t.projectId, checkoutReport('feature/cart', true));
  expect(failing.status).toBe(201);
  const detail = await api(t.token).get(`/${t.projectId}/test-runs/${failing.body.data.runId}?include=specs`);
  const bundle = await api(t.token).get(`/${t.projectId}/debug-bundle?caseId=${detail.body.data.specs[0].tests[1].caseId}`);
  return bundle.body.data.links.history;
}

test('a failing run opened from the url of its webhook shows the failing test and its error', async ({ page, tenant, signIn }) => {
  const t = await tenant('owner');
  const receiver = await new WebhookReceiver().start();
  try {
    const created = await api(t.token).post(`/${t.projectId}/webhooks`, { url: receiver.url('/hook'), events: ['RUN_FINISHED'] });
    expect(created.status, created.text).toBe(201);
    expect((await ingest(t.token, t.projectId, checkoutReport('main', false))).status).toBe(201);
    const failing = await ingest(t.token, t.projectId, checkoutReport('main', true));
    expect(failing.status).toBe(201);
    await receiver.waitFor(() => receiver.at('/hook').length >= 2, 30_000, 'two run.finished deliveries');
    const payloads = receiver.at('/hook').map((r) => JSON.parse(r.body.toString()));
    const failed = payloads.find((p) => p.data.run.id === failing.body.data.runId);
    const url: string = failed.data.run.url;
    expect(url).toBe(failing.body.data.url);

    await signIn(page, t.userId);
    await page.goto(url);
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Run #2');
    await expect(page.getByText('failed', { exact: true }).first()).toBeVisible();
    const failures = page.getByRole('region', { name: 'Failures by error' });
    await expect(failures.getByText('Error: expect(locator).toHaveText(expected)')).toBeVisible();
    await expect(failures.getByRole('link', { name: 'Feature 0 › applies a discount code' })).toBeVisible();
    await expectAccessible(page);

    // The failing result: its error, steps, retry command and failure window.
    await failures.getByRole('link', { name: 'Feature 0 › applies a discount code' }).click();
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('applies a discount code');
    const error = page.getByRole('region', { name: 'Error' });
    await expect(error.getByText('Received: "€100.00"')).toBeVisible();
    await expect(error.getByText('specs/feature-0.spec.ts:11:5', { exact: true })).toBeVisible();
    await expect(page.getByRole('region', { name: 'Run it again' }).getByRole('code')).toContainText('npx playwright test -g');
    await expect(page.getByRole('button', { name: 'Copy command' })).toBeVisible();
    const window = page.getByRole('region', { name: 'Failure window' });
    await expect(window.getByText('Last passing:')).toBeVisible();
    await expect(window.getByRole('link', { name: 'Run #1' })).toBeVisible();
    await expect(page.getByRole('region', { name: 'Attachments' }).getByText('The reporter listed no attachments.')).toBeVisible();
    await expectAccessible(page);
    const resultUrl = page.url();

    // The deep links the API hands out are pages of the app: 200 text/html.
    const detail = await api(t.token).get(`/${t.projectId}/test-runs/${failing.body.data.runId}?include=specs`);
    const spec = detail.body.data.specs[0];
    const testCase = await api(t.token).get(`/${t.projectId}/test-cases/${spec.tests[1].caseId}`);
    const bundle = await api(t.token).get(`/${t.projectId}/debug-bundle?caseId=${spec.tests[1].caseId}`);
    for (const link of [url, spec.url, testCase.body.data.url, bundle.body.data.links.history, resultUrl]) {
      const res = await page.request.get(link);
      expect([link, res.status(), res.headers()['content-type']]).toEqual([link, 200, expect.stringContaining('text/html')]);
    }

    // The spec file page, then the test's history (two runs: passed, then failed).
    await page.goto(spec.url);
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('specs/feature-0.spec.ts');
    await expect(page.getByRole('link', { name: 'Feature 0 › pays with a saved card' })).toBeVisible();
    await expectAccessible(page);
    await page.goto(bundle.body.data.links.history);
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Feature 0 › applies a discount code');
    const timeline = page.getByRole('region', { name: 'Results by run' });
    await expect(timeline.getByRole('link', { name: 'Run #2: failed' })).toBeVisible();
    await expect(timeline.getByRole('link', { name: 'Run #1: passed' })).toBeVisible();
    await expect(page.getByText('50.0%')).toBeVisible();
    await expectAccessible(page);
  } finally {
    await receiver.close();
  }
});

test('the runs list filters by branch, status and date in the URL; a page past its end says so', async ({ page, tenant, signIn }) => {
  const t = await tenant('member');
  for (const [branch, fail] of [
    ['main', false],
    ['feature/cart', true],
    ['main', true],
  ] as const) {
    expect((await ingest(t.token, t.projectId, checkoutReport(branch, fail))).status).toBe(201);
  }
  await signIn(page, t.userId);
  await page.goto(`/projects/${t.projectId}/runs`);
  const rows = page.getByRole('table', { name: 'Runs' }).getByRole('row');
  await expect(rows).toHaveCount(4);
  await expect(rows.nth(1).getByRole('link')).toHaveText('Run #3');
  await expectAccessible(page);

  await page.getByLabel('Status').selectOption('failed');
  await expect(page).toHaveURL(/status=failed/);
  await expect(rows).toHaveCount(3);
  await page.getByLabel('Branch').fill('feature/cart');
  await page.getByRole('button', { name: 'Apply' }).click();
  await expect(page).toHaveURL(/branch=feature%2Fcart/);
  await expect(rows).toHaveCount(2);
  await expect(rows.nth(1).getByRole('link')).toHaveText('Run #2');
  // The link shows what its sender saw.
  await page.reload();
  await expect(rows).toHaveCount(2);
  await page.getByLabel('From').fill('2001-01-01');
  await page.getByRole('button', { name: 'Apply' }).click();
  await expect(page.getByText('No run matches these filters.')).toBeVisible();

  // A page past the list's end (a link typed or kept) is not an empty list: it says where the list ends, and leads back.
  await page.goto(`/projects/${t.projectId}/runs?status=failed&page=3`);
  await expect(page.getByText('Nothing on page 3: the list ends at page 1.')).toBeVisible();
  await expect(page.getByText('No run matches these filters.')).toHaveCount(0);
  await expectAccessible(page);
  await page.getByRole('button', { name: 'Go to the first page' }).click();
  await expect(page).not.toHaveURL(/[?&]page=/);
  await expect(page).toHaveURL(/[?&]status=failed(&|$)/);
  await expect(rows).toHaveCount(3);
});

test("Apply keeps the focus on what was pressed; the filters' fields show the address's values, after a link or Back", async ({
  page,
  tenant,
  signIn,
}) => {
  const t = await tenant('member');
  const historyPage = await historyOnTwoBranches(t);
  await signIn(page, t.userId);
  await page.goto(`/projects/${t.projectId}/runs`);
  const rows = page.getByRole('table', { name: 'Runs' }).getByRole('row');
  await expect(rows).toHaveCount(3);
  const filters = page.getByRole('search', { name: 'Filter runs' });
  const [branch, environment, status, apply] = [
    filters.getByLabel('Branch'),
    filters.getByLabel('Environment'),
    filters.getByLabel('Status'),
    filters.getByRole('button', { name: 'Apply' }),
  ];
  await status.selectOption('failed');
  await expect(rows).toHaveCount(2);

  // Apply pressed with the keyboard: the focus stays on it, the field shows the value the list uses (trimmed), and
  // the status chosen before stays chosen.
  await branch.fill('  feature/cart ');
  await apply.focus();
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/[?&]branch=feature%2Fcart(&|$)/);
  await expect(apply).toBeFocused();
  await expect(branch).toHaveValue('feature/cart');
  await expect(status).toHaveValue('failed');
  await expect(rows).toHaveCount(2);

  // Enter in a field: the focus stays in it.
  await environment.fill('nowhere');
  await environment.press('Enter');
  await expect(page.getByText('No run matches these filters.')).toBeVisible();
  await expect(environment).toBeFocused();

  // The navigation's link to the list without filters (the same page, another query): the fields empty.
  await page.getByRole('navigation', { name: 'Project' }).getByRole('link', { name: 'Runs', exact: true }).click();
  await expect(page).not.toHaveURL(/[?&](branch|environment|status)=/);
  await expect(rows).toHaveCount(3);
  await expect(branch).toHaveValue('');
  await expect(environment).toHaveValue('');
  await expect(status).toHaveValue('');
  // Back: the filters as they were.
  await page.goBack();
  await expect(page).toHaveURL(/[?&]environment=nowhere(&|$)/);
  await expect(environment).toHaveValue('nowhere');
  await expect(branch).toHaveValue('feature/cart');

  // A draft typed in a field survives a change of the status (applied at once), as before.
  await branch.fill('main');
  await status.selectOption('');
  await expect(page).not.toHaveURL(/[?&]status=/);
  await expect(branch).toHaveValue('main');

  // A test's history: Apply keeps the focus too.
  await page.goto(historyPage);
  const timeline = page.getByRole('region', { name: 'Results by run' });
  await expect(timeline.getByRole('link')).toHaveCount(2);
  const history = page.getByRole('search', { name: 'Filter the history' });
  await history.getByLabel('Branch').fill(' main');
  await history.getByRole('button', { name: 'Apply' }).focus();
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/[?&]branch=main(&|$)/);
  await expect(timeline.getByRole('link')).toHaveCount(1);
  await expect(history.getByRole('button', { name: 'Apply' })).toBeFocused();
  await expect(history.getByLabel('Branch')).toHaveValue('main');
});

test('a run of 10,000 tests lists them, searches and filters them', async ({ page, tenant, signIn }) => {
  test.setTimeout(180_000);
  const t = await tenant('member');
  const res = await ingest(t.token, t.projectId, largePlaywrightReport(10_000));
  expect(res.status, res.text).toBe(201);
  await signIn(page, t.userId);
  await page.goto(res.body.data.url);
  const list = page.getByRole('region', { name: 'Tests of the run (scrolls)' });
  await expect(list.getByRole('link', { name: 'Feature 0 › test number 0', exact: true })).toBeVisible();
  await expect(page.getByText('10,000 tests')).toBeVisible();
  // Only the rows in view are in the document.
  expect(await list.getByRole('row').count()).toBeLessThan(100);
  await page.getByRole('searchbox', { name: 'Search' }).fill('test number 9999');
  await expect(page.getByText('1 of 10,000 tests')).toBeVisible();
  await expect(list.getByRole('link', { name: 'Feature 99 › test number 9999' })).toBeVisible();
  await page.getByRole('searchbox', { name: 'Search' }).fill('');
  await page.getByRole('combobox', { name: /^Status/ }).selectOption('failed');
  await expect(page.getByText('200 of 10,000 tests')).toBeVisible();
  await expect(page).toHaveURL(/status=failed/);
  // The keyboard reaches the list and scrolls it. Chromium scrolls on its compositor, which on a loaded machine may
  // still hold the frame where the list had one row and nothing to scroll: the key then goes to the page (CI saw it
  // once). A second End is what a user would press; a list the keyboard cannot scroll still fails.
  await list.focus();
  await expect(async () => {
    await page.keyboard.press('End');
    await expect(list.getByRole('link', { name: 'Feature 99 › test number 9957' })).toBeVisible({ timeout: 2_000 });
  }).toPass({ timeout: 15_000 });
});

test('a run, a spec file, a result or a test that does not exist shows the not-found state', async ({ page, tenant, signIn }) => {
  const t = await tenant('member');
  const run = await ingest(t.token, t.projectId, checkoutReport('main', false));
  expect(run.status).toBe(201);
  await signIn(page, t.userId);
  const missing = 'f'.repeat(24);
  await page.goto(`/projects/${t.projectId}/runs/${missing}`);
  await expect(page.getByRole('alert')).toContainText('Run not found.');
  await page.goto(`/projects/${t.projectId}/runs/${run.body.data.runId}/specs/${missing}`);
  await expect(page.getByRole('alert')).toContainText('Spec file not found.');
  await expect(page.getByRole('alert').getByRole('link')).toHaveText('Run #1');
  await page.goto(`/projects/${t.projectId}/runs/${missing}/test-cases/${missing}`);
  await expect(page.getByRole('alert')).toContainText('Test result not found.');
  await page.goto(`/projects/${t.projectId}/tests/${missing}`);
  await expect(page.getByRole('alert')).toContainText('Test not found.');
  await expectAccessible(page);
});

test('a passed result: no error block, no quarantine notice, and no section left empty or broken', async ({ page, tenant, signIn }) => {
  const t = await tenant('member');
  const run = await ingest(t.token, t.projectId, checkoutReport('main', false));
  expect(run.status).toBe(201);
  await signIn(page, t.userId);
  await page.goto(run.body.data.url);
  await page
    .getByRole('region', { name: 'Tests of the run (scrolls)' })
    .getByRole('link', { name: 'Feature 0 › pays with a saved card' })
    .click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('pays with a saved card');
  const main = page.getByRole('main');
  await expect(main.getByRole('region', { name: 'Error' })).toHaveText(/^Error\s*No error: this test did not fail\.$/);
  await expect(main.getByText('Stack trace')).toHaveCount(0);
  await expect(main.getByText(/quarantined/i)).toHaveCount(0);
  await expect(main.getByRole('region', { name: 'Attempts' })).toContainText('Attempt 1 · passed');
  await expect(main.getByRole('region', { name: 'Run it again' }).getByRole('code')).toContainText('npx playwright test -g');
  await expect(main.getByRole('list', { name: 'Result facts' })).toContainText('(stability 100.0% over 1 run)');
  // Every section says something beyond its heading, and nothing reads as a value that is missing.
  for (const name of ['Error', 'Run it again', 'Steps', 'Attempts', 'Failure window', 'Attachments']) {
    const text = await main.getByRole('region', { name }).innerText();
    expect(text.slice(name.length).trim(), `the section ${name}`).not.toBe('');
  }
  await expect(main).not.toContainText(/undefined|NaN|null|Invalid Date/);
  await expectAccessible(page);
});

test('a result quarantined by a rule says so, failed or passed; its failing run passes', async ({ page, tenant, signIn }) => {
  const t = await tenant('member');
  await quarantineRule(t.projectId, 'applies a discount code$');
  const failing = await ingest(t.token, t.projectId, checkoutReport('main', true));
  expect(failing.status).toBe(201);
  await signIn(page, t.userId);
  await page.goto(failing.body.data.url);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Run #1');
  expect(failing.body.data.status).toBe('passed');
  // The run's status is the first status the page shows, under its title.
  await expect(page.getByText(/^(passed|failed)$/).first()).toHaveText('passed');
  const list = page.getByRole('region', { name: 'Tests of the run (scrolls)' });
  await expect(list.getByRole('row', { name: /applies a discount code/ })).toContainText('quarantined');
  await expect(list.getByRole('row', { name: /pays with a saved card/ })).not.toContainText('quarantined');

  await list.getByRole('link', { name: 'Feature 0 › applies a discount code' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('applies a discount code');
  await expect(page.getByText('Quarantined: this failure does not fail the run.')).toBeVisible();
  await expect(page.getByRole('region', { name: 'Error' }).getByText('Received: "€100.00"')).toBeVisible();
  await expectAccessible(page);

  // The same test passing in the next run is still quarantined, but there is no failure to speak of.
  const passing = await ingest(t.token, t.projectId, checkoutReport('main', false));
  expect(passing.status).toBe(201);
  await page.goto(passing.body.data.url);
  await page
    .getByRole('region', { name: 'Tests of the run (scrolls)' })
    .getByRole('link', { name: 'Feature 0 › applies a discount code' })
    .click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('applies a discount code');
  await expect(page.getByRole('region', { name: 'Error' })).toContainText('No error: this test did not fail.');
  await expect(page.getByText('Quarantined: if this test fails, its failure does not fail the run.')).toBeVisible();
  await expectAccessible(page);
});

test("a test's history: a branch without its results keeps the filter and leads back; so does an offset past its end", async ({
  page,
  tenant,
  signIn,
}) => {
  const t = await tenant('member');
  const history = await historyOnTwoBranches(t);

  await signIn(page, t.userId);
  await page.goto(history);
  const timeline = page.getByRole('region', { name: 'Results by run' });
  await expect(timeline.getByRole('link')).toHaveCount(2);
  await page.getByLabel('Branch').fill('feature/cart');
  await page.getByRole('button', { name: 'Apply' }).click();
  await expect(page).toHaveURL(/[?&]branch=feature%2Fcart/);
  await expect(timeline.getByRole('link')).toHaveText(['#2']);

  // A branch (mistyped, or without this test) is not a test that does not exist: the page keeps the filter as typed.
  await page.getByLabel('Branch').fill('feature/kart');
  await page.getByRole('button', { name: 'Apply' }).click();
  await expect(page.getByRole('alert')).toContainText('No result on branch feature/kart.');
  await expect(page.getByText('Test not found.')).toHaveCount(0);
  await expect(page.getByLabel('Branch')).toHaveValue('feature/kart');
  await expectAccessible(page);
  await page.getByRole('button', { name: 'Show every branch' }).click();
  await expect(page).not.toHaveURL(/[?&]branch=/);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Feature 0 › applies a discount code');
  await expect(timeline.getByRole('link')).toHaveText(['#2', '#1']);

  // An offset past the results (a link kept while older runs were deleted) says where the history ends, and leads
  // back.
  await page.goto(`${history}?offset=100`);
  await expect(page.getByRole('alert')).toContainText('Nothing past result 2: the history of this test ends there.');
  await expectAccessible(page);
  await page.getByRole('button', { name: 'Go to the newest results' }).click();
  await expect(page).not.toHaveURL(/[?&]offset=/);
  await expect(timeline.getByRole('link')).toHaveText(['#2', '#1']);
});
