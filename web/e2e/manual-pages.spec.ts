/**
 * The manual-testing pages beside the execution view, in a real browser: the suites tree with a new suite, the
 * case editor (classic steps, then Gherkin) creating and saving a case, releases and exploratory sessions created
 * from their forms (a `javascript:` deploy URL refused with the API's message), the not-found state; a viewer sees
 * no write control and the API refuses their write with the same session. A release's page and a session's page:
 * lifecycle and closing, edits that change nothing, edits the API refuses (nothing stored) and edits it saves; a
 * new session the API refuses is not created; a viewer sees both pages without a control. The releases list in
 * pages (the shared pagination of the server-paged lists), searched and filtered, and its two empty states. Stale
 * tabs: Close session and the lifecycle buttons on a session or release changed in another tab (the API takes them
 * as done already: the page ends on the stored state, the times set elsewhere kept); a member made a viewer while
 * both pages are open is refused with the API's message, nothing stored, and a reload drops the controls. A
 * release's parent and sub-releases linked both ways; a move under its own sub-release refused, nothing stored.
 */
import { testAdmin } from '@assay/testkit';
import type { Page } from '@playwright/test';
import { api, created, detail, expect, expectAccessible, test } from './support/fixtures';

test('suites tree and case editor: a suite, a classic case, then Gherkin steps', async ({ page, tenant, signIn }) => {
  const t = await tenant('member');
  await signIn(page, t.userId);
  await page.goto(`/projects/${t.projectId}/manual-test-cases`);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Test cases');
  await page.getByRole('button', { name: 'New suite' }).click();
  await page.getByLabel('Suite name').fill('Checkout');
  await page
    .getByRole('button', { name: /^Create/ })
    .first()
    .click();
  await expect(page.getByRole('tree').getByText('Checkout')).toBeVisible();
  await expectAccessible(page);

  await page.getByRole('link', { name: 'New test case' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('New test case');
  await page.getByLabel('Title').fill('Pay with a saved card');
  await page.getByLabel('Step 1 Action').fill('Pay with the saved card');
  await page.getByLabel('Step 1 Expected result').fill('The order number shows');
  await page.getByRole('button', { name: 'Add step' }).click();
  await page.getByLabel('Step 2 Action').fill('Open the orders page');
  await expectAccessible(page);
  await page.getByRole('button', { name: 'Create test case' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('TC-1 · Pay with a saved card');
  const created = await api(t.token).get(`/${t.projectId}/manual-test-cases/TC-1`);
  expect(created.body.data.steps.classic.map((s: { action: string }) => s.action)).toEqual([
    'Pay with the saved card',
    'Open the orders page',
  ]);

  await page.getByLabel('Gherkin (Given, When, Then)').check();
  await page.getByLabel('Step 1 Text').fill('a cart worth 100');
  await page.getByRole('button', { name: 'Save changes' }).click();
  await expect(page.getByText('Saved.')).toBeVisible();
  const saved = await api(t.token).get(`/${t.projectId}/manual-test-cases/TC-1`);
  expect(saved.body.data.steps.type).toBe('gherkin');
  await expectAccessible(page);

  await page.goto(`/projects/${t.projectId}/manual-test-cases/TC-999`);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Test case not found');
});

test('releases and sessions from their forms; a javascript: deploy URL is refused', async ({ page, tenant, signIn }) => {
  const t = await tenant('member');
  await signIn(page, t.userId);
  await page.goto(`/projects/${t.projectId}/releases`);
  await page.getByRole('button', { name: 'New release' }).click();
  await page.getByLabel('Name', { exact: true }).fill('2.4.0');
  await page.getByLabel('Platform').selectOption('web');
  await page.getByLabel('Deploy URL').fill('javascript:alert(1)');
  await page.getByRole('button', { name: 'Create release' }).click();
  await expect(page.getByRole('alert')).toContainText('must be an http or https URL');
  await page.getByLabel('Deploy URL').fill('https://staging.example.com');
  await page.getByRole('button', { name: 'Create release' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('2.4.0');
  await expectAccessible(page);
  await page.goto(`/projects/${t.projectId}/releases`);
  await expect(page.getByRole('link', { name: '2.4.0' })).toBeVisible();
  await expectAccessible(page);

  await page.goto(`/projects/${t.projectId}/sessions`);
  await page.getByRole('button', { name: 'New session' }).click();
  await page.getByLabel('Name', { exact: true }).fill('Explore the new checkout');
  await page.getByRole('button', { name: 'Start session' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Explore the new checkout');
  await expectAccessible(page);
  await page.goto(`/projects/${t.projectId}/sessions`);
  await expect(page.getByRole('link', { name: 'Explore the new checkout' })).toBeVisible();
});

test('a viewer sees cases, releases and sessions without write controls; the API refuses their writes', async ({
  page,
  tenant,
  signIn,
}) => {
  const owner = await tenant('owner');
  const suite = await api(owner.token).post(`/${owner.projectId}/manual-test-suites`, { name: 'Auth' });
  const made = await api(owner.token).post(`/${owner.projectId}/manual-test-cases`, {
    title: 'Sign in with a password',
    suiteId: suite.body.data._id,
  });
  expect(made.status, made.text).toBe(201);
  const viewer = await testAdmin().member(owner.orgId, 'viewer', { projects: [owner.projectId] });
  await signIn(page, viewer.userId);
  await page.goto(`/projects/${owner.projectId}/manual-test-cases`);
  await expect(page.getByText('Sign in with a password')).toBeVisible();
  await expect(page.getByRole('link', { name: 'New test case' })).toHaveCount(0);
  await page.goto(`/projects/${owner.projectId}/releases`);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Releases');
  await expect(page.getByRole('button', { name: 'New release' })).toHaveCount(0);
  await page.goto(`/projects/${owner.projectId}/sessions`);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Exploratory sessions');
  await expect(page.getByRole('button', { name: 'New session' })).toHaveCount(0);
  await page.goto(`/projects/${owner.projectId}/manual-runs`);
  await expect(page.getByRole('button', { name: 'New manual run' })).toHaveCount(0);
  const refused = await page.request.post(`/api/v1/public/${owner.projectId}/releases`, {
    headers: { 'X-Assay-CSRF': '1' },
    data: { name: 'x' },
  });
  expect(refused.status()).toBe(403);
});

test("a release's page: start, complete and reopen it; edit it (nothing changed, a refused deploy URL, a saved branch)", async ({
  page,
  tenant,
  signIn,
}) => {
  const t = await tenant('member');
  const made = await api(t.token).post(`/${t.projectId}/releases`, { name: '3.0.0' });
  expect(made.status, made.text).toBe(201);
  const id: string = made.body.data._id;
  await signIn(page, t.userId);
  await page.goto(`/projects/${t.projectId}/releases/${id}`);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('3.0.0');
  await expect(detail(page, 'Started')).toHaveText('Not started');

  await page.getByRole('button', { name: 'Start release' }).click();
  await expect(detail(page, 'Started')).not.toHaveText('Not started');
  await expect(page.getByRole('button', { name: 'Start release' })).toHaveCount(0);
  await page.getByRole('button', { name: 'Mark completed' }).click();
  await expect(detail(page, 'Completed')).not.toHaveText('Not completed');
  await page.getByRole('button', { name: 'Reopen' }).click();
  await expect(detail(page, 'Completed')).toHaveText('Not completed');
  const stored = await api(t.token).get(`/${t.projectId}/releases/${id}`);
  expect(stored.body.data).toMatchObject({ isStarted: true, isCompleted: false, completedAt: null });

  await page.getByRole('button', { name: 'Edit release' }).click();
  await page.getByRole('button', { name: 'Save release' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Nothing changed.' })).toBeVisible();
  await page.getByLabel('Platform').selectOption('web');
  await page.getByLabel('Deploy URL').fill('javascript:alert(1)');
  await page.getByRole('button', { name: 'Save release' }).click();
  await expect(page.getByRole('alert')).toContainText('must be an http or https URL');
  await expect(detail(page, 'Build target')).toHaveText('—');
  expect((await api(t.token).get(`/${t.projectId}/releases/${id}`)).body.data.buildTarget).toBeNull();
  await page.getByLabel('Deploy URL').fill('');
  await page.getByLabel('Branch').fill('release/3.0');
  await page.getByRole('button', { name: 'Save release' }).click();
  await expect(detail(page, 'Branch')).toHaveText('release/3.0');
  await expect(page.getByRole('button', { name: 'Save release' })).toHaveCount(0);
  const edited = await api(t.token).get(`/${t.projectId}/releases/${id}`);
  expect(edited.body.data).toMatchObject({ branch: 'release/3.0', buildTarget: { platform: 'web' } });
  await expectAccessible(page);

  await page.goto(`/projects/${t.projectId}/releases/0123456789abcdef01234567`);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Release not found');
});

test("a session's page: edit it (nothing changed, an assignee who is no member refused, a saved environment and a cleared estimate), then close it", async ({
  page,
  tenant,
  signIn,
}) => {
  const t = await tenant('member');
  const made = await api(t.token).post(`/${t.projectId}/sessions`, { name: 'Tour the settings', estimate: 30 });
  expect(made.status, made.text).toBe(201);
  const id: string = made.body.data._id;
  await signIn(page, t.userId);
  await page.goto(`/projects/${t.projectId}/sessions/${id}`);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Tour the settings');

  await page.getByRole('button', { name: 'Edit session' }).click();
  await page.getByRole('button', { name: 'Save session' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Nothing changed.' })).toBeVisible();
  await page.getByLabel('Assignee').fill('nobody@example.com');
  await page.getByRole('button', { name: 'Save session' }).click();
  await expect(page.getByRole('alert')).toContainText("is not a member of the project's organization");
  await expect(detail(page, 'Assignee')).toHaveText('Unassigned');
  expect((await api(t.token).get(`/${t.projectId}/sessions/${id}`)).body.data.assignee).toBeNull();
  await page.getByLabel('Assignee').fill('');
  await page.getByLabel('Environment').fill('staging');
  await page.getByLabel('Estimate (minutes)').fill('');
  await page.getByRole('button', { name: 'Save session' }).click();
  await expect(detail(page, 'Environment')).toHaveText('staging');
  await expect(detail(page, 'Estimate')).toHaveText('—');
  await expect(page.getByRole('button', { name: 'Save session' })).toHaveCount(0);

  await page.getByRole('button', { name: 'Close session' }).click();
  await expect(page.getByRole('button', { name: 'Close session' })).toHaveCount(0);
  await expect(page.getByText(/closed [A-Z][a-z]{2} \d/)).toBeVisible();
  const stored = await api(t.token).get(`/${t.projectId}/sessions/${id}`);
  expect(stored.body.data).toMatchObject({ status: 'closed', environment: 'staging', assignee: null, estimate: null });
  await expectAccessible(page);

  await page.goto(`/projects/${t.projectId}/sessions/0123456789abcdef01234567`);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Session not found');
});

test('a new session the API refuses (an assignee who is no member) shows why and is not created', async ({ page, tenant, signIn }) => {
  const t = await tenant('member');
  await signIn(page, t.userId);
  await page.goto(`/projects/${t.projectId}/sessions`);
  await page.getByRole('button', { name: 'New session' }).click();
  await page.getByLabel('Name', { exact: true }).fill('Explore the invoices');
  await page.getByLabel('Assignee').fill('nobody@example.com');
  await page.getByRole('button', { name: 'Start session' }).click();
  await expect(page.getByRole('alert')).toContainText("is not a member of the project's organization");
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Exploratory sessions');
  const sessions = await api(t.token).get(`/${t.projectId}/sessions`);
  expect(sessions.body.data).toEqual([]);
  await expectAccessible(page);
});

test("a viewer opens a release's and a session's page: no lifecycle, closing or edit controls", async ({ page, tenant, signIn }) => {
  const owner = await tenant('owner');
  const release = await api(owner.token).post(`/${owner.projectId}/releases`, { name: '4.1.0' });
  const session = await api(owner.token).post(`/${owner.projectId}/sessions`, { name: 'Tour the reports' });
  expect([release.status, session.status]).toEqual([201, 201]);
  const viewer = await testAdmin().member(owner.orgId, 'viewer', { projects: [owner.projectId] });
  await signIn(page, viewer.userId);

  await page.goto(`/projects/${owner.projectId}/releases/${release.body.data._id}`);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('4.1.0');
  await expect(detail(page, 'Started')).toHaveText('Not started');
  // Not one button in the page's content: no start, complete or reopen, no edit form's toggle.
  await expect(page.getByRole('main').getByRole('button')).toHaveCount(0);
  await expectAccessible(page);

  await page.goto(`/projects/${owner.projectId}/sessions/${session.body.data._id}`);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Tour the reports');
  await expect(page.getByRole('main').getByRole('button')).toHaveCount(0);
  await expect(detail(page, 'Assignee')).toHaveText('Unassigned');
});

/** A time as the pages show it (the browser's locale, medium date and short time). */
const shown = (page: Page, iso: string) =>
  page.evaluate((at) => new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(at)), iso);

test("a session closed in another tab: Close session in this page keeps the first closing and the other tab's edit", async ({
  page,
  tenant,
  signIn,
}) => {
  const t = await tenant('member');
  const a = api(t.token);
  const session = await created(a.post(`/${t.projectId}/sessions`, { name: 'Tour the invoices' }));
  await signIn(page, t.userId);
  await page.goto(`/projects/${t.projectId}/sessions/${session._id}`);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Tour the invoices');
  const close = page.getByRole('button', { name: 'Close session' });
  await expect(close).toBeVisible();

  // Closed elsewhere, with its environment, behind this page's back.
  const other = await a.patch(`/${t.projectId}/sessions/${session._id}`, { status: 'closed', environment: 'staging' });
  expect(other.status, other.text).toBe(200);
  const closedAt: string = other.body.data.closedAt;
  await expect(detail(page, 'Environment')).toHaveText('—');

  // The API takes a second close as done already (no refusal, unlike a closed manual run's): nothing to report,
  // the page shows the session as it is, closed at the first closing, with the other tab's environment.
  await close.click();
  await expect(close).toHaveCount(0);
  await expect(detail(page, 'Environment')).toHaveText('staging');
  await expect(page.getByText(`closed ${await shown(page, closedAt)}`)).toBeVisible();
  await expect(page.getByRole('alert')).toHaveCount(0);
  expect((await a.get(`/${t.projectId}/sessions/${session._id}`)).body.data).toMatchObject({
    status: 'closed',
    closedAt,
    environment: 'staging',
  });
  await expectAccessible(page);
});

test("lifecycle buttons of a release changed in another tab: the page ends on the stored state, the other tab's times kept", async ({
  page,
  tenant,
  signIn,
}) => {
  const t = await tenant('member');
  const a = api(t.token);
  const release = await created(a.post(`/${t.projectId}/releases`, { name: '5.1.0' }));
  const R = `/${t.projectId}/releases/${release._id}`;
  await signIn(page, t.userId);
  await page.goto(`/projects${R}`);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('5.1.0');
  await expect(detail(page, 'Started')).toHaveText('Not started');

  // Started and completed elsewhere, with the times the team agreed on; this page has not seen it.
  const startedAt = '2026-03-02T09:15:00.000Z';
  const completedAt = '2026-03-09T16:45:00.000Z';
  const elsewhere = await a.patch(R, { isStarted: true, startedAt, isCompleted: true, completedAt });
  expect(elsewhere.status, elsewhere.text).toBe(200);
  await expect(page.getByRole('button', { name: 'Mark completed' })).toBeVisible();

  // Start release here: accepted as done already, the times stay, and the page shows them with Reopen.
  await page.getByRole('button', { name: 'Start release' }).click();
  await expect(detail(page, 'Started')).toHaveText(await shown(page, startedAt));
  await expect(detail(page, 'Completed')).toHaveText(await shown(page, completedAt));
  await expect(page.getByRole('button', { name: 'Start release' })).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Mark completed' })).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Reopen' })).toBeVisible();
  await expect(page.getByRole('alert')).toHaveCount(0);
  expect((await a.get(R)).body.data).toMatchObject({ isStarted: true, startedAt, isCompleted: true, completedAt });

  // Reopened here, then completed again elsewhere: Mark completed here keeps that completion's time.
  await page.getByRole('button', { name: 'Reopen' }).click();
  await expect(detail(page, 'Completed')).toHaveText('Not completed');
  const again = '2026-03-12T11:00:00.000Z';
  expect((await a.patch(R, { isCompleted: true, completedAt: again })).status).toBe(200);
  await page.getByRole('button', { name: 'Mark completed' }).click();
  await expect(detail(page, 'Completed')).toHaveText(await shown(page, again));
  await expect(page.getByRole('button', { name: 'Reopen' })).toBeVisible();
  expect((await a.get(R)).body.data).toMatchObject({ isStarted: true, startedAt, isCompleted: true, completedAt: again });
  await expectAccessible(page);
});

test('made a viewer after opening a release and a session in two tabs: Mark completed and Close session are refused, nothing stored', async ({
  page,
  tenant,
  signIn,
}) => {
  const owner = await tenant('owner');
  const a = api(owner.token);
  const release = await created(a.post(`/${owner.projectId}/releases`, { name: '6.0.0' }));
  const session = await created(a.post(`/${owner.projectId}/sessions`, { name: 'Tour the exports' }));
  const member = await testAdmin().member(owner.orgId, 'member', { projects: [owner.projectId] });
  await signIn(page, member.userId);
  await page.goto(`/projects/${owner.projectId}/releases/${release._id}`);
  const complete = page.getByRole('button', { name: 'Mark completed' });
  await expect(complete).toBeVisible();
  const sessionTab = await page.context().newPage();
  await sessionTab.goto(`/projects/${owner.projectId}/sessions/${session._id}`);
  const close = sessionTab.getByRole('button', { name: 'Close session' });
  await expect(close).toBeVisible();

  // An owner makes the member a viewer while both tabs are open.
  await testAdmin().setRole(owner.orgId, member.userId, 'viewer');

  await complete.click();
  await expect(page.getByRole('alert')).toHaveText('Not saved. Writes need the owner, admin or member role');
  await expect(detail(page, 'Completed')).toHaveText('Not completed');
  await expectAccessible(page);
  await close.click();
  await expect(sessionTab.getByRole('alert')).toHaveText('Not closed. Writes need the owner, admin or member role');
  await expect(sessionTab.getByText(/started [A-Z][a-z]{2} \d/)).toBeVisible();
  await expect(close).toBeVisible();
  await expectAccessible(sessionTab);
  expect((await a.get(`/${owner.projectId}/releases/${release._id}`)).body.data).toMatchObject({
    isCompleted: false,
    completedAt: null,
    updatedAt: release.updatedAt,
  });
  expect((await a.get(`/${owner.projectId}/sessions/${session._id}`)).body.data).toMatchObject({
    status: 'open',
    closedAt: null,
    updatedAt: session.updatedAt,
  });

  // Reloaded, both tabs know the new role: the stored state, and no control left to click.
  await page.reload();
  await expect(detail(page, 'Completed')).toHaveText('Not completed');
  await expect(page.getByRole('main').getByRole('button')).toHaveCount(0);
  await sessionTab.reload();
  await expect(sessionTab.getByRole('heading', { level: 1 })).toHaveText('Tour the exports');
  await expect(sessionTab.getByRole('main').getByRole('button')).toHaveCount(0);
});

test('the releases list in pages: the page is in the URL, and the two pages hold every release once', async ({ page, tenant, signIn }) => {
  const t = await tenant('member');
  for (let i = 1; i <= 11; i++) {
    const made = await api(t.token).post(`/${t.projectId}/releases`, { name: `Release ${String(i).padStart(2, '0')}` });
    expect(made.status).toBe(201);
  }
  await signIn(page, t.userId);
  await page.goto(`/projects/${t.projectId}/releases?limit=10`);
  const rows = page.getByRole('table').getByRole('row');
  const pages = page.getByRole('navigation', { name: 'Pages' });
  await expect(pages).toContainText('Page 1 of 2');
  await expect(rows).toHaveCount(11);
  await expect(pages.getByRole('button', { name: 'Previous' })).toBeDisabled();
  const first = await page.getByRole('table').getByRole('link').allTextContents();

  await pages.getByRole('button', { name: 'Next' }).click();
  await expect(page).toHaveURL(/[?&]page=2/);
  await expect(pages).toContainText('Page 2 of 2');
  await expect(rows).toHaveCount(2);
  await expect(pages.getByRole('button', { name: 'Next' })).toBeDisabled();
  const second = await page.getByRole('table').getByRole('link').allTextContents();
  expect([...first, ...second].sort()).toEqual(Array.from({ length: 11 }, (_, i) => `Release ${String(i + 1).padStart(2, '0')}`));
  await expectAccessible(page);

  await page.reload();
  await expect(pages).toContainText('Page 2 of 2');
  await pages.getByRole('button', { name: 'Previous' }).click();
  await expect(page).not.toHaveURL(/[?&]page=/);
  await expect(rows).toHaveCount(11);
});

test('the releases list: search by name and completion; no release yet, and none matching, say so', async ({ page, tenant, signIn }) => {
  const t = await tenant('member');
  await signIn(page, t.userId);
  await page.goto(`/projects/${t.projectId}/releases`);
  await expect(page.getByText('No releases yet.')).toBeVisible();
  for (const [name, isCompleted] of [
    ['Spring 2027', true],
    ['Summer 2027', false],
    ['Spring hotfix', false],
  ] as const) {
    const made = await api(t.token).post(`/${t.projectId}/releases`, { name });
    expect(made.status, made.text).toBe(201);
    if (isCompleted) expect((await api(t.token).patch(`/${t.projectId}/releases/${made.body.data._id}`, { isCompleted })).status).toBe(200);
  }
  await page.reload();
  const names = page.getByRole('table').getByRole('link');
  await expect(names).toHaveCount(3);

  await page.getByLabel('Search by name').fill('Spring');
  await page.getByRole('button', { name: 'Search' }).click();
  await expect(page).toHaveURL(/[?&]search=Spring/);
  await expect(names).toHaveCount(2);
  await page.getByLabel('Completion').selectOption('no');
  await expect(names).toHaveText(['Spring hotfix']);
  await expectAccessible(page);
  await page.getByLabel('Search by name').fill('Autumn');
  await page.getByRole('button', { name: 'Search' }).click();
  await expect(page.getByText('No release matches.')).toBeVisible();
});

test("a release's parent and sub-releases link both ways; a move under its own sub-release is refused, nothing stored", async ({
  page,
  tenant,
  signIn,
}) => {
  const t = await tenant('member');
  const a = api(t.token);
  const P = `/${t.projectId}`;
  const major = await created(a.post(`${P}/releases`, { name: '4.0' }));
  const first = await created(a.post(`${P}/releases`, { name: '4.0.1', parentReleaseId: major._id }));
  await created(a.post(`${P}/releases`, { name: '4.0.2', parentReleaseId: major._id }));
  expect((await a.patch(`${P}/releases/${first._id}`, { isStarted: true })).status).toBe(200);
  const getRelease = async (id: string) => (await a.get(`${P}/releases/${id}`)).body.data;
  await signIn(page, t.userId);
  await page.goto(`/projects/${t.projectId}/releases/${major._id}`);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('4.0');
  await expect(detail(page, 'Parent release')).toHaveText('—');
  // The sub-releases: the list of links to releases named 4.0.x.
  const children = page.getByRole('list').filter({ has: page.getByRole('link', { name: /^4\.0\.\d$/ }) });
  await expect(children.getByRole('listitem')).toHaveText(['4.0.2 planned', '4.0.1 in progress']);
  await expectAccessible(page);

  // To a sub-release and back to its parent by their links.
  await children.getByRole('link', { name: '4.0.1' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('4.0.1');
  await expect(page).toHaveURL(new RegExp(`/releases/${first._id}$`));
  await expect(page.getByText('None.', { exact: true })).toBeVisible();
  await expect(children).toHaveCount(0);
  await detail(page, 'Parent release').getByRole('link', { name: '4.0' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('4.0');
  await expect(page).toHaveURL(new RegExp(`/releases/${major._id}$`));

  // 4.0 under its own sub-release 4.0.1: the API refuses, the page says why, nothing moves.
  await page.getByRole('button', { name: 'Edit release' }).click();
  const form = page.getByRole('form', { name: 'Save release' });
  await form.getByLabel('Parent release').selectOption({ label: '4.0.1' });
  await form.getByRole('button', { name: 'Save release' }).click();
  await expect(form.getByRole('alert')).toHaveText('Not saved. Parent release ID: is the release itself or one of its sub-releases');
  await expect(form.getByLabel('Parent release')).toHaveValue(first._id);
  await expect(detail(page, 'Parent release')).toHaveText('—');
  await expect(children.getByRole('listitem')).toHaveCount(2);
  await expectAccessible(page);
  expect(await getRelease(major._id)).toMatchObject({ parentReleaseId: null });
  expect(await getRelease(first._id)).toMatchObject({ parentReleaseId: major._id });

  // 4.0.1 moved to the top level from its own page: 4.0 lists only 4.0.2 now.
  await page.goto(`/projects/${t.projectId}/releases/${first._id}`);
  await page.getByRole('button', { name: 'Edit release' }).click();
  await expect(form.getByLabel('Parent release')).toHaveValue(major._id);
  await form.getByLabel('Parent release').selectOption({ label: 'None' });
  await form.getByRole('button', { name: 'Save release' }).click();
  await expect(form).toHaveCount(0);
  await expect(detail(page, 'Parent release')).toHaveText('—');
  expect(await getRelease(first._id)).toMatchObject({ parentReleaseId: null });
  await page.goto(`/projects/${t.projectId}/releases/${major._id}`);
  await expect(children.getByRole('listitem')).toHaveText(['4.0.2 planned']);
});
