/**
 * The exploratory sessions list in a real browser: empty before any session, then filtered open or closed (its one
 * filter; it has no search), the filter in the URL and kept on reload, a status no session has saying so rather
 * than that there are none; a status chosen on the second page starts again at the first; a page past the end (its
 * link kept while sessions were closed) says so and leads back to the first.
 */
import { api, created, expect, expectAccessible, test } from './support/fixtures';

test('the sessions list: none yet; open or closed, in the URL and kept on reload; a status none has says so', async ({
  page,
  tenant,
  signIn,
}) => {
  const t = await tenant('member');
  const a = api(t.token);
  const P = `/${t.projectId}`;
  await signIn(page, t.userId);
  await page.goto(`/projects/${t.projectId}/sessions`);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Exploratory sessions');
  await expect(page.getByText('No exploratory sessions yet.')).toBeVisible();
  await expect(page.getByRole('table')).toHaveCount(0);
  await expectAccessible(page);

  // Three sessions started by other testers, all open.
  await created(a.post(`${P}/sessions`, { name: 'Tour the settings' }));
  const checkout = await created(a.post(`${P}/sessions`, { name: 'Explore the checkout' }));
  await created(a.post(`${P}/sessions`, { name: 'Try the search' }));
  await page.reload();
  const names = page.getByRole('table').getByRole('link');
  await expect(names).toHaveText(['Try the search', 'Explore the checkout', 'Tour the settings']);

  // None closed yet: the page says none matches, not that there are none.
  const status = page.getByLabel('Status');
  await status.selectOption({ label: 'Closed' });
  await expect(page).toHaveURL(/[?&]status=closed(&|$)/);
  await expect(page.getByText('No closed sessions.')).toBeVisible();
  await expect(page.getByText('No exploratory sessions yet.')).toHaveCount(0);
  await expectAccessible(page);

  // One closed elsewhere: the reloaded page keeps the filter and shows it, and only it.
  const closing = await a.patch(`${P}/sessions/${checkout._id}`, { status: 'closed' });
  expect(closing.status, closing.text).toBe(200);
  await page.reload();
  await expect(status).toHaveValue('closed');
  await expect(names).toHaveText(['Explore the checkout']);
  await expect(page.getByRole('table').getByRole('row').filter({ hasText: 'Explore the checkout' })).toContainText('Closed');

  await status.selectOption({ label: 'Open' });
  await expect(page).toHaveURL(/[?&]status=open(&|$)/);
  await expect(names).toHaveText(['Try the search', 'Tour the settings']);
  await page.reload();
  await expect(status).toHaveValue('open');
  await expect(names).toHaveText(['Try the search', 'Tour the settings']);
  await expectAccessible(page);

  await status.selectOption({ label: 'All sessions' });
  await expect(page).not.toHaveURL(/[?&]status=/);
  await expect(names).toHaveText(['Try the search', 'Explore the checkout', 'Tour the settings']);
});

test('the sessions list: a status chosen on the second page shows the first page of that status', async ({ page, tenant, signIn }) => {
  const t = await tenant('member');
  const a = api(t.token);
  for (let i = 1; i <= 11; i++) await created(a.post(`/${t.projectId}/sessions`, { name: `Session ${String(i).padStart(2, '0')}` }));
  await signIn(page, t.userId);
  await page.goto(`/projects/${t.projectId}/sessions?limit=10&page=2`);
  const pages = page.getByRole('navigation', { name: 'Pages' });
  const names = page.getByRole('table').getByRole('link');
  await expect(pages).toContainText('Page 2 of 2');
  await expect(names).toHaveText(['Session 01']);

  await page.getByLabel('Status').selectOption({ label: 'Open' });
  await expect(page).toHaveURL(/[?&]status=open(&|$)/);
  await expect(page).not.toHaveURL(/[?&]page=/);
  await expect(page).toHaveURL(/[?&]limit=10(&|$)/);
  await expect(pages).toContainText('Page 1 of 2');
  await expect(names).toHaveCount(10);
  await expect(names.first()).toHaveText('Session 11');
});

test('the sessions list: a page past the end (its link kept while sessions were closed) says so and leads back', async ({
  page,
  tenant,
  signIn,
}) => {
  const t = await tenant('member');
  const a = api(t.token);
  const ids: string[] = [];
  for (let i = 1; i <= 11; i++) {
    const made = await created(a.post(`/${t.projectId}/sessions`, { name: `Session ${String(i).padStart(2, '0')}` }));
    ids.push(made._id);
  }
  await signIn(page, t.userId);
  await page.goto(`/projects/${t.projectId}/sessions?status=open&limit=10&page=2`);
  const names = page.getByRole('table').getByRole('link');
  await expect(names).toHaveText(['Session 01']);

  // Two closed elsewhere: 9 open sessions, one page; this page's link now points past it.
  for (const id of ids.slice(0, 2)) expect((await a.patch(`/${t.projectId}/sessions/${id}`, { status: 'closed' })).status).toBe(200);
  await page.reload();
  await expect(page.getByText('Nothing on page 2: the list ends at page 1.')).toBeVisible();
  await expect(page.getByText('No open sessions.')).toHaveCount(0);
  await expectAccessible(page);
  await page.getByRole('button', { name: 'Go to the first page' }).click();
  await expect(page).not.toHaveURL(/[?&]page=/);
  await expect(page).toHaveURL(/[?&]status=open(&|$)/);
  await expect(names).toHaveCount(9);
  await expect(names.first()).toHaveText('Session 11');
});
