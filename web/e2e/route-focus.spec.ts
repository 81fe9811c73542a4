/**
 * A page change told to the keyboard and the screen reader (web/src/app/route-focus.ts): after a followed link, Back
 * or Forward the focus is on the new page's title (its `<h1>`), without a ring, and the next Tab goes on into the
 * page's content. Not on the app's first load, nor when only the query changes (a filter, a page of a list: the focus
 * stays on the select or the pager's button). A page that loads its data first gets the focus on its title when the
 * title shows, unless the person has moved the focus meanwhile. On a phone, a link followed from the open menu puts
 * the focus on the new page's title; the link of the page already shown folds the menu, the focus back on its button.
 * A new test case's form replaced by the case's page is a page change too; the project switcher (a field) keeps the
 * focus. No page of the app focuses a field of its own when it opens (no `autoFocus`): nothing to keep there yet.
 * A new page starts at its top; Back returns to where the page was left; a key or a filter keeps the scroll.
 */
import type { Page } from '@playwright/test';
import { largePlaywrightReport } from '@assay/testkit';
import { api, created, expect, test } from './support/fixtures';
import { ingestInto } from './support/ingest';
import { manualCases } from './support/manual';
import { hold } from './support/network';

const PHONE = { viewport: { width: 375, height: 667 }, hasTouch: true, isMobile: true };

const title = (page: Page) => page.getByRole('heading', { level: 1 });

/** The focused element's tag, name and whether it is in the page's content (`#main`). */
const focused = (page: Page) =>
  page.evaluate(() => {
    const el = document.activeElement;
    return { tag: el?.tagName.toLowerCase(), name: el?.getAttribute('name'), inMain: Boolean(el?.closest('#main')) };
  });

test("a followed link, Back and Forward put the focus on the new page's title; the first load does not", async ({
  page,
  tenant,
  signIn,
}) => {
  const t = await tenant('member');
  await signIn(page, t.userId);
  await page.goto(`/projects/${t.projectId}`);
  await expect(title(page)).toHaveText('Dashboard');
  // The first load is the browser's: the focus is where it puts it, not on the title.
  await expect(title(page)).not.toBeFocused();
  expect(await page.evaluate(() => document.activeElement === document.body)).toBe(true);

  const nav = page.getByRole('navigation', { name: 'Project' });
  await nav.getByRole('link', { name: 'Runs', exact: true }).focus();
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(new RegExp(`/projects/${t.projectId}/runs$`));
  await expect(title(page)).toHaveText('Runs');
  await expect(title(page)).toBeFocused();
  await expect(page).toHaveTitle('Runs · Assay');
  // No ring around the title (it is not a control), even after the keyboard.
  expect(await title(page).evaluate((h) => getComputedStyle(h).outlineStyle)).toBe('none');
  // One Tab: the page's first field (the runs' filters), not the header.
  await page.keyboard.press('Tab');
  await expect(page.getByRole('search', { name: 'Filter runs' }).getByLabel('Branch')).toBeFocused();
  expect((await focused(page)).inMain).toBe(true);

  await page.goBack();
  await expect(page).toHaveURL(new RegExp(`/projects/${t.projectId}$`));
  await expect(title(page)).toHaveText('Dashboard');
  await expect(title(page)).toBeFocused();

  await page.goForward();
  await expect(page).toHaveURL(new RegExp(`/projects/${t.projectId}/runs$`));
  await expect(title(page)).toHaveText('Runs');
  await expect(title(page)).toBeFocused();
});

test('a filter or another page of a list (the query only) leaves the focus where it is', async ({ page, tenant, signIn }) => {
  const t = await tenant('member');
  await manualCases(t, 21);
  await signIn(page, t.userId);

  // A filter: the select keeps the focus.
  await page.goto(`/projects/${t.projectId}/runs`);
  await expect(title(page)).toHaveText('Runs');
  const status = page.getByRole('search', { name: 'Filter runs' }).getByLabel('Status');
  await status.focus();
  await status.selectOption('failed');
  await expect(page).toHaveURL(/[?&]status=failed/);
  await expect(page.getByText('No run matches these filters.')).toBeVisible();
  await expect(status).toBeFocused();
  await expect(title(page)).not.toBeFocused();

  // Pages of a list, 10 a page: Previous back to a page seen (shown at once, the pager stays) keeps the focus.
  await page.goto(`/projects/${t.projectId}/manual-test-cases?limit=10`);
  const pages = page.getByRole('navigation', { name: 'Pages' }).last();
  await expect(pages).toContainText('Page 1 of 3');
  await pages.getByRole('button', { name: 'Next' }).click();
  await expect(pages).toContainText('Page 2 of 3');
  await pages.getByRole('button', { name: 'Next' }).click();
  await expect(pages).toContainText('Page 3 of 3');
  const previous = pages.getByRole('button', { name: 'Previous' });
  await previous.focus();
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/[?&]page=2/);
  await expect(pages).toContainText('Page 2 of 3');
  await expect(previous).toBeFocused();
  await expect(title(page)).not.toBeFocused();
});

