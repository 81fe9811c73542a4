/**
 * The dashboard and the analytics pages in a real browser over runs ingested through the API and folded by the
 * analytics service (from Kafka): figures, charts, top lists linking to a test's history, the window and the
 * explorer's filters in the URL, the performance list's pages and search, spec health; an empty project's empty
 * states. The explorer's sort: each key and order seen in the rows, kept in the URL. The window switch over a run
 * 20 days old (counted over 30 and 90 days, not 7; the explorer's filter kept); the performance list's search
 * without a match and a page past its end.
 */
import { largePlaywrightReport, resultItem } from '@assay/testkit';
import { detail, expect, expectAccessible, test } from './support/fixtures';
import { folded, ingestInto } from './support/ingest';

test('dashboard, summary, performance, explorer and spec health over two runs', async ({ page, tenant, signIn }) => {
  test.setTimeout(120_000);
  const t = await tenant('member');
  for (let i = 0; i < 2; i++) {
    expect((await ingestInto(t)('/playwright', largePlaywrightReport(100))).status).toBe(201);
  }
  await folded(t, 2, 7);

  await signIn(page, t.userId);
  await page.goto(`/projects/${t.projectId}`);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Dashboard');
  const figures = page.getByRole('definition');
  await expect(figures.first()).toHaveText('2');
  await expect(page.getByRole('figure', { name: /Runs by status: 0 passed, 2 failed/ })).toBeVisible();
  const flaky = page.getByRole('table', { name: 'Most flaky tests' });
  await expect(flaky.getByRole('link', { name: 'Feature 0 › test number 3' })).toBeVisible();
  // A test is named with its file and Playwright project (the same title runs in every project).
  await expect(flaky.getByRole('row', { name: /Feature 0 › test number 3/ })).toContainText('specs/feature-0.spec.ts · chromium');
  await expect(page.getByText('No run is running.')).toBeVisible();
  await expectAccessible(page);

  await page
    .getByRole('navigation', { name: /project/i })
    .getByRole('link', { name: 'Summary' })
    .click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Analytics');
  await page.getByRole('link', { name: 'Last 7 days' }).click();
  await expect(page).toHaveURL(/days=7/);
  await expect(
    page.getByRole('table', { name: 'Most failing tests' }).getByRole('link', { name: 'Feature 0 › test number 7' }),
  ).toBeVisible();
  await expect(page.getByRole('table', { name: 'By branch' })).toContainText('main');
  await expectAccessible(page);

  await page.goto(`/projects/${t.projectId}/analytics/performance`);
  const perf = page.getByRole('table', { name: 'Duration percentiles by test' });
  await expect(perf.getByRole('row')).toHaveCount(51);
  // 50 tests a page: the second page has the rest, and the URL keeps the page.
  const total = Number(
    (await page
      .getByRole('status')
      .filter({ hasText: / tests$/ })
      .textContent())!.replace(/\D/g, ''),
  );
  expect(total).toBeGreaterThan(50);
  expect(total).toBeLessThanOrEqual(100);
  const pages = page.getByRole('navigation', { name: 'Pages' });
  await expect(pages).toContainText('Page 1 of 2');
  await expect(pages.getByRole('button', { name: 'Previous' })).toBeDisabled();
  const first = await perf.getByRole('link').allTextContents();
  await pages.getByRole('button', { name: 'Next' }).click();
  await expect(pages).toContainText('Page 2 of 2');
  await expect(page).toHaveURL(/[?&]page=2/);
  await expect(pages.getByRole('button', { name: 'Next' })).toBeDisabled();
  await expect(perf.getByRole('row')).toHaveCount(total - 50 + 1);
  const second = await perf.getByRole('link').allTextContents();
  expect(new Set([...first, ...second]).size).toBe(total);
  await pages.getByRole('button', { name: 'Previous' }).click();
  await expect(pages).toContainText('Page 1 of 2');
  await page.getByRole('searchbox', { name: 'Search' }).fill('test number 42');
  await expect(perf.getByRole('row')).toHaveCount(2);
  await expect(page).toHaveURL(/q=test\+number\+42/);
  await expectAccessible(page);

  await page.goto(`/projects/${t.projectId}/test-case-explorer`);
  await page.getByLabel('Health').selectOption('flaky');
  await expect(page).toHaveURL(/status=flaky/);
  // The unfiltered list stays shown (busy) until the flaky one comes: then only the flaky tests.
  await expect(page.locator('[aria-busy="true"]')).toHaveCount(0);
  const explorer = page.getByRole('table', { name: 'Tests' });
  await expect(explorer.getByRole('link', { name: 'Feature 0 › test number 3', exact: true })).toBeVisible();
  await expect(explorer.getByRole('link', { name: 'Feature 0 › test number 7', exact: true })).toHaveCount(0);
  await expectAccessible(page);
  await explorer.getByRole('link', { name: 'Feature 0 › test number 3', exact: true }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Feature 0 › test number 3');
  await expect(page.getByText('specs/feature-0.spec.ts · chromium')).toBeVisible();

  await page.goto(`/projects/${t.projectId}/specs`);
  await expect(page.getByRole('table', { name: 'Spec files' }).getByRole('row', { name: /specs\/feature-0\.spec\.ts/ })).toContainText(
    '100',
  );
  await expectAccessible(page);
});

test('a project without runs shows empty states', async ({ page, tenant, signIn }) => {
  const t = await tenant('viewer');
  await signIn(page, t.userId);
  await page.goto(`/projects/${t.projectId}`);
  await expect(page.getByText('No runs in the last 30 days.')).toBeVisible();
  await expectAccessible(page);
  await page.goto(`/projects/${t.projectId}/analytics`);
  await expect(page.getByText('No runs in the last 30 days.')).toBeVisible();
  await page.goto(`/projects/${t.projectId}/analytics/performance?days=90`);
  await expect(page.getByText('No test ran in the last 90 days.')).toBeVisible();
  await page.goto(`/projects/${t.projectId}/specs`);
  await expect(page.getByText('No spec file ran in the last 30 days.')).toBeVisible();
});

test('the dashboard shows a running run with its results as they stream in, until it finishes', async ({ page, tenant, signIn }) => {
  test.setTimeout(60_000);
  const t = await tenant('member');
  const ingest = ingestInto(t);
  const result = (title: string, status: 'passed' | 'failed') => resultItem('cart.spec.ts', ['cart', title], status);
  const started = await ingest('/runs', {
    metadata: { git: { branch: 'feature/live', commit: { hash: 'abc123', message: 'wip', author: 'Ada' } }, environment: 'staging' },
  });
  expect(started.status).toBe(201);
  const runId = started.body.data.runId;
  expect((await ingest(`/runs/${runId}/results`, { results: [result('adds', 'passed'), result('removes', 'failed')] })).status).toBe(200);

  await signIn(page, t.userId);
  await page.goto(`/projects/${t.projectId}`);
  const running = page.getByRole('region', { name: 'Running now' });
  await expect(running.getByRole('link', { name: `Run #${started.body.data.counter}` })).toBeVisible();
  await expect(running).toContainText('feature/live');
  await expect(running).toContainText('1 passed, 1 failed of 2');
  await expectAccessible(page);

  // The page asks again while a run runs: the next result shows without a reload, and the finish empties the list.
  expect((await ingest(`/runs/${runId}/results`, { results: [result('empties', 'passed')] })).status).toBe(200);
  await expect(running).toContainText('2 passed, 1 failed of 3', { timeout: 15_000 });
  expect((await ingest(`/runs/${runId}/finish`, {})).status).toBe(200);
  await expect(running).toContainText('No run is running.', { timeout: 15_000 });
});

test("the explorer's sort: by runs, failure rate, flaky rate and p95, highest or lowest first, in the URL", async ({
  page,
  tenant,
  signIn,
}) => {
  test.setTimeout(120_000);
  const t = await tenant('member');
  const ingest = ingestInto(t);
  // Four tests over four runs, each key ordering them differently (and none alphabetically):
  //   test              runs  failed       flaky        duration
  //   opens the cart    4     1 (25%)      3 (75%)      100 ms
  //   pays by card      3     2 (67%)      1 (33%)      800 ms
  //   applies a coupon  2     0            1 (50%)       20 ms
  //   ships abroad      1     1 (100%)     0            400 ms
  const DURATION: Record<string, number> = { 'opens the cart': 100, 'pays by card': 800, 'applies a coupon': 20, 'ships abroad': 400 };
  const outcome = (title: string, how: 'passed' | 'failed' | 'flaky') => {
    const item = (status: 'passed' | 'failed', retry: number) =>
      resultItem('checkout.spec.ts', ['checkout', title], status, { retry, duration: DURATION[title] });
    return how === 'flaky' ? [item('failed', 0), item('passed', 1)] : [item(how, 0)];
  };
  const runs: [string, 'passed' | 'failed' | 'flaky'][][] = [
    [
      ['opens the cart', 'failed'],
      ['pays by card', 'failed'],
      ['applies a coupon', 'passed'],
      ['ships abroad', 'failed'],
    ],
    [
      ['opens the cart', 'flaky'],
      ['pays by card', 'failed'],
      ['applies a coupon', 'flaky'],
    ],
    [
      ['opens the cart', 'flaky'],
      ['pays by card', 'flaky'],
    ],
    [['opens the cart', 'flaky']],
  ];
  for (const tests of runs) {
    const started = await ingest('/runs', { metadata: { git: { branch: 'main' } } });
    expect(started.status, started.text).toBe(201);
    const runId = started.body.data.runId;
    expect((await ingest(`/runs/${runId}/results`, { results: tests.flatMap(([title, how]) => outcome(title, how)) })).status).toBe(200);
    expect((await ingest(`/runs/${runId}/finish`, {})).status).toBe(200);
  }
  await folded(t, 4, 7);

  await signIn(page, t.userId);
  await page.goto(`/projects/${t.projectId}/test-case-explorer`);
  const names = page.getByRole('table', { name: 'Tests' }).getByRole('link');
  const titles = (...order: string[]) => order.map((title) => `checkout › ${title}`);
  // Unsorted: the most runs first.
  await expect(names).toHaveText(titles('opens the cart', 'pays by card', 'applies a coupon', 'ships abroad'));
  const highestFirst: [string, string, string[]][] = [
    ['Runs', 'executions', titles('opens the cart', 'pays by card', 'applies a coupon', 'ships abroad')],
    ['Failure rate', 'failure_rate', titles('ships abroad', 'pays by card', 'opens the cart', 'applies a coupon')],
    ['Flaky rate', 'flaky_rate', titles('opens the cart', 'applies a coupon', 'pays by card', 'ships abroad')],
    ['p95 duration', 'p95_duration', titles('pays by card', 'ships abroad', 'opens the cart', 'applies a coupon')],
  ];
  const sortBy = page.getByLabel('Sort by');
  const order = page.getByLabel('Order');
  for (const [label, key, expected] of highestFirst) {
    await sortBy.selectOption({ label });
    await order.selectOption({ label: 'Highest first' });
    await expect(page).toHaveURL(new RegExp(`[?&]sortBy=${key}&order=desc$`));
    await expect(names, `${label}, highest first`).toHaveText(expected);
    await order.selectOption({ label: 'Lowest first' });
    await expect(page).toHaveURL(new RegExp(`[?&]sortBy=${key}&order=asc$`));
    await expect(names, `${label}, lowest first`).toHaveText([...expected].reverse());
  }
  await expectAccessible(page);
  // The link shows what its sender saw.
  await page.reload();
  await expect(sortBy).toHaveValue('p95_duration');
  await expect(order).toHaveValue('asc');
  await expect(names).toHaveText(titles('applies a coupon', 'opens the cart', 'ships abroad', 'pays by card'));
});

test('the window switch: a run 20 days old counts over 30 and 90 days, not over 7; the explorer keeps its filter', async ({
  page,
  tenant,
  signIn,
}) => {
  test.setTimeout(120_000);
  const t = await tenant('member');
  const ingest = ingestInto(t);
  // A reporter sends when its run started: one run 20 days ago (a failure), one today (a pass).
  for (const [daysAgo, title, status] of [
    [20, 'ships abroad', 'failed'],
    [0, 'opens the cart', 'passed'],
  ] as const) {
    const startTime = new Date(Date.now() - daysAgo * 86_400_000 - 600_000);
    const started = await ingest('/runs', { metadata: { git: { branch: 'main' } }, startTime: startTime.toISOString() });
    expect(started.status, started.text).toBe(201);
    const runId = started.body.data.runId;
    const result = resultItem('checkout.spec.ts', ['checkout', title], status, { startTime: startTime.toISOString() });
    expect((await ingest(`/runs/${runId}/results`, { results: [result] })).status).toBe(200);
    const endTime = new Date(startTime.getTime() + 60_000).toISOString();
    expect((await ingest(`/runs/${runId}/finish`, { endTime })).status).toBe(200);
  }
  await folded(t, 2, 30);

  await signIn(page, t.userId);
  await page.goto(`/projects/${t.projectId}/analytics`);
  const window = page.getByRole('navigation', { name: 'Window' });
  const failing = page.getByRole('table', { name: 'Most failing tests' });
  await expect(window.getByRole('link', { name: 'Last 30 days' })).toHaveAttribute('aria-current', 'page');
  await expect(detail(page, 'Runs')).toHaveText('2');
  await expect(failing.getByRole('link', { name: 'checkout › ships abroad' })).toBeVisible();

  await window.getByRole('link', { name: 'Last 7 days' }).click();
  await expect(page).toHaveURL(/[?&]days=7$/);
  await expect(window.getByRole('link', { name: 'Last 7 days' })).toHaveAttribute('aria-current', 'page');
  await expect(detail(page, 'Runs')).toHaveText('1');
  await expect(detail(page, 'Pass rate')).toHaveText('100.0%');
  await expect(page.getByText('No failing test.')).toBeVisible();
  await expectAccessible(page);
  await window.getByRole('link', { name: 'Last 90 days' }).click();
  await expect(page).toHaveURL(/[?&]days=90$/);
  await expect(detail(page, 'Runs')).toHaveText('2');
  await expect(failing.getByRole('link', { name: 'checkout › ships abroad' })).toBeVisible();

  // The explorer: a window switch keeps the health filter, and an empty window says which tests it looked for.
  await page.goto(`/projects/${t.projectId}/test-case-explorer?status=failing`);
  const tests = page.getByRole('table', { name: 'Tests' });
  await expect(tests.getByRole('link')).toHaveText(['checkout › ships abroad']);
  await window.getByRole('link', { name: 'Last 7 days' }).click();
  await expect(page).toHaveURL(/[?&]status=failing&days=7$/);
  await expect(page.getByLabel('Health')).toHaveValue('failing');
  await expect(page.getByText('No failing test in the last 7 days.')).toBeVisible();
  await expectAccessible(page);
});

test("the performance list: a search without a match says so; a page past the list's end says where it ends", async ({
  page,
  tenant,
  signIn,
}) => {
  test.setTimeout(120_000);
  const t = await tenant('member');
  expect((await ingestInto(t)('/playwright', largePlaywrightReport(3))).status).toBe(201);
  await folded(t, 1, 7);

  await signIn(page, t.userId);
  await page.goto(`/projects/${t.projectId}/analytics/performance`);
  const perf = page.getByRole('table', { name: 'Duration percentiles by test' });
  await expect(perf.getByRole('link')).toHaveCount(3);
  await page.getByRole('searchbox', { name: 'Search' }).fill('no such test');
  await expect(page.getByText('No test matches this search.')).toBeVisible();
  await expect(page.getByRole('searchbox', { name: 'Search' })).toHaveValue('no such test');
  await expectAccessible(page);
  await page.getByRole('searchbox', { name: 'Search' }).fill('');
  await expect(perf.getByRole('link')).toHaveCount(3);

  // A link to page 3 kept while the list shrank (or typed): not an empty table, but where the list ends, and the way
  // back.
  await page.goto(`/projects/${t.projectId}/analytics/performance?page=3`);
  await expect(page.getByText('Nothing on page 3: the list ends at page 1.')).toBeVisible();
  await expect(page.getByText('Page 3 of 1')).toHaveCount(0);
  await expectAccessible(page);
  await page.getByRole('button', { name: 'Go to the first page' }).click();
  await expect(page).not.toHaveURL(/[?&]page=/);
  await expect(perf.getByRole('link')).toHaveCount(3);
});
