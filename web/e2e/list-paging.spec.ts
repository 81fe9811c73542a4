/**
 * A list keeps its rows while another page or filter of it loads (web/src/api/lists.ts): the answer is held here
 * (`page.route`) to see the wait. Meanwhile the rows shown stay, the list says it is busy (`aria-busy`), and the
 * pager's button or the filter's select pressed with the keyboard keeps the focus; once the answer comes the new
 * rows replace them, nothing is busy, and the focus is still there (on the other button when the one pressed is
 * disabled at the list's end). Test cases and manual runs (the pager), sessions (a status filter), a manual run's
 * cases (the verdict filter). An empty answer is not kept (its "none" would speak for the next filter). Never
 * across entities: a run opened after another starts from "Loading…", not with the other run's cases under its
 * address.
 */
import type { Locator, Page } from '@playwright/test';
import { api, created, expect, expectAccessible, test } from './support/fixtures';
import { manualCases } from './support/manual';
import { hold } from './support/network';

/**
 * Follows an address inside the app, as a link would (no page load: the app, its page and its cache stay). No page
 * links one manual run to another today; Back and Forward go this way too.
 */
const follow = (page: Page, path: string) =>
  page.evaluate((to) => {
    history.pushState(null, '', to);
    dispatchEvent(new PopStateEvent('popstate'));
  }, path);

/** Whether `list` (a table, or a box holding it) is inside something marked busy. */
const busy = (list: Locator) => list.locator('xpath=ancestor-or-self::*[@aria-busy="true"]');
const nothingBusy = (page: Page) => expect(page.locator('[aria-busy]')).toHaveCount(0);

test('test cases: Next and Previous pressed with the keyboard keep the page and the focus while the next page loads', async ({
  page,
  tenant,
  signIn,
}) => {
  test.setTimeout(120_000);
  const t = await tenant('member');
  const a = api(t.token);
  const P = `/${t.projectId}`;
  await manualCases(t, 25);
  const titlesOf = async (pageNo: number) =>
    ((await a.get(`${P}/manual-test-cases?limit=10&page=${pageNo}`)).body.data as { title: string }[]).map((c) => c.title);
  const [first, second, third] = [await titlesOf(1), await titlesOf(2), await titlesOf(3)];
  expect(third).toHaveLength(5);

  await signIn(page, t.userId);
  await page.goto(`/projects/${t.projectId}/manual-test-cases?limit=10`);
  const table = page.getByRole('table');
  const names = table.getByRole('link');
  const pages = page.getByRole('navigation', { name: 'Pages' });
  const next = pages.getByRole('button', { name: 'Next' });
  const previous = pages.getByRole('button', { name: 'Previous' });
  await expect(names).toHaveText(first);
  await expect(pages).toContainText('Page 1 of 3');
  await nothingBusy(page);

  const held = await hold(page, (url) => url.pathname.endsWith('/manual-test-cases') && url.searchParams.get('page') === '2');
  await next.focus();
  await page.keyboard.press('Enter');
  await held.requested;
  await expect(page).toHaveURL(/[?&]page=2(&|$)/);
  // The answer is held: the first page stays, busy, and the button pressed keeps the focus.
  await expect(names).toHaveText(first);
  await expect(busy(table)).toHaveCount(1);
  await expect(page.getByText('Loading test cases…')).toHaveCount(0);
  await expect(next).toBeFocused();
  await expectAccessible(page);

  held.release();
  await expect(names).toHaveText(second);
  await expect(pages).toContainText('Page 2 of 3');
  await nothingBusy(page);
  await expect(next).toBeFocused();

  // Enter again: the last page. Its Next is disabled, so the focus is on Previous (not on the top of the page).
  await page.keyboard.press('Enter');
  await expect(names).toHaveText(third);
  await expect(pages).toContainText('Page 3 of 3');
  await expect(next).toBeDisabled();
  await expect(previous).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(names).toHaveText(second);
  await expect(previous).toBeFocused();
});

