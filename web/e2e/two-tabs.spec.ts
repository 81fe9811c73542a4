/**
 * The same thing open in two tabs, or changed through the API while a page shows it, and then acted on in the page
 * that has not seen the change. Signed out in another tab (or everywhere, from another browser), a save, a new case
 * and a verdict are refused: the page stays, what was typed is kept, and it says so and how to sign in again (a new
 * tab), after which the same form saves. A case, a suite ("Edit suite"), a run's, a session's and a release's edit
 * form in two tabs: each save sends only what its form changed (against what it opened with, also once a verdict,
 * Close session or Start release on the page read the record again, which leaves what was typed in place), so the
 * other tab's changes are kept, never moved or written back. A
 * run closed in another tab while its edit form is open: said in words (not the API's `releaseId`), the page then
 * shows it closed and its release still changes. Made a viewer while the new-case form and a run are open: the
 * create and the verdict are refused with the role's words, the form kept, nothing stored. A webhook deleted in
 * another tab: Re-enable says it is not found; an admin made a member: Delete says which role it needs. (Suites,
 * cases, releases, sessions and manual runs cannot be deleted: the API has no such operation.)
 */
import { testAdmin } from '@assay/testkit';
import type { Page } from '@playwright/test';
import { api, created, expect, expectAccessible, test } from './support/fixtures';

/** What a write refused for want of a session says, under its form's `title`. */
const signedOut = (title: string) =>
  `${title}. You were signed out (in another tab, or everywhere). What you entered is kept here: sign in again in a new tab, then ` +
  'send it again from this page.';

/** A suite with one case, in `t`'s project, through the API. */
async function arrangeCase(t: { token: string; projectId: string }) {
  const a = api(t.token);
  const suite = await created(a.post(`/${t.projectId}/manual-test-suites`, { name: 'Checkout' }));
  const testCase = await created(a.post(`/${t.projectId}/manual-test-cases`, { title: 'Pay by card', suiteId: suite._id }));
  return { a, suiteId: suite._id as string, caseId: testCase._id as string };
}

/** Follows the sign-in link of a signed-out alert (a new tab) and signs `userId` in there; closes that tab. */
async function signInAgainFrom(page: Page, userId: string, signIn: (page: Page, userId: string) => Promise<void>) {
  const [login] = await Promise.all([
    page.context().waitForEvent('page'),
    page.getByRole('link', { name: 'sign in again in a new tab' }).click(),
  ]);
  await expect(login).toHaveURL(new RegExp(`/login\\?next=${encodeURIComponent(new URL(page.url()).pathname)}`));
  await expect(login.getByRole('heading', { name: 'Sign in to Assay' })).toBeVisible();
  await signIn(login, userId);
  await login.close();
}

/** No uncaught error in `page` (a refused request's own console line is the browser's, not the app's). */
function uncaught(page: Page): string[] {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) errors.push(m.text());
  });
  return errors;
}

test('signed out in another tab: Save changes keeps what was typed and says how to sign in; signed in again, it saves', async ({
  page,
  tenant,
  signIn,
}) => {
  const t = await tenant('member');
  const { a, caseId } = await arrangeCase(t);
  const errors = uncaught(page);
  await signIn(page, t.userId);
  await page.goto(`/projects/${t.projectId}/manual-test-cases/${caseId}`);
  await expect(page.getByLabel('Title')).toHaveValue('Pay by card');

  const other = await page.context().newPage();
  await other.goto(`/projects/${t.projectId}/manual-test-cases`);
  await expect(other.getByRole('link', { name: 'Pay by card' })).toBeVisible();
  await other.getByRole('button', { name: 'Sign out', exact: true }).click();
  await expect(other).toHaveURL(/\/login$/);
  await other.close();

  await page.getByLabel('Title').fill('Pay by card, then by voucher');
  await page.getByLabel('Description').fill('The card is declined; a voucher pays the rest.');
  await page.getByRole('button', { name: 'Save changes' }).click();
  const form = page.getByRole('form', { name: 'Edit test case' });
  await expect(form.getByRole('alert')).toHaveText(signedOut('Not saved'));
  await expect(page).toHaveURL(new RegExp(`/manual-test-cases/${caseId}$`));
  await expect(page.getByLabel('Title')).toHaveValue('Pay by card, then by voucher');
  await expect(page.getByLabel('Description')).toHaveValue('The card is declined; a voucher pays the rest.');
  await expect(page.getByText('Saved.', { exact: true })).toHaveCount(0);
  await expectAccessible(page);
  expect((await a.get(`/${t.projectId}/manual-test-cases/${caseId}`)).body.data).toMatchObject({ title: 'Pay by card', description: '' });

  await signInAgainFrom(page, t.userId, signIn);
  await page.getByRole('button', { name: 'Save changes' }).click();
  await expect(page.getByText('Saved.', { exact: true })).toBeVisible();
  await expect(form.getByRole('alert')).toHaveCount(0);
  expect((await a.get(`/${t.projectId}/manual-test-cases/${caseId}`)).body.data).toMatchObject({
    title: 'Pay by card, then by voucher',
    description: 'The card is declined; a voucher pays the rest.',
  });
  expect(errors).toEqual([]);
});

