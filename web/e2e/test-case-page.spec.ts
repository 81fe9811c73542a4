/**
 * The test case page and the suites' edit form, in a real browser: a save the API refuses (a custom field key
 * starting with "$" or holding ".") shows the API's message on the edit and the new-case form and stores
 * nothing; a new case with a title only (the blank step row left out); the steps editor (sub-step, move
 * up/down, remove) with classification and a flag, saved exactly;
 * comments and issue keys added and stored (an over-long comment refused with the gateway's 413 message);
 * "Edit suite" renaming a suite and a move deeper than the API allows (refused, nothing changed); a viewer's
 * read-only case and the new-case page telling them their role cannot create cases. The cases list's filters in
 * the URL, and its state when none match. The suites tree by keyboard (one tab stop; arrows, Home, End, Enter
 * and Space), each choice in the URL.
 */
import { testAdmin, type Tenant } from '@assay/testkit';
import { api, detail, expect, expectAccessible, test } from './support/fixtures';

/** A suite made over the API (under `parentSuiteId` when given); answers its `_id`. */
async function makeSuite(t: Tenant, name: string, parentSuiteId?: string): Promise<string> {
  const res = await api(t.token).post(`/${t.projectId}/manual-test-suites`, { name, ...(parentSuiteId ? { parentSuiteId } : {}) });
  expect(res.status, res.text).toBe(201);
  return res.body.data._id;
}

/** A case made over the API; answers its detail (`_id`, `caseId`, …). */
async function makeCase(t: Tenant, body: Record<string, unknown>) {
  const res = await api(t.token).post(`/${t.projectId}/manual-test-cases`, body);
  expect(res.status, res.text).toBe(201);
  return res.body.data;
}

const getCase = async (t: Tenant, caseId: string) => (await api(t.token).get(`/${t.projectId}/manual-test-cases/${caseId}`)).body.data;

interface StoredStep {
  action: string;
  subSteps: StoredStep[];
}
const actions = (steps: StoredStep[]): unknown[] => steps.map((s) => (s.subSteps.length ? [s.action, actions(s.subSteps)] : s.action));