test('Next pressed twice before the next page comes goes on to the page after it, and the pager says which', async ({
  page,
  tenant,
  signIn,
}) => {
  test.setTimeout(120_000);
  const t = await tenant('member');
  const a = api(t.token);
  const P = `/${t.projectId}`;
  await manualCases(t, 25);
  const third = ((await a.get(`${P}/manual-test-cases?limit=10&page=3`)).body.data as { title: string }[]).map((c) => c.title);

  await signIn(page, t.userId);
  await page.goto(`/projects/${t.projectId}/manual-test-cases?limit=10`);
  const names = page.getByRole('table').getByRole('link');
  const pages = page.getByRole('navigation', { name: 'Pages' });
  const next = pages.getByRole('button', { name: 'Next' });
  await expect(pages).toContainText('Page 1 of 3');
  const held = await hold(page, (url) => url.pathname.endsWith('/manual-test-cases') && url.searchParams.get('page') === '2');
  await next.focus();
  await page.keyboard.press('Enter');
  await held.requested;
  await expect(pages).toContainText('Page 2 of 3');
  // The second page is still on its way (the first shown, busy): Next again asks for the third, not the second again.
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/[?&]page=3(&|$)/);
  await expect(pages).toContainText('Page 3 of 3');
  held.release();
  await expect(names).toHaveText(third);
  await nothingBusy(page);
  await expect(page).toHaveURL(/[?&]page=3(&|$)/);
});

test('manual runs: Next pressed with the keyboard keeps the runs shown, busy, and the focus until the page comes', async ({
  page,
  tenant,
  signIn,
}) => {
  const t = await tenant('member');
  const a = api(t.token);
  const P = `/${t.projectId}`;
  for (let n = 1; n <= 12; n++) await created(a.post(`${P}/manual-runs`, { name: `Run ${String(n).padStart(2, '0')}` }));
  // Newest first.
  const runNames = (from: number, to: number) =>
    Array.from({ length: from - to + 1 }, (_, i) => `Run ${String(from - i).padStart(2, '0')}`);

  await signIn(page, t.userId);
  await page.goto(`/projects/${t.projectId}/manual-runs?limit=10`);
  const table = page.getByRole('table');
  const names = table.getByRole('link');
  const pages = page.getByRole('navigation', { name: 'Pages' });
  const next = pages.getByRole('button', { name: 'Next' });
  await expect(names).toHaveText(runNames(12, 3));

  const held = await hold(page, (url) => url.pathname.endsWith('/manual-runs') && url.searchParams.get('page') === '2');
  await next.focus();
  await page.keyboard.press('Enter');
  await held.requested;
  await expect(names).toHaveText(runNames(12, 3));
  await expect(busy(table)).toHaveCount(1);
  await expect(page.getByText('Loading manual runs…')).toHaveCount(0);
  await expect(next).toBeFocused();

  held.release();
  await expect(names).toHaveText(runNames(2, 1));
  await expect(pages).toContainText('Page 2 of 2');
  await nothingBusy(page);
  // Next is disabled on the last page: the focus is on Previous, still in the pager.
  await expect(pages.getByRole('button', { name: 'Previous' })).toBeFocused();

  // An empty answer is not kept: from "No closed manual runs." to the open ones, "Loading…" (not "No open …").
  const status = page.getByLabel('Status');
  await status.selectOption('closed');
  await expect(page.getByText('No closed manual runs.')).toBeVisible();
  const open = await hold(page, (url) => url.pathname.endsWith('/manual-runs') && url.searchParams.get('status') === 'open');
  await status.selectOption('open');
  await open.requested;
  await expect(page.getByText('Loading manual runs…')).toBeVisible();
  await expect(page.getByText(/No (open|closed) manual runs/)).toHaveCount(0);
  open.release();
  await expect(names).toHaveText(runNames(12, 3));
  await nothingBusy(page);
});

