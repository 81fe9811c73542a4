/**
 * The manual-testing pages beside the execution view, in a real browser: the suites tree with a new suite, the
 * case editor (classic steps, then Gherkin) creating and saving a case, releases and exploratory sessions created
 * from their forms (a `javascript:` deploy URL refused with the API's message), the not-found state; a viewer sees
 * no write control and the API refuses their write with the same session.
 */
import { testAdmin } from '@assay/testkit';
import { api, expect, expectAccessible, test } from './support/fixtures';

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
