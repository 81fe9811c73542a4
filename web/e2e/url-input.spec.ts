/**
 * What people put in the address bar, in a real browser: every page that keeps its filters, page and selection in
 * the URL, opened with values it does not expect (a page of 0, -1, 1.5, abc or 99999999999, a page size of 7 or
 * 1000, unknown statuses, sorts and windows, garbage or reversed dates, a key given twice, text with spaces, `%`,
 * `+`, an emoji or 10,000 characters, the id of a case or suite that is not there). Each page reads them sensibly:
 * no read the API refuses, no validator wording, no console error, no spinner left turning, no request loop.
 */
import { testAdmin, type Tenant } from '@assay/testkit';
import { expect, test } from './support/fixtures';
import { arrange, watch } from './support/url-pages';

/** A well-formed id (24 hex characters, as the API's) that names nothing. */
const MISSING = '0123456789abcdef01234567';
const LONG = 'x'.repeat(10_000);
const ODD_TEXT = encodeURIComponent('a b%c+d 😀') + '+e';

/** Query strings of odd values, each tried on every page (a page ignores the keys it does not read). */
const ODD = [
  'page=0&limit=7&status=bogus&result=bogus&sortBy=bogus&order=sideways&days=13&from=abc&to=abc&offset=1.5&completed=maybe',
  'page=-1&limit=1000&days=abc&from=2026-12-31&to=2026-01-01&offset=-5&status=failed%20',
  'page=1.5&limit=abc&offset=99999999999&suitesPage=1.5',
  'page=abc&limit=0&offset=abc&from=2026-02-30&to=9999-99-99',
  'page=99999999999&suitesPage=99999999999&offset=1e400',
  'page=&limit=&status=&days=&sortBy=&order=&offset=&from=&to=&case=&suite=',
  'page=2&page=3&status=failed&status=passed&days=7&days=90',
  ...['q', 'search', 'branch', 'assignee'].map((k) => `${k}=${LONG}`),
  `q=${ODD_TEXT}&search=${ODD_TEXT}&branch=${ODD_TEXT}&environment=${ODD_TEXT}&assignee=${ODD_TEXT}&tags=${ODD_TEXT}`,
  `case=${MISSING}&suite=${MISSING}`,
  'case=nope&suite=nope&priority=bogus&severity=bogus&type=bogus&layer=bogus&behavior=bogus&automation=bogus',
];

/** The project every page is opened in (one tenant for the sweep: arranging it waits for analytics). */
let t: Tenant;
let ids: Awaited<ReturnType<typeof arrange>>;
test.beforeAll(async () => {
  test.setTimeout(120_000);
  t = await testAdmin().tenant('owner');
  ids = await arrange(t);
});

/** Every page that reads its query, under the project (`ids` are read when the test runs). */
const SWEPT: [string, () => string][] = [
  ['runs', () => 'runs'],
  ["a run's tests", () => `runs/${ids.run}`],
  ['test history', () => `tests/${ids.test}`],
  ['test cases', () => 'manual-test-cases'],
  ['manual runs', () => 'manual-runs'],
  ["a manual run's execution", () => `manual-runs/${ids.manualRun}`],
  ['releases', () => 'releases'],
  ['sessions', () => 'sessions'],
  ['webhooks', () => 'webhooks'],
  ["a webhook's deliveries", () => `webhooks/${ids.webhook}`],
  ['analytics summary', () => 'analytics'],
  ['analytics performance', () => 'analytics/performance'],
  ['test case explorer', () => 'test-case-explorer'],
  ['spec health', () => 'specs'],
];