test('sessions: a status chosen in the select keeps the sessions shown, busy, and the focus on the select', async ({
  page,
  tenant,
  signIn,
}) => {
  const t = await tenant('member');
  const a = api(t.token);
  const P = `/${t.projectId}`;
  await created(a.post(`${P}/sessions`, { name: 'Tour the settings' }));
  const checkout = await created(a.post(`${P}/sessions`, { name: 'Explore the checkout' }));
  await created(a.post(`${P}/sessions`, { name: 'Try the search' }));
  expect((await a.patch(`${P}/sessions/${checkout._id}`, { status: 'closed' })).status).toBe(200);

  await signIn(page, t.userId);
  await page.goto(`/projects/${t.projectId}/sessions`);
  const table = page.getByRole('table');
  const names = table.getByRole('link');
  const all = ['Try the search', 'Explore the checkout', 'Tour the settings'];
  await expect(names).toHaveText(all);

  const held = await hold(page, (url) => url.pathname.endsWith('/sessions') && url.searchParams.get('status') === 'closed');
  const status = page.getByLabel('Status');
  await status.focus();
  await status.selectOption('closed');
  await held.requested;
  await expect(page).toHaveURL(/[?&]status=closed(&|$)/);
  await expect(names).toHaveText(all);
  await expect(busy(table)).toHaveCount(1);
  await expect(page.getByText('Loading sessions…')).toHaveCount(0);
  await expect(status).toBeFocused();

  held.release();
  await expect(names).toHaveText(['Explore the checkout']);
  await nothingBusy(page);
  await expect(status).toBeFocused();
});

test("a manual run's cases: a verdict filter keeps them while it loads; another run never shows this one's cases", async ({
  page,
  tenant,
  signIn,
}) => {
  test.setTimeout(90_000);
  const t = await tenant('member');
  const a = api(t.token);
  const P = `/${t.projectId}`;
  const run = async (name: string, caseTitles: string[]) => {
    const suite = await created(a.post(`${P}/manual-test-suites`, { name }));
    for (const title of caseTitles) await created(a.post(`${P}/manual-test-cases`, { title, suiteId: suite._id }));
    return created(a.post(`${P}/manual-runs`, { name: `${name} run`, selectionMode: 'selected', suiteIds: [suite._id] }));
  };
  const alphaCases = ['Alpha one', 'Alpha two', 'Alpha three'];
  const betaCases = ['Beta one', 'Beta two'];
  const alpha = await run('Alpha', alphaCases);
  const beta = await run('Beta', betaCases);
  const runPage = (id: string) => `/projects/${t.projectId}/manual-runs/${id}`;

  await signIn(page, t.userId);
  const title = page.getByRole('heading', { level: 1 });
  const cases = page.getByRole('region', { name: 'Cases' });
  const table = cases.getByRole('table');
  const names = table.getByRole('button');
  const text = (titles: string[]) => titles.map((s) => new RegExp(`${s}$`));
  // Beta first (its run in the cache), then Alpha, opened inside the app.
  await page.goto(runPage(beta._id));
  await expect(names).toHaveText(text(betaCases));
  await follow(page, runPage(alpha._id));
  await expect(title).toHaveText('Alpha run');
  await expect(names).toHaveText(text(alphaCases));

  // A verdict filter of the same run: its cases stay, busy, and the select keeps the focus.
  let held = await hold(page, (url) => url.pathname.endsWith(`/manual-runs/${alpha._id}/test-cases`) && url.searchParams.has('result'));
  const verdict = cases.getByLabel('Verdict', { exact: true });
  await verdict.focus();
  await verdict.selectOption({ label: 'Untested' });
  await held.requested;
  await expect(names).toHaveText(text(alphaCases));
  await expect(busy(table)).toHaveCount(1);
  await expect(verdict).toBeFocused();
  // No key acts on a case of the list being replaced.
  await page.locator('#main').focus();
  await page.keyboard.press('j');
  await expect(page).not.toHaveURL(/[?&]case=/);
  held.release();
  await expect(names).toHaveText(text(alphaCases));
  await nothingBusy(page);

  // Beta's run (in the cache) with a filter not loaded yet: while its cases load, Alpha's are not shown under it.
  held = await hold(page, (url) => url.pathname.endsWith(`/manual-runs/${beta._id}/test-cases`) && url.searchParams.has('result'));
  await follow(page, `${runPage(beta._id)}?result=untested`);
  await held.requested;
  await expect(title).toHaveText('Beta run');
  await expect(cases.getByText("Loading the run's cases…")).toBeVisible();
  await expect(cases.getByText(/Alpha/)).toHaveCount(0);
  await expect(page.getByText(/Alpha one|Alpha two|Alpha three/)).toHaveCount(0);
  held.release();
  await expect(names).toHaveText(text(betaCases));
  await nothingBusy(page);
});