test('signed out everywhere from another browser: a new case and a verdict are refused in words, kept, then sent', async ({
  page,
  browser,
  tenant,
  signIn,
}) => {
  const t = await tenant('member');
  const { a, suiteId } = await arrangeCase(t);
  const run = await created(a.post(`/${t.projectId}/manual-runs`, { name: 'Regression', selectionMode: 'all' }));
  const errors = uncaught(page);
  await signIn(page, t.userId);
  await page.goto(`/projects/${t.projectId}/manual-test-cases/new?suite=${suiteId}`);
  await expect(page.getByLabel('Suite')).toHaveValue(suiteId);
  const runTab = await page.context().newPage();
  await runTab.goto(`/projects/${t.projectId}/manual-runs/${run._id}`);
  const passed = runTab.getByRole('group', { name: 'Set the verdict' }).getByRole('button', { name: /^Passed/ });
  await expect(passed).toBeEnabled();

  const elsewhere = await browser.newContext();
  const laptop = await elsewhere.newPage();
  await signIn(laptop, t.userId);
  await laptop.getByRole('button', { name: 'Sign out everywhere' }).click();
  await expect(laptop).toHaveURL(/\/login$/);
  await elsewhere.close();

  await page.getByLabel('Title').fill('Pay by voucher');
  await page.getByLabel('Step 1 Action').fill('Apply the voucher');
  await page.getByRole('button', { name: 'Create test case' }).click();
  await expect(page.getByRole('form', { name: 'New test case' }).getByRole('alert')).toHaveText(signedOut('Not saved'));
  await expect(page).toHaveURL(/\/manual-test-cases\/new\?suite=/);
  await expect(page.getByLabel('Title')).toHaveValue('Pay by voucher');
  await expect(page.getByLabel('Step 1 Action')).toHaveValue('Apply the voucher');
  await expectAccessible(page);

  await passed.click();
  await expect(runTab.getByRole('alert')).toHaveText(signedOut('Not saved'));
  await expect(runTab).toHaveURL(new RegExp(`/manual-runs/${run._id}`));
  await expect(runTab.getByText('0 of 1 tested')).toBeVisible();
  const stored = await a.get(`/${t.projectId}/manual-test-cases`);
  expect(stored.body.data.map((c: { title: string }) => c.title)).toEqual(['Pay by card']);
  expect((await a.get(`/${t.projectId}/manual-runs/${run._id}`)).body.data.stats).toMatchObject({ passed: 0 });

  // Signed in again (in a new tab, this browser's cookie), both pages send what they kept.
  await signInAgainFrom(page, t.userId, signIn);
  await page.getByRole('button', { name: 'Create test case' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('TC-2 · Pay by voucher');
  await passed.click();
  await expect(runTab.getByText('1 of 1 tested')).toBeVisible();
  await expect(runTab.getByRole('alert')).toHaveCount(0);
  expect(errors).toEqual([]);
});

test('a case edited in two tabs: each save sends what its form changed, and keeps what the other tab saved', async ({
  page,
  tenant,
  signIn,
}) => {
  const t = await tenant('member');
  const { a, caseId } = await arrangeCase(t);
  await signIn(page, t.userId);
  await page.goto(`/projects/${t.projectId}/manual-test-cases/${caseId}`);
  await expect(page.getByLabel('Title')).toHaveValue('Pay by card');
  const other = await page.context().newPage();
  await other.goto(`/projects/${t.projectId}/manual-test-cases/${caseId}`);
  await expect(other.getByLabel('Title')).toHaveValue('Pay by card');

  await other.getByLabel('Description').fill('Written in the other tab.');
  await other.getByLabel('Priority').selectOption('high');
  await other.getByRole('button', { name: 'Save changes' }).click();
  await expect(other.getByText('Saved.', { exact: true })).toBeVisible();

  await page.getByLabel('Title').fill('Pay by card, 3-D Secure');
  await page.getByRole('button', { name: 'Save changes' }).click();
  await expect(page.getByText('Saved.', { exact: true })).toBeVisible();
  expect((await a.get(`/${t.projectId}/manual-test-cases/${caseId}`)).body.data).toMatchObject({
    title: 'Pay by card, 3-D Secure',
    description: 'Written in the other tab.',
    classification: { priority: 'high' },
  });

  // Sent again without a change, nothing is sent; the page says so.
  await page.getByRole('button', { name: 'Save changes' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Nothing changed.' })).toBeVisible();
  await expect(page.getByText('Saved.', { exact: true })).toHaveCount(0);

  // The other tab, still showing its own save, changes a step: the title saved here is kept.
  await other.getByRole('button', { name: 'Add step' }).click();
  await other.getByLabel('Step 1 Action').fill('Pay with a card that asks for 3-D Secure');
  await other.getByRole('button', { name: 'Save changes' }).click();
  await expect(other.getByText('Saved.', { exact: true })).toBeVisible();
  const stored = (await a.get(`/${t.projectId}/manual-test-cases/${caseId}`)).body.data;
  expect(stored).toMatchObject({ title: 'Pay by card, 3-D Secure', description: 'Written in the other tab.' });
  expect(stored.steps.classic.map((s: { action: string }) => s.action)).toEqual(['Pay with a card that asks for 3-D Secure']);
});

test('a suite edited in two tabs: a rename here keeps the move and the description saved in the other tab', async ({
  page,
  tenant,
  signIn,
}) => {
  const t = await tenant('member');
  const a = api(t.token);
  const shop = (await created(a.post(`/${t.projectId}/manual-test-suites`, { name: 'Shop' })))._id as string;
  const payments = (await created(a.post(`/${t.projectId}/manual-test-suites`, { name: 'Payments' })))._id as string;
  await signIn(page, t.userId);
  await page.goto(`/projects/${t.projectId}/manual-test-cases?suite=${payments}`);
  await page.getByRole('button', { name: 'Edit suite' }).click();
  const form = page.getByRole('form', { name: 'Edit suite Payments' });
  await expect(form.getByLabel('Parent suite')).toHaveValue('');

  // The other tab moves it under Shop and describes it.
  const other = await page.context().newPage();
  await other.goto(`/projects/${t.projectId}/manual-test-cases?suite=${payments}`);
  await other.getByRole('button', { name: 'Edit suite' }).click();
  const otherForm = other.getByRole('form', { name: 'Edit suite Payments' });
  await otherForm.getByLabel('Suite description').fill('Cards, vouchers and refunds');
  await otherForm.getByLabel('Parent suite').selectOption(shop);
  await otherForm.getByRole('button', { name: 'Save suite' }).click();
  await expect(otherForm).toHaveCount(0);

  await form.getByLabel('Suite name').fill('Wallets');
  await form.getByRole('button', { name: 'Save suite' }).click();
  await expect(page.getByRole('form', { name: /^Edit suite/ })).toHaveCount(0);
  await expect(page.getByRole('heading', { name: 'Cases in Wallets' })).toBeVisible();
  const tree = page.getByRole('tree', { name: 'Suites' });
  await expect(tree.getByText('Payments', { exact: true })).toHaveCount(0);
  // The selected suite, now under Shop, is in view: its new parent opened.
  await expect(tree.getByRole('treeitem', { name: /^Shop/ })).toHaveAttribute('aria-expanded', 'true');
  await expect(tree.getByRole('treeitem', { name: 'Wallets', exact: true, selected: true })).toBeVisible();
  const stored = (await a.get(`/${t.projectId}/manual-test-suites`)).body.data;
  expect(stored.map((s: { name: string }) => s.name)).toEqual(['Shop']);
  expect(stored[0].children[0]).toMatchObject({
    _id: payments,
    name: 'Wallets',
    description: 'Cards, vouchers and refunds',
    hierarchy: { depth: 2 },
  });

  // Opened again and saved unchanged, nothing is sent: the form closes, the suite is as it was.
  await page.getByRole('button', { name: 'Edit suite' }).click();
  await page.getByRole('form', { name: 'Edit suite Wallets' }).getByRole('button', { name: 'Save suite' }).click();
  await expect(page.getByRole('form', { name: /^Edit suite/ })).toHaveCount(0);
  expect((await a.get(`/${t.projectId}/manual-test-suites`)).body.data[0].children[0].updatedAt).toBe(stored[0].children[0].updatedAt);
});

test("a run's edit form open while another tab changes the run and a verdict is set here: Save run keeps the other's change", async ({
  page,
  tenant,
  signIn,
}) => {
  const t = await tenant('member');
  const { a } = await arrangeCase(t);
  const run = await created(a.post(`/${t.projectId}/manual-runs`, { name: 'Regression', selectionMode: 'all', environment: 'staging' }));
  await signIn(page, t.userId);
  await page.goto(`/projects/${t.projectId}/manual-runs/${run._id}`);
  await page.getByRole('button', { name: 'Edit run' }).click();
  const form = page.getByRole('form', { name: 'Edit run' });
  await expect(form.getByLabel('Environment')).toHaveValue('staging');
  await form.getByLabel('Name').fill('Regression, second pass');

  // Another tab moves the run to production; this page then sets a verdict (and so reads the run again).
  const moved = await a.patch(`/${t.projectId}/manual-runs/${run._id}`, { environment: 'production' });
  expect(moved.status, moved.text).toBe(200);
  await page
    .getByRole('group', { name: 'Set the verdict' })
    .getByRole('button', { name: /^Passed/ })
    .click();
  await expect(page.getByText('1 of 1 tested')).toBeVisible();

  await form.getByRole('button', { name: 'Save run' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Regression, second pass');
  expect((await a.get(`/${t.projectId}/manual-runs/${run._id}`)).body.data).toMatchObject({
    name: 'Regression, second pass',
    environment: 'production',
  });
});

test("a session's edit form open while another tab changes it and Close session is clicked here: Save keeps the other's change", async ({
  page,
  tenant,
  signIn,
}) => {
  const t = await tenant('member');
  const a = api(t.token);
  const session = await created(a.post(`/${t.projectId}/sessions`, { name: 'Tour the exports', environment: 'staging' }));
  await signIn(page, t.userId);
  await page.goto(`/projects/${t.projectId}/sessions/${session._id}`);
  await page.getByRole('button', { name: 'Edit session' }).click();
  await expect(page.getByLabel('Environment')).toHaveValue('staging');
  await page.getByLabel('Name').fill('Tour the CSV exports');

  // Another tab moves the session to production; this page then closes it (and so reads it again).
  const moved = await a.patch(`/${t.projectId}/sessions/${session._id}`, { environment: 'production' });
  expect(moved.status, moved.text).toBe(200);
  await page.getByRole('button', { name: 'Close session' }).click();
  await expect(page.getByRole('button', { name: 'Close session' })).toHaveCount(0);

  await page.getByRole('button', { name: 'Save session' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Tour the CSV exports');
  expect((await a.get(`/${t.projectId}/sessions/${session._id}`)).body.data).toMatchObject({
    name: 'Tour the CSV exports',
    environment: 'production',
    status: 'closed',
  });
});

test("a release's edit form open while another tab changes it and Start release is clicked here: nothing typed is lost, the other's change kept", async ({
  page,
  tenant,
  signIn,
}) => {
  const t = await tenant('member');
  const a = api(t.token);
  const release = await created(a.post(`/${t.projectId}/releases`, { name: '3.0.0', environment: 'staging' }));
  await signIn(page, t.userId);
  await page.goto(`/projects/${t.projectId}/releases/${release._id}`);
  await page.getByRole('button', { name: 'Edit release' }).click();
  await expect(page.getByLabel('Environment')).toHaveValue('staging');
  await page.getByLabel('Name').fill('3.0.0 "Wallets"');

  // Another tab moves the release to production; this page then starts it (and so reads it again).
  const moved = await a.patch(`/${t.projectId}/releases/${release._id}`, { environment: 'production' });
  expect(moved.status, moved.text).toBe(200);
  await page.getByRole('button', { name: 'Start release' }).click();
  await expect(page.getByRole('button', { name: 'Start release' })).toHaveCount(0);
  await expect(page.getByLabel('Name')).toHaveValue('3.0.0 "Wallets"');

  await page.getByRole('button', { name: 'Save release' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(/^3\.0\.0 "Wallets"/);
  expect((await a.get(`/${t.projectId}/releases/${release._id}`)).body.data).toMatchObject({
    name: '3.0.0 "Wallets"',
    environment: 'production',
    isStarted: true,
  });
});

test('a run closed in another tab while its edit form is open: Save run says so in words, the page shows it closed', async ({
  page,
  tenant,
  signIn,
}) => {
  const t = await tenant('member');
  const { a } = await arrangeCase(t);
  const release = await created(a.post(`/${t.projectId}/releases`, { name: '7.1.0' }));
  const run = await created(a.post(`/${t.projectId}/manual-runs`, { name: 'Regression', selectionMode: 'all' }));
  await signIn(page, t.userId);
  await page.goto(`/projects/${t.projectId}/manual-runs/${run._id}`);
  await page.getByRole('button', { name: 'Edit run' }).click();
  const form = page.getByRole('form', { name: 'Edit run' });
  await form.getByLabel('Name').fill('Regression, second pass');
  await form.getByLabel('Environment').fill('staging');

  const closed = await a.patch(`/${t.projectId}/manual-runs/${run._id}`, { status: 'closed' });
  expect(closed.status, closed.text).toBe(200);

  await form.getByRole('button', { name: 'Save run' }).click();
  await expect(form.getByRole('alert')).toHaveText(
    'Not saved. This run was closed meanwhile (in another tab, or by someone else): a closed run keeps its fields, only its ' +
      'release can change',
  );
  // The page now shows the run as stored: closed, its fields locked and as they are, no verdict to set.
  await expect(page.getByText('This run is closed: its verdicts can no longer change.')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Close run' })).toHaveCount(0);
  await expect(form.getByLabel('Name')).toBeDisabled();
  await expect(form.getByLabel('Name')).toHaveValue('Regression');
  await expect(form.getByText('A closed run keeps its fields; only its release can change.')).toBeVisible();
  await expect(page.getByRole('group', { name: 'Set the verdict' })).toHaveCount(0);
  await expect(page.getByRole('main')).not.toContainText('releaseId');
  await expectAccessible(page);
  expect((await a.get(`/${t.projectId}/manual-runs/${run._id}`)).body.data).toMatchObject({ name: 'Regression', environment: null });

  // What a closed run still takes: its release.
  await form.getByLabel('Release').selectOption(release._id);
  await form.getByRole('button', { name: 'Save run' }).click();
  await expect(page.getByRole('link', { name: '7.1.0' })).toBeVisible();
  expect((await a.get(`/${t.projectId}/manual-runs/${run._id}`)).body.data).toMatchObject({ releaseId: release._id, name: 'Regression' });
});

test('made a viewer while the new-case form and a run are open: Create and a verdict refused in words, nothing stored', async ({
  page,
  tenant,
  signIn,
}) => {
  const owner = await tenant('owner');
  const { a, suiteId } = await arrangeCase(owner);
  const run = await created(a.post(`/${owner.projectId}/manual-runs`, { name: 'Regression', selectionMode: 'all' }));
  const member = await testAdmin().member(owner.orgId, 'member', { projects: [owner.projectId] });
  await signIn(page, member.userId);
  await page.goto(`/projects/${owner.projectId}/manual-test-cases/new?suite=${suiteId}`);
  await expect(page.getByLabel('Suite')).toHaveValue(suiteId);
  const runTab = await page.context().newPage();
  await runTab.goto(`/projects/${owner.projectId}/manual-runs/${run._id}`);
  const passed = runTab.getByRole('group', { name: 'Set the verdict' }).getByRole('button', { name: /^Passed/ });
  await expect(passed).toBeEnabled();

  await testAdmin().setRole(owner.orgId, member.userId, 'viewer');

  await page.getByLabel('Title').fill('Pay by voucher');
  await page.getByRole('button', { name: 'Create test case' }).click();
  await expect(page.getByRole('form', { name: 'New test case' }).getByRole('alert')).toHaveText(
    'Not saved. Writes need the owner, admin or member role',
  );
  await expect(page.getByLabel('Title')).toHaveValue('Pay by voucher');
  await expect(page).toHaveURL(/\/manual-test-cases\/new\?suite=/);
  await passed.click();
  await expect(runTab.getByRole('alert')).toHaveText('Not saved. Writes need the owner, admin or member role');
  await expect(runTab.getByText('0 of 1 tested')).toBeVisible();
  await expectAccessible(runTab);
  expect((await a.get(`/${owner.projectId}/manual-test-cases`)).body.pagination.total).toBe(1);
  expect((await a.get(`/${owner.projectId}/manual-runs/${run._id}`)).body.data.stats).toMatchObject({ untested: 1, passed: 0 });

  // Opened again, the form knows the role.
  await page.reload();
  await expect(page.getByText('Your role in this project (viewer) can read test cases but not create them.')).toBeVisible();
});

test('a webhook deleted in another tab: Re-enable says it is not found; an admin made a member: Delete names the role', async ({
  page,
  tenant,
  signIn,
}) => {
  const owner = await tenant('owner');
  const a = api(owner.token);
  const P = `/${owner.projectId}/webhooks`;
  const gone = await created(a.post(P, { url: 'https://hooks.example.com/gone', events: ['RUN_FINISHED'] }));
  expect((await a.patch(`${P}/${gone._id}`, { active: false })).status).toBe(200);
  const kept = await created(a.post(P, { url: 'https://hooks.example.com/kept', events: ['RUN_FINISHED'] }));
  const admin = await testAdmin().member(owner.orgId, 'admin', { projects: [owner.projectId] });
  await signIn(page, admin.userId);

  await page.goto(`/projects/${owner.projectId}/webhooks/${gone._id}`);
  await expect(page.getByRole('button', { name: 'Re-enable' })).toBeVisible();
  expect((await a.delete(`${P}/${gone._id}`)).status).toBe(200);
  await page.getByRole('button', { name: 'Re-enable' }).click();
  // The page reads the subscription again, and says it is gone instead of showing it with its buttons.
  // The reads answer in any order: until the subscription's own says 404, the write's alert and the deliveries'
  // error show; then only the page's "not found".
  const notFound = page.getByRole('alert').filter({ hasText: 'It does not exist in this project' });
  await expect(notFound).toHaveText('Webhook not found. It does not exist in this project, or it was deleted. All webhooks');
  await expect(page.getByRole('alert')).toHaveCount(1);
  await expect(page.getByRole('button', { name: 'Re-enable' })).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Delete subscription' })).toHaveCount(0);
  await expectAccessible(page);
  expect((await a.get(`${P}/${gone._id}`)).status).toBe(404);

  await page.goto(`/projects/${owner.projectId}/webhooks/${kept._id}`);
  await expect(page.getByRole('button', { name: 'Delete subscription' })).toBeVisible();
  await testAdmin().setRole(owner.orgId, admin.userId, 'member');
  await page.getByRole('button', { name: 'Delete subscription' }).click();
  await page.getByRole('button', { name: 'Yes, delete' }).click();
  await expect(page.getByRole('alert')).toHaveText('Not done. Managing webhooks needs the owner or admin role');
  await expect(page).toHaveURL(new RegExp(`/webhooks/${kept._id}$`));
  expect((await a.get(`${P}/${kept._id}`)).body.data.active).toBe(true);
});