for (const [name, path] of SWEPT) {
  test(`${name} read from URLs of odd values: no refused read, no validator text, no console error, no loop`, async ({ page, signIn }) => {
    test.setTimeout(180_000);
    await signIn(page, t.userId);
    const w = watch(page);
    const found: string[] = [];
    for (const query of ODD) {
      w.problems.length = 0;
      await page.goto(`/projects/${t.projectId}/${path()}?${query}`);
      await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
      await expect(page.getByRole('status').filter({ hasText: /Loading/ })).toHaveCount(0);
      // Settled: no more reads than a poll's in the next second (a loop asks again on every render).
      const before = w.requests();
      await page.waitForTimeout(1000);
      const loop = w.requests() - before;
      const text = await page.locator('main').innerText();
      const validator = /query\.|must (be|have|match|not)/i.test(text);
      if (w.problems.length || loop > 2 || validator)
        found.push(
          [query.slice(0, 100), ...w.problems, loop > 2 ? `${loop} reads in a second` : '', validator ? text.slice(0, 300) : '']
            .filter(Boolean)
            .join('\n  '),
        );
    }
    expect(found).toEqual([]);
  });
}

test('the runs list turns a reversed window round and drops a date that is no day, in the URL too', async ({ page, signIn }) => {
  await signIn(page, t.userId);
  const w = watch(page);
  const runs = page.getByRole('table', { name: 'Runs' }).getByRole('row');
  await page.goto(`/projects/${t.projectId}/runs?from=2100-01-01&to=2000-01-01`);
  await expect(runs).toHaveCount(2);
  await expect(page).toHaveURL(/\?from=2000-01-01&to=2100-01-01$/);
  await expect(page.getByLabel('From (UTC)')).toHaveValue('2000-01-01');
  await expect(page.getByLabel('To (UTC)')).toHaveValue('2100-01-01');

  await page.goto(`/projects/${t.projectId}/runs?from=abc&to=2026-02-30&branch=main%20`);
  await expect(page.getByText('No run matches these filters.')).toBeVisible();
  await expect(page).toHaveURL(/\?branch=main(%20|\+)$/);
  await expect(page.getByLabel('From (UTC)')).toHaveValue('');
  await page.goto(`/projects/${t.projectId}/runs?from=abc&to=2026-02-30`);
  await expect(runs).toHaveCount(2);
  await expect(page).toHaveURL(/\/runs$/);
  expect(w.problems).toEqual([]);
});

test('test cases with an unknown filter or suite in the URL list every case, as the filters show', async ({ page, signIn }) => {
  await signIn(page, t.userId);
  const w = watch(page);
  await page.goto(`/projects/${t.projectId}/manual-test-cases?status=bogus&priority=urgent&suite=nope&tags=`);
  await expect(page.getByRole('heading', { name: 'All cases', level: 2 })).toBeVisible();
  await expect(page.getByRole('link', { name: 'Pay by invoice' })).toBeVisible();
  await expect(page.getByLabel('Status', { exact: true })).toHaveValue('');
  await expect(page.getByLabel('Priority', { exact: true })).toHaveValue('');
  expect(w.problems).toEqual([]);
});

test('Back from an item opened from a filtered list shows the list as filtered; a filter change adds no step', async ({ page, signIn }) => {
  await signIn(page, t.userId);
  await page.goto(`/projects/${t.projectId}/runs`);
  await page.goto(`/projects/${t.projectId}/manual-test-cases`);
  const search = page.getByRole('search', { name: 'Filter test cases' });
  await search.getByLabel('Search').fill('invoice');
  await search.getByRole('button', { name: 'Apply' }).click();
  await expect(page).toHaveURL(/\?search=invoice$/);
  await page.getByRole('link', { name: 'Pay by invoice' }).click();
  await expect(page.getByRole('heading', { name: /Pay by invoice/, level: 1 })).toBeVisible();

  await page.goBack();
  await expect(page).toHaveURL(/\/manual-test-cases\?search=invoice$/);
  await expect(search.getByLabel('Search')).toHaveValue('invoice');
  await expect(page.getByRole('link', { name: 'Pay by invoice' })).toBeVisible();
  await page.reload();
  await expect(search.getByLabel('Search')).toHaveValue('invoice');
  await page.goForward();
  await expect(page.getByRole('heading', { name: /Pay by invoice/, level: 1 })).toBeVisible();
  await page.goBack();
  await expect(page).toHaveURL(/\?search=invoice$/);
  // The filter replaced the list's entry (Back leaves the list, not the search's last keystroke).
  await page.goBack();
  await expect(page).toHaveURL(/\/runs$/);
});