test('a custom field key the API refuses: its message on the edit and the new-case form, nothing stored', async ({
  page,
  tenant,
  signIn,
}) => {
  const t = await tenant('member');
  const suiteId = await makeSuite(t, 'Checkout');
  const made = await makeCase(t, { title: 'Pay by card', suiteId, customFields: { component: 'payments' } });
  await signIn(page, t.userId);

  await page.goto(`/projects/${t.projectId}/manual-test-cases/${made._id}`);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('TC-1 · Pay by card');
  await expect(page.getByLabel('Field name 1')).toHaveValue('component');
  await page.getByRole('button', { name: 'Add custom field' }).click();
  await page.getByLabel('Field name 2').fill('$where');
  await page.getByLabel('Value of field 2').fill('x');
  await page.getByLabel('Title').fill('Pay by card, renamed');
  await page.getByRole('button', { name: 'Save changes' }).click();
  const alert = page.getByRole('form', { name: 'Edit test case' }).getByRole('alert');
  await expect(alert).toHaveText('Not saved. Custom fields $where: keys must not start with "$"');
  await expect(page.getByText('Saved.', { exact: true })).toHaveCount(0);
  await expectAccessible(page);
  const unchanged = await getCase(t, made._id);
  expect(unchanged.customFields).toEqual({ component: 'payments' });
  expect(unchanged.title).toBe('Pay by card');

  // A key with a dot is refused too; the form keeps what was typed.
  await page.getByLabel('Field name 2').fill('Price.EUR');
  await page.getByRole('button', { name: 'Save changes' }).click();
  // The API's path is `body.customFields.Price.EUR`: the key is named as typed, not split at its dot or lowercased.
  await expect(alert).toHaveText('Not saved. Custom fields Price.EUR: keys must not contain "."');
  expect((await getCase(t, made._id)).customFields).toEqual({ component: 'payments' });
  await expect(page.getByLabel('Title')).toHaveValue('Pay by card, renamed');
  // Without the refused field the same form saves: the alert goes, the rename is stored.
  await page.getByRole('button', { name: 'Remove field 2', exact: true }).click();
  await page.getByRole('button', { name: 'Save changes' }).click();
  await expect(page.getByText('Saved.', { exact: true })).toBeVisible();
  await expect(alert).toHaveCount(0);
  const saved = await getCase(t, made._id);
  expect(saved).toMatchObject({ title: 'Pay by card, renamed', customFields: { component: 'payments' } });

  // The new-case form: refused, no case created; with the field removed the same form creates it.
  await page.goto(`/projects/${t.projectId}/manual-test-cases/new?suite=${suiteId}`);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('New test case');
  await page.getByLabel('Title').fill('Pay with a voucher');
  await expect(page.getByLabel('Suite')).toHaveValue(suiteId);
  await page.getByLabel('Step 1 Action').fill('Apply the voucher');
  await page.getByRole('button', { name: 'Add custom field' }).click();
  await page.getByLabel('Field name 1').fill('$set');
  await page.getByRole('button', { name: 'Create test case' }).click();
  const newAlert = page.getByRole('form', { name: 'New test case' }).getByRole('alert');
  await expect(newAlert).toHaveText('Not saved. Custom fields $set: keys must not start with "$"');
  await expect(page).toHaveURL(/\/manual-test-cases\/new/);
  await expectAccessible(page);
  const list = await api(t.token).get(`/${t.projectId}/manual-test-cases`);
  expect(list.body.pagination.total).toBe(1);
  expect(list.body.data.map((c: { title: string }) => c.title)).toEqual(['Pay by card, renamed']);

  await page.getByRole('button', { name: 'Remove field 1', exact: true }).click();
  await expect(page.getByText('No custom fields.')).toBeVisible();
  await page.getByRole('button', { name: 'Create test case' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(/^TC-\d+ · Pay with a voucher$/);
  expect((await api(t.token).get(`/${t.projectId}/manual-test-cases`)).body.pagination.total).toBe(2);
});

test('a new case with a title only: the blank step row the form starts with is left out', async ({ page, tenant, signIn }) => {
  const t = await tenant('member');
  const suiteId = await makeSuite(t, 'Account');
  await signIn(page, t.userId);
  await page.goto(`/projects/${t.projectId}/manual-test-cases/new?suite=${suiteId}`);
  await page.getByLabel('Title').fill('Sign out from the menu');
  await page.getByRole('button', { name: 'Add step' }).click();
  await page.getByLabel('Step 2 Expected result').fill('The sign-in page shows');
  await page.getByRole('button', { name: 'Create test case' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(/^TC-\d+ · Sign out from the menu$/);
  const made = (await api(t.token).get(`/${t.projectId}/manual-test-cases`)).body.data;
  expect(made).toHaveLength(1);
  const stored = await getCase(t, made[0].caseId);
  expect(stored.steps.classic.map((x: { expectedResult: string }) => x.expectedResult)).toEqual(['The sign-in page shows']);
});

test('the steps editor: a sub-step, moves up and down, a removal, classification and a flag, saved exactly', async ({
  page,
  tenant,
  signIn,
}) => {
  const t = await tenant('member');
  const suiteId = await makeSuite(t, 'Search');
  const made = await makeCase(t, {
    title: 'Search by keyword',
    suiteId,
    testStepsDeclarationType: 'Classic',
    steps: [{ action: 'Alpha' }, { action: 'Bravo' }, { action: 'Charlie' }],
  });
  await signIn(page, t.userId);
  await page.goto(`/projects/${t.projectId}/manual-test-cases/${made.caseId}`);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(`${made.caseId} · Search by keyword`);
  const action = (n: string) => page.getByLabel(`Step ${n} Action`, { exact: true });
  const button = (name: string) => page.getByRole('button', { name, exact: true });
  await expect(action('1')).toHaveValue('Alpha');

  await button('Move down step 1').click(); // Bravo, Alpha, Charlie
  await expect(action('1')).toHaveValue('Bravo');
  await expect(action('2')).toHaveValue('Alpha');
  await expect(button('Move down step 2')).toBeFocused();
  await button('Move up step 3').click(); // Bravo, Charlie, Alpha
  await expect(action('2')).toHaveValue('Charlie');
  await expect(action('3')).toHaveValue('Alpha');
  await expect(button('Move up step 2')).toBeFocused();
  await button('Remove step 1').click(); // Charlie, Alpha
  await expect(button('Add step')).toBeFocused();
  await expect(action('3')).toHaveCount(0);
  await expect(action('1')).toHaveValue('Charlie');
  await button('Add sub-step to step 2').click();
  await expect(action('2.1')).toBeFocused();
  await action('2.1').fill('Alpha, first part');
  await page.getByLabel('Step 2.1 Expected result', { exact: true }).fill('Results show');

  await page.getByLabel('Status', { exact: true }).selectOption('draft');
  await page.getByLabel('Priority').selectOption('high');
  await page.getByLabel('Severity').selectOption('critical');
  await page.getByLabel('Type', { exact: true }).selectOption('regression');
  await page.getByLabel('Layer').selectOption('e2e');
  await page.getByLabel('Behavior').selectOption('negative');
  await page.getByLabel('Is flaky').check();
  await expectAccessible(page);
  await page.getByRole('button', { name: 'Save changes' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Saved.' })).toBeVisible();

  const stored = await getCase(t, made._id);
  expect(stored.steps.type).toBe('classic');
  expect(actions(stored.steps.classic)).toEqual(['Charlie', ['Alpha', ['Alpha, first part']]]);
  expect(stored.steps.classic[1].subSteps[0]).toMatchObject({ action: 'Alpha, first part', expectedResult: 'Results show' });
  expect(stored.classification).toEqual({
    status: 'draft',
    priority: 'high',
    severity: 'critical',
    type: 'regression',
    layer: 'e2e',
    behavior: 'negative',
  });
  expect(stored.flags).toEqual(['Is flaky']);
  expect(stored.automation.isFlaky).toBe(true);

  // A reload shows what was stored, in the new order.
  await page.reload();
  await expect(action('1')).toHaveValue('Charlie');
  await expect(action('2')).toHaveValue('Alpha');
  await expect(action('2.1')).toHaveValue('Alpha, first part');
  await expect(page.getByLabel('Priority')).toHaveValue('high');
  await expect(page.getByLabel('Is flaky')).toBeChecked();
});

test('comments and issue keys: added, shown and stored; a comment over the body limit refused', async ({ page, tenant, signIn }) => {
  const t = await tenant('member');
  const suiteId = await makeSuite(t, 'Cart');
  const made = await makeCase(t, { title: 'Empty the cart', suiteId });
  await signIn(page, t.userId);
  await page.goto(`/projects/${t.projectId}/manual-test-cases/${made.caseId}`);
  const comments = page.getByRole('region', { name: 'Comments' });
  const links = page.getByRole('region', { name: 'Issues and automated tests' });
  await expect(comments.getByText('No comments yet.')).toBeVisible();
  await expect(links.getByText('No linked issues.')).toBeVisible();
  await expect(comments.getByRole('button', { name: 'Add comment' })).toBeDisabled();

  await page.getByLabel('New comment').fill('Fails on Safari <17> only.');
  await comments.getByRole('button', { name: 'Add comment' }).click();
  await expect(comments.getByRole('listitem')).toHaveCount(1);
  await expect(comments.getByRole('listitem')).toContainText('Fails on Safari <17> only.');
  await expect(page.getByLabel('New comment')).toHaveValue('');

  await page.getByLabel('Issue key').fill('   ');
  await expect(page.getByRole('button', { name: 'Link issue' })).toBeDisabled();
  await page.getByLabel('Issue key').fill('  SHOP-142 ');
  await page.getByRole('button', { name: 'Link issue' }).click();
  const issues = links.getByRole('list', { name: 'Linked issues' });
  await expect(issues.getByRole('listitem')).toHaveText(['SHOP-142']);
  await expect(page.getByLabel('Issue key')).toHaveValue('');
  // The same key again links nothing new.
  await page.getByLabel('Issue key').fill('SHOP-142');
  await page.getByRole('button', { name: 'Link issue' }).click();
  await expect(page.getByLabel('Issue key')).toHaveValue('');
  await expect(issues.getByRole('listitem')).toHaveText(['SHOP-142']);
  await expectAccessible(page);

  const stored = await getCase(t, made._id);
  expect(stored.comments.map((c: { text: string }) => c.text)).toEqual(['<p>Fails on Safari &lt;17&gt; only.</p>']);
  expect(stored.comments[0].author).toMatchObject({ name: t.name, email: t.email });
  expect(stored.issues).toEqual(['SHOP-142']);

  // The API takes comments and keys of any length; the gateway's 1 MiB body limit is the one refusal the form can reach.
  await page.getByLabel('New comment').fill('x'.repeat(1_100_000));
  await comments.getByRole('button', { name: 'Add comment' }).click();
  await expect(comments.getByRole('alert')).toContainText('Request body is too large');
  await expect(comments.getByRole('listitem')).toHaveCount(1);
  expect((await getCase(t, made._id)).comments).toHaveLength(1);
});

test('"Edit suite": a rename saved; a move deeper than 6 levels refused with its message, nothing changed', async ({
  page,
  tenant,
  signIn,
}) => {
  const t = await tenant('member');
  // L1 > L2 > … > L5 (depth 5), and Payments > Cards (depth 2): Payments under L5 would put Cards at depth 7.
  let parent: string | undefined;
  const chain: string[] = [];
  for (const name of ['L1', 'L2', 'L3', 'L4', 'L5']) {
    parent = await makeSuite(t, name, parent);
    chain.push(parent);
  }
  const payments = await makeSuite(t, 'Payments');
  const cards = await makeSuite(t, 'Cards', payments);
  await signIn(page, t.userId);
  await page.goto(`/projects/${t.projectId}/manual-test-cases?suite=${payments}`);
  const tree = page.getByRole('tree', { name: 'Suites' });
  await expect(tree.getByRole('treeitem', { name: 'Payments', selected: true })).toBeVisible();

  await page.getByRole('button', { name: 'Edit suite' }).click();
  const form = page.getByRole('form', { name: 'Edit suite Payments' });
  await expect(form.getByLabel('Suite name')).toHaveValue('Payments');
  // The form offers no move under the suite itself or its sub-suites.
  await expect(form.getByLabel('Parent suite').locator('option')).toHaveText(['Top level', 'L1', /L2$/, /L3$/, /L4$/, /L5$/]);
  await form.getByLabel('Suite name').fill('Wallets');
  await form.getByLabel('Parent suite').selectOption(chain[4]!);
  await form.getByRole('button', { name: 'Save suite' }).click();
  await expect(form.getByRole('alert')).toContainText('Parent suite ID: nesting depth would be 7 (max 6)');
  await expectAccessible(page);
  const after = await api(t.token).get(`/${t.projectId}/manual-test-suites`);
  const paymentsNow = after.body.data.find((s: { _id: string }) => s._id === payments);
  expect(paymentsNow).toMatchObject({ name: 'Payments', hierarchy: { parentSuite: null, depth: 1 } });
  expect(paymentsNow.children.map((c: { _id: string }) => c._id)).toEqual([cards]);
  await expect(tree.getByRole('treeitem', { name: 'Payments', selected: true })).toBeVisible();

  // Back to the top level with the new name: saved, the form closes, the tree and the API have the name.
  await form.getByLabel('Parent suite').selectOption('');
  await form.getByRole('button', { name: 'Save suite' }).click();
  await expect(page.getByRole('form', { name: /^Edit suite/ })).toHaveCount(0);
  await expect(tree.getByRole('treeitem', { name: 'Wallets', selected: true })).toBeVisible();
  await expect(tree.getByText('Payments', { exact: true })).toHaveCount(0);
  await expect(page.getByRole('heading', { name: 'Cases in Wallets' })).toBeVisible();
  const renamed = (await api(t.token).get(`/${t.projectId}/manual-test-suites`)).body.data.find((s: { _id: string }) => s._id === payments);
  expect(renamed).toMatchObject({ name: 'Wallets', hierarchy: { parentSuite: null, depth: 1 } });
  await expectAccessible(page);
});

test('a viewer reads a case without a control and cannot open the new-case form', async ({ page, tenant, signIn }) => {
  const owner = await tenant('owner');
  const suiteId = await makeSuite(owner, 'Auth');
  const made = await makeCase(owner, {
    title: 'Sign in with a password',
    suiteId,
    priority: 'high',
    flags: ['Muted'],
    customFields: { component: 'identity' },
    testStepsDeclarationType: 'Classic',
    steps: [{ action: 'Open the sign-in page', expectedResult: 'The form shows', subSteps: [{ action: 'Type the password' }] }],
  });
  const noted = await api(owner.token).patch(`/${owner.projectId}/manual-test-cases/${made._id}`, {
    comments: ['<p>Checked on staging.</p>'],
    issues: ['AUTH-7'],
  });
  expect(noted.status, noted.text).toBe(200);
  const viewer = await testAdmin().member(owner.orgId, 'viewer', { projects: [owner.projectId] });
  await signIn(page, viewer.userId);

  await page.goto(`/projects/${owner.projectId}/manual-test-cases/${made.caseId}`);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(`${made.caseId} · Sign in with a password`);
  await expect(page.getByRole('heading', { level: 2, name: 'Details' })).toBeVisible();
  await expect(detail(page, 'Priority')).toHaveText('High');
  await expect(detail(page, 'Flags')).toHaveText('Muted');
  await expect(detail(page, 'component')).toHaveText('identity');
  await expect(page.getByRole('heading', { level: 2, name: 'Steps (classic)' })).toBeVisible();
  await expect(page.getByText('Type the password')).toBeVisible();
  await expect(page.getByText('Checked on staging.')).toBeVisible();
  await expect(page.getByRole('list', { name: 'Linked issues' }).getByRole('listitem')).toHaveText(['AUTH-7']);
  await expect(page.getByRole('form')).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Save changes' })).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Add comment' })).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Link issue' })).toHaveCount(0);
  await expect(page.getByLabel('New comment')).toHaveCount(0);
  await expect(page.getByLabel('Issue key')).toHaveCount(0);
  await expect(page.getByRole('textbox')).toHaveCount(0);
  await expectAccessible(page);

  await page.goto(`/projects/${owner.projectId}/manual-test-cases/new`);
  await expect(page.getByText('Your role in this project (viewer) can read test cases but not create them.')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Create test case' })).toHaveCount(0);
  await expect(page.getByLabel('Title')).toHaveCount(0);
  await page.getByRole('link', { name: 'Back to test cases' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Test cases');
  await expect(page).toHaveURL(new RegExp(`/projects/${owner.projectId}/manual-test-cases$`));
  await expectAccessible(page);
});

test("the cases list's filters: search, a classification and tags narrow it, in the URL; none match says so", async ({
  page,
  tenant,
  signIn,
}) => {
  const t = await tenant('member');
  const suiteId = await makeSuite(t, 'Shop');
  await makeCase(t, { title: 'Pay by card', suiteId, priority: 'high', tags: 'smoke' });
  await makeCase(t, { title: 'Pay by voucher', suiteId, priority: 'low', tags: 'regression' });
  await makeCase(t, { title: 'Refund an order', suiteId, priority: 'high', tags: 'smoke' });
  await signIn(page, t.userId);
  await page.goto(`/projects/${t.projectId}/manual-test-cases`);
  const titles = page.getByRole('table').getByRole('link');
  await expect(titles).toHaveText(['Pay by card', 'Pay by voucher', 'Refund an order']);
  const filters = page.getByRole('search', { name: 'Filter test cases' });

  await filters.getByLabel('Search').fill('Pay');
  await filters.getByRole('button', { name: 'Apply' }).click();
  await expect(page).toHaveURL(/[?&]search=Pay/);
  await expect(titles).toHaveText(['Pay by card', 'Pay by voucher']);
  await filters.getByLabel('Priority').selectOption('high');
  await expect(page).toHaveURL(/[?&]priority=high/);
  await expect(titles).toHaveText(['Pay by card']);
  await expectAccessible(page);

  // The filters live in the URL: a reload keeps them.
  await page.reload();
  await expect(titles).toHaveText(['Pay by card']);
  await filters.getByLabel('Tags').fill('regression');
  await filters.getByRole('button', { name: 'Apply' }).click();
  await expect(page.getByText('No test cases match these filters.')).toBeVisible();
  await expect(page.getByRole('table')).toHaveCount(0);
});

test('the suites tree by keyboard: one tab stop, arrows open, close and move, Enter and Space choose a suite', async ({
  page,
  tenant,
  signIn,
}) => {
  const t = await tenant('member');
  const checkout = await makeSuite(t, 'Checkout');
  const payments = await makeSuite(t, 'Payments', checkout);
  await makeSuite(t, 'Wallets', payments);
  const search = await makeSuite(t, 'Search');
  await makeCase(t, { title: 'Pay with a saved card', suiteId: payments });
  await makeCase(t, { title: 'Search by name', suiteId: search });
  await signIn(page, t.userId);
  await page.goto(`/projects/${t.projectId}/manual-test-cases`);
  const tree = page.getByRole('tree', { name: 'Suites' });
  const item = (name: string) => tree.getByRole('treeitem', { name: new RegExp(`^${name}`) });
  await expect(tree.getByRole('treeitem')).toHaveCount(3);
  await expect(item('All cases')).toHaveAttribute('aria-selected', 'true');
  // One tab stop: the chosen item.
  await expect(tree.locator('[tabindex="0"]')).toHaveCount(1);
  await item('All cases').focus();

  await page.keyboard.press('ArrowDown');
  await expect(item('Checkout')).toBeFocused();
  await expect(item('Checkout')).toHaveAttribute('aria-expanded', 'false');
  await page.keyboard.press('ArrowRight');
  await expect(item('Checkout')).toHaveAttribute('aria-expanded', 'true');
  await expect(item('Payments')).toBeVisible();
  await page.keyboard.press('ArrowRight');
  await expect(item('Payments')).toBeFocused();
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowDown');
  await expect(item('Wallets')).toBeFocused();
  await expect(item('Wallets')).toHaveAttribute('aria-level', '3');
  // ← on a suite without sub-suites goes to its parent; Enter chooses it.
  await page.keyboard.press('ArrowLeft');
  await expect(item('Payments')).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(new RegExp(`[?&]suite=${payments}(&|$)`));
  await expect(item('Payments')).toHaveAttribute('aria-selected', 'true');
  await expect(page.getByRole('heading', { name: 'Cases in Payments', level: 2 })).toBeVisible();
  await expect(page.getByRole('link', { name: 'Pay with a saved card' })).toBeVisible();
  await expect(page.getByRole('link', { name: 'Search by name' })).toHaveCount(0);
  await expect(tree.locator('[tabindex="0"]')).toHaveCount(1);
  await expectAccessible(page);

  // ← closes an open suite, then goes to its parent and closes that; End and Space choose the last suite.
  await page.keyboard.press('ArrowLeft');
  await expect(item('Payments')).toHaveAttribute('aria-expanded', 'false');
  await expect(item('Wallets')).toHaveCount(0);
  await page.keyboard.press('ArrowLeft');
  await expect(item('Checkout')).toBeFocused();
  await page.keyboard.press('ArrowLeft');
  await expect(item('Checkout')).toHaveAttribute('aria-expanded', 'false');
  await expect(item('Payments')).toHaveCount(0);
  await page.keyboard.press('End');
  await expect(item('Search')).toBeFocused();
  await page.keyboard.press(' ');
  await expect(page).toHaveURL(new RegExp(`[?&]suite=${search}(&|$)`));
  await expect(page.getByRole('heading', { name: 'Cases in Search', level: 2 })).toBeVisible();
  await expect(page.getByRole('link', { name: 'Search by name' })).toBeVisible();
  await page.keyboard.press('Home');
  await expect(item('All cases')).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page).not.toHaveURL(/[?&]suite=/);
  await expect(page.getByRole('heading', { name: 'All cases', level: 2 })).toBeVisible();
  await expect(page.getByRole('link', { name: 'Search by name' })).toBeVisible();
  await expect(page.getByRole('link', { name: 'Pay with a saved card' })).toBeVisible();
});
