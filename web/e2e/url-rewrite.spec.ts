/**
 * A page opened from an edited link or an old bookmark shows in the address bar what it uses: a value it ignores
 * (unknown, malformed, empty, out of range, the second of a key given twice) is removed and one it reads otherwise
 * than written is corrected (`offset=1e2` is 100, a reversed window is turned round), once, replacing the entry
 * (Back leaves the page; Forward comes back to it as corrected), with no request loop. A valid value stays, default
 * or not, and so does one only the API can refuse (a well-formed id of nothing, a page past the end).
 */
import { testAdmin, type Tenant } from '@assay/testkit';
import { expect, test } from './support/fixtures';
import { arrange, watch } from './support/url-pages';

/** A well-formed id (24 hex characters, as the API's) that names nothing. */
const MISSING = '0123456789abcdef01234567';

let t: Tenant;
let ids: Awaited<ReturnType<typeof arrange>>;
test.beforeAll(async () => {
  test.setTimeout(120_000);
  t = await testAdmin().tenant('owner');
  ids = await arrange(t);
});

/** Each page that reads its query: [opened with, the search its address bar must end with] (`''`: none). */
const PAGES: [string, () => string, [string, string][]][] = [
  [
    'runs',
    () => 'runs',
    [
      [
        'status=failed&status=bogus&branch=main&from=2026-03-01&to=2026-01-01&page=0&environment=',
        '?status=failed&branch=main&from=2026-01-01&to=2026-03-01',
      ],
      ['page=3&from=abc&status=bogus', '?page=3'],
    ],
  ],
  [
    "a run's tests",
    () => `runs/${ids.run}`,
    [
      ['q=checkout&status=bogus', '?q=checkout'],
      ['status=failed&status=passed&q=', '?status=failed'],
    ],
  ],
  [
    'test history',
    () => `tests/${ids.test}`,
    [
      ['offset=1.5&branch=main', '?branch=main'],
      ['offset=1e400', ''],
      ['offset=1e2&offset=5', '?offset=100'],
      ['offset=0&branch=', '?offset=0'],
    ],
  ],
  [
    'test cases',
    () => 'manual-test-cases',
    [
      ['status=bogus&suite=nope&priority=high&tags=&limit=50&limit=7&suitesPage=1.5', '?priority=high&limit=50'],
      ['status=draft&status=bogus&type=e2e&layer=e2e&automation=robot', '?status=draft&type=e2e&layer=e2e'],
      [`suite=${MISSING}&page=3&search=invoice`, `?suite=${MISSING}&page=3&search=invoice`],
    ],
  ],
  [
    'manual runs',
    () => 'manual-runs',
    [
      ['status=open&status=bogus&page=abc&limit=50', '?status=open&limit=50'],
      ['status=bogus&page=3&limit=1000', '?page=3'],
    ],
  ],
  [
    "a manual run's execution view",
    () => `manual-runs/${ids.manualRun}`,
    [
      ['result=bogus&assignee=me&case=nope&page=0', '?assignee=me'],
      [`result=passed&result=failed&assignee=someone&case=${MISSING}`, `?result=passed&case=${MISSING}`],
    ],
  ],
  ['releases', () => 'releases', [['completed=maybe&search=1.0&limit=1000&page=2', '?search=1.0&page=2']]],
  ['sessions', () => 'sessions', [['status=closed&limit=7&page=-1', '?status=closed']]],
  ["a webhook's deliveries", () => `webhooks/${ids.webhook}`, [['status=failed&page=0&status=pending', '?status=failed']]],
  [
    'analytics summary',
    () => 'analytics',
    [
      ['days=13', ''],
      ['days=7&days=90', '?days=7'],
    ],
  ],
  ['analytics performance', () => 'analytics/performance', [['days=abc&q=checkout&page=1.5', '?q=checkout']]],
  [
    'test case explorer',
    () => 'test-case-explorer',
    [['days=90&status=bogus&sortBy=bogus&order=sideways&limit=25&page=2', '?days=90&limit=25&page=2']],
  ],
  ['spec health', () => 'specs', [['days=30&page=0', '?days=30']]],
];

for (const [name, path, cases] of PAGES) {
  test(`${name}: the address bar ends up with only the values the page uses, replaced once`, async ({ page, signIn }) => {
    test.setTimeout(120_000);
    await signIn(page, t.userId);
    const w = watch(page);
    const start = `/projects/${t.projectId}/webhooks`;
    const at = `/projects/${t.projectId}/${path()}`;
    const search = () => new URL(page.url()).search;
    for (const [query, expected] of cases) {
      await test.step(query, async () => {
        await page.goto(start);
        await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
        const entries = await page.evaluate(() => history.length);
        await page.goto(`${at}?${query}`);
        await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
        await expect(page.getByRole('status').filter({ hasText: /Loading/ })).toHaveCount(0);
        await expect.poll(search).toBe(expected);
        expect(new URL(page.url()).pathname).toBe(at);
        // Settled: no rewrite back and forth, and no more reads than a poll's.
        const before = w.requests();
        await page.waitForTimeout(1500);
        expect(w.requests() - before, 'reads after settling').toBeLessThanOrEqual(2);
        expect(search()).toBe(expected);
        // The corrected URL replaced the one opened: one entry more than the page before, as for any link.
        expect(await page.evaluate(() => history.length)).toBe(entries + 1);
        await page.goBack();
        await expect(page).toHaveURL((u) => u.pathname === start && u.search === '');
        await page.goForward();
        await expect(page).toHaveURL((u) => u.pathname === at && u.search === expected);
        await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
      });
    }
    expect(w.problems).toEqual([]);
  });
}

test('a clean URL is left as it is, and a filter chosen on the page still replaces it', async ({ page, signIn }) => {
  await signIn(page, t.userId);
  const w = watch(page);
  const at = `/projects/${t.projectId}/manual-test-cases`;
  await page.goto(`/projects/${t.projectId}/webhooks`);
  const entries = await page.evaluate(() => history.length);
  await page.goto(`${at}?type=smoke&limit=25`);
  await expect(page.getByText('No test cases match these filters.')).toBeVisible();
  await page.waitForTimeout(1000);
  expect(new URL(page.url()).search).toBe('?type=smoke&limit=25');
  await page.getByLabel('Type', { exact: true }).selectOption('');
  await expect(page).toHaveURL((u) => u.pathname === at && u.search === '?limit=25');
  await expect(page.getByRole('link', { name: 'Pay by invoice' })).toBeVisible();
  expect(await page.evaluate(() => history.length)).toBe(entries + 1);
  expect(w.problems).toEqual([]);
});