test('a page that loads its data first gets the focus on its title when it shows, unless the focus moved meanwhile', async ({
  page,
  tenant,
  signIn,
}) => {
  const t = await tenant('member');
  const a = api(t.token);
  // Two runs: a run read once is shown from the cache the next time, at once.
  const first = await created(a.post(`/${t.projectId}/manual-runs`, { name: 'Sprint 12 regression' }));
  const second = await created(a.post(`/${t.projectId}/manual-runs`, { name: 'Sprint 13 regression' }));
  await signIn(page, t.userId);

  // A run's read held until released: the page says it loads (no title yet), then shows its title.
  const follow = async (name: string, id: string) => {
    const read = await hold(page, (url) => url.pathname.endsWith(`/manual-runs/${id}`));
    await page.goto(`/projects/${t.projectId}/manual-runs`);
    await expect(title(page)).toHaveText('Manual runs');
    await page.getByRole('link', { name }).focus();
    await page.keyboard.press('Enter');
    await read.requested;
    await expect(page.getByText('Loading the run…')).toBeVisible();
    await expect(title(page)).toBeHidden();
    return read.release;
  };

  // Nobody moved the focus: it goes to the title once shown.
  let release = await follow('Sprint 12 regression', first._id);
  release();
  await expect(title(page)).toHaveText('Sprint 12 regression');
  await expect(title(page)).toBeFocused();

  // The person went on to the navigation while it loaded: the focus stays there.
  release = await follow('Sprint 13 regression', second._id);
  const dashboard = page.getByRole('navigation', { name: 'Project' }).getByRole('link', { name: 'Dashboard', exact: true });
  await dashboard.focus();
  release();
  await expect(title(page)).toHaveText('Sprint 13 regression');
  await expect(dashboard).toBeFocused();
  await expect(title(page)).not.toBeFocused();
});

test("a run's and a webhook's page, while they load, show no title of their own: the one focused is the entity's", async ({
  page,
  tenant,
  signIn,
}) => {
  const t = await tenant('owner');
  expect((await ingestInto(t)('/playwright', largePlaywrightReport(3))).status).toBe(201);
  const url = 'https://hooks.example.com/assay';
  await created(api(t.token).post(`/${t.projectId}/webhooks`, { url, events: ['RUN_FINISHED'] }));
  await signIn(page, t.userId);

  // The entity's read held until released: a generic title shown meanwhile ("Run") would take the focus and then
  // change under it, unread.
  const opens = async (list: string, listTitle: string, pattern: RegExp, link: string, loading: string, name: string) => {
    const read = await hold(page, (url) => pattern.test(url.pathname));
    await page.goto(`/projects/${t.projectId}/${list}`);
    await expect(title(page)).toHaveText(listTitle);
    await page.getByRole('link', { name: link, exact: true }).focus();
    await page.keyboard.press('Enter');
    await read.requested;
    await expect(page.getByText(loading)).toBeVisible();
    await expect(title(page)).toBeHidden();
    read.release();
    await expect(title(page)).toHaveText(name);
    await expect(title(page)).toBeFocused();
    await page.unrouteAll();
  };
  await opens('runs', 'Runs', /\/test-runs\/[^/]+$/, 'Run #1', 'Loading the run…', 'Run #1');
  await opens('webhooks', 'Webhooks', /\/webhooks\/[^/]+$/, url, 'Loading the subscription…', url);
});

test("a new test case's form, once created, becomes the case's page: the focus goes to its title", async ({ page, tenant, signIn }) => {
  const t = await tenant('member');
  const suite = await created(api(t.token).post(`/${t.projectId}/manual-test-suites`, { name: 'Checkout' }));
  await signIn(page, t.userId);
  await page.goto(`/projects/${t.projectId}/manual-test-cases/new?suite=${suite._id}`);
  await expect(title(page)).toHaveText('New test case');
  // The suite from the address is chosen once the suites have loaded; before that the form cannot be sent.
  await expect(page.getByLabel('Suite')).toHaveValue(suite._id);
  await page.getByLabel('Title').fill('Pay with a voucher');
  await page.getByLabel('Title').press('Enter');
  // The address is replaced (Back goes to the list, not to the form): still a new page, announced.
  await expect(title(page)).toHaveText(/^TC-\d+ · Pay with a voucher$/);
  await expect(title(page)).toBeFocused();
});

