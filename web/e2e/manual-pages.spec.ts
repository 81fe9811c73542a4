/**
 * The manual-testing pages beside the execution view, in a real browser: the suites tree with a new suite, the
 * case editor (classic steps, then Gherkin) creating and saving a case, releases and exploratory sessions created
 * from their forms (a `javascript:` deploy URL refused with the API's message), the not-found state; a viewer sees
 * no write control and the API refuses their write with the same session. A release's page and a session's page:
 * lifecycle and closing, edits that change nothing, edits the API refuses (nothing stored) and edits it saves; a
 * new session the API refuses is not created; a viewer sees both pages without a control. The releases list in
 * pages (the shared pagination of the server-paged lists), searched and filtered, and its two empty states.
 */
import { testAdmin } from '@assay/testkit';
import { api, detail, expect, expectAccessible, test } from './support/fixtures';

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