test('the project switcher (a field) keeps the focus when it opens another page', async ({ page, tenant, signIn }) => {
  const t = await tenant('member');
  await signIn(page, t.userId);
  await page.goto('/');
  await expect(title(page)).toHaveText('Your projects');
  const switcher = page.getByRole('combobox', { name: 'Project' });
  await switcher.focus();
  await switcher.selectOption(t.projectId);
  await expect(page).toHaveURL(new RegExp(`/projects/${t.projectId}$`));
  await expect(title(page)).toHaveText('Dashboard');
  await expect(switcher).toBeFocused();
});

test('a new page starts at its top, Back returns to where the list was left, and a key or filter keeps the scroll', async ({
  page,
  tenant,
  signIn,
}) => {
  test.setTimeout(120_000);
  const t = await tenant('member');
  const a = api(t.token);
  const P = `/${t.projectId}`;
  await manualCases(t, 30);
  const run = await created(a.post(`${P}/manual-runs`, { name: 'Full regression' }));
  await page.setViewportSize({ width: 1280, height: 600 });
  await signIn(page, t.userId);
  const scrollY = () => page.evaluate(() => Math.round(window.scrollY));

  // The list scrolled to its end, a case followed: its page starts at the top, its title focused.
  await page.goto(`/projects/${t.projectId}/manual-test-cases?limit=50`);
  const last = page.getByRole('link', { name: 'Case 30', exact: true });
  await last.scrollIntoViewIfNeeded();
  const left = await scrollY();
  expect(left).toBeGreaterThan(300);
  await last.click();
  await expect(title(page)).toHaveText(/Case 30$/);
  await expect(title(page)).toBeFocused();
  expect(await scrollY()).toBe(0);
  // Back: the list where it was left, its title focused without scrolling to it.
  await page.goBack();
  await expect(title(page)).toHaveText('Test cases');
  await expect(title(page)).toBeFocused();
  await expect.poll(scrollY).toBe(left);

  // A key that moves a manual run's current case (the query only) leaves the page where it is.
  await page.goto(`/projects/${t.projectId}/manual-runs/${run._id}`);
  await expect(page.locator('#current-case-heading')).toHaveText('TC-1 Case 01');
  await page.evaluate(() => window.scrollTo(0, 300));
  await expect.poll(scrollY).toBe(300);
  await page.keyboard.press('j');
  await expect(page).toHaveURL(/[?&]case=/);
  await expect(page.locator('#current-case-heading')).toHaveText('TC-2 Case 02');
  expect(await scrollY()).toBe(300);
  // Another long page opened from there (its link clicked where it is, without scrolling to it): at its top.
  await page
    .getByRole('navigation', { name: 'Project' })
    .getByRole('link', { name: 'Test cases' })
    .evaluate((link: HTMLElement) => link.click());
  await expect(title(page)).toHaveText('Test cases');
  await expect(page.getByRole('link', { name: 'Case 25', exact: true })).toBeAttached();
  await expect(title(page)).toBeFocused();
  expect(await scrollY()).toBe(0);
});

test.describe('on a phone', () => {
  test.use(PHONE);

  test("a link followed from the open menu puts the focus on the new page's title", async ({ page, tenant, signIn }) => {
    const t = await tenant('member');
    await signIn(page, t.userId);
    await page.goto(`/projects/${t.projectId}`);
    const nav = page.getByRole('navigation', { name: 'Project' });
    const menu = nav.getByRole('button', { name: /^Menu/ });
    await expect(title(page)).toHaveText('Dashboard');

    await menu.tap();
    await nav.getByRole('link', { name: 'Manual runs' }).tap();
    await expect(page).toHaveURL(new RegExp(`/projects/${t.projectId}/manual-runs$`));
    await expect(menu).toHaveAttribute('aria-expanded', 'false');
    await expect(title(page)).toHaveText('Manual runs');
    await expect(title(page)).toBeFocused();

    // The link of the page already shown: nothing to go to, the menu folds and the focus is back on its button.
    await menu.tap();
    await nav.getByRole('link', { name: 'Manual runs' }).tap();
    await expect(menu).toHaveAttribute('aria-expanded', 'false');
    await expect(menu).toBeFocused();
  });
});
