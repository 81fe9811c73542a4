/**
 * What people type into the forms, in a real browser: a value exactly at the spec's limit (counted in characters,
 * as the API counts them, with emoji, right-to-left text, combining marks and text that looks like HTML) is
 * accepted, stored whole and shown literally; one character more is refused in words next to the form, what was
 * typed kept and nothing stored (never cut short by the browser without a word). The case editor (title, step
 * texts, Gherkin text named as the form labels it, a case at its 100 steps, custom fields named twice, repeated
 * tags), a suite, a release, a session (and its estimate, a blank linked issue row), a manual run, a webhook, a
 * personal token, a PDF report's window, branch and tags, and the comment on a manual run's result.
 */
import type { Page } from '@playwright/test';
import type { Tenant } from '@assay/testkit';
import { api, created, expect, expectAccessible, test } from './support/fixtures';

/** Emoji (one with a joiner), Hebrew, Arabic, a letter with a combining accent, and text that looks like HTML. */
const MIXED = [...'😀 👩‍💻 שלום مرحبا e\u0301 <b>x</b> &amp; <script>alert(1)</script> '];

/** `n` characters (code points, as the API counts them) of MIXED, starting and ending with a letter. */
function typed(n: number): string {
  const chars = ['A'];
  for (let i = 0; chars.length < n - 1; i++) chars.push(MIXED[i % MIXED.length]!);
  chars.push('Z');
  const text = chars.slice(0, n).join('');
  expect([...text]).toHaveLength(n);
  return text;
}

const suite = async (t: Tenant, name = 'Checkout') =>
  (await created(api(t.token).post(`/${t.projectId}/manual-test-suites`, { name })))._id;
const getCase = async (t: Tenant, id: string) => (await api(t.token).get(`/${t.projectId}/manual-test-cases/${id}`)).body.data;

/** The form's alert, which starts with `title` ("Not saved", "Not created", …). */
const alertOf = (page: Page, title: string) => page.getByRole('alert').filter({ hasText: new RegExp(`^${title}\\.`) });

test('a case title of 500 characters is saved whole and shown literally; 501 and only spaces are refused, the text kept', async ({
  page,
  tenant,
  signIn,
}) => {
  const t = await tenant('member');
  const suiteId = await suite(t);
  const made = await created(api(t.token).post(`/${t.projectId}/manual-test-cases`, { title: 'Pay by card', suiteId }));
  await signIn(page, t.userId);
  await page.goto(`/projects/${t.projectId}/manual-test-cases/${made.caseId}`);
  const title = page.getByLabel('Title');
  const save = page.getByRole('button', { name: 'Save changes' });
  const refused = alertOf(page, 'Not saved');

  const over = typed(501);
  await title.fill(over);
  await expect(title).toHaveValue(over);
  await save.click();
  await expect(refused).toHaveText('Not saved. Title: must be at most 500 characters');
  await expect(title).toHaveValue(over);
  await expectAccessible(page);
  expect((await getCase(t, made._id)).title).toBe('Pay by card');

  await title.fill('   ');
  await save.click();
  await expect(refused).toHaveText('Not saved. Title: must not be empty');
  await expect(title).toHaveValue('   ');
  expect((await getCase(t, made._id)).title).toBe('Pay by card');

  const atLimit = typed(500);
  await title.fill(atLimit);
  await save.click();
  await expect(page.getByRole('status').filter({ hasText: 'Saved.' })).toBeVisible();
  await expect(refused).toHaveCount(0);
  expect((await getCase(t, made._id)).title).toBe(atLimit);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(`${made.caseId} · ${atLimit}`);
  await page.reload();
  await expect(title).toHaveValue(atLimit);
});

test('step texts of 5000 characters (classic and Gherkin, down to the deepest sub-step) are saved whole; 5001 refused', async ({
  page,
  tenant,
  signIn,
}) => {
  const t = await tenant('member');
  const suiteId = await suite(t);
  await signIn(page, t.userId);
  await page.goto(`/projects/${t.projectId}/manual-test-cases/new?suite=${suiteId}`);
  await page.getByLabel('Title').fill('Long steps');
  const full = typed(5000);
  const action = page.getByLabel('Step 1 Action', { exact: true });
  await action.fill(full);
  await expect(action).toHaveValue(full);
  const expected = page.getByLabel('Step 1 Expected result', { exact: true });
  const over = typed(5001);
  await expected.fill(over);
  await expect(expected).toHaveValue(over);
  await page.getByRole('button', { name: 'Create test case' }).click();
  await expect(alertOf(page, 'Not saved')).toHaveText('Not saved. Step 1 expected result: must be at most 5000 characters');
  await expect(expected).toHaveValue(over);
  await expect(page).toHaveURL(/\/manual-test-cases\/new/);
  expect((await api(t.token).get(`/${t.projectId}/manual-test-cases`)).body.pagination.total).toBe(0);

  await expected.fill('The order is paid');
  await page.getByRole('button', { name: 'Create test case' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('TC-1 · Long steps');
  expect((await getCase(t, 'TC-1')).steps.classic[0]).toMatchObject({ action: full, expectedResult: 'The order is paid' });
  await expect(action).toHaveValue(full);

  // Gherkin: a sub-step five levels below its step, its text at the limit.
  await page.getByLabel('Gherkin (Given, When, Then)').check();
  await page.getByLabel('Step 1 Text', { exact: true }).fill('a cart');
  let path = '1';
  for (let level = 1; level <= 5; level++) {
    await page.getByRole('button', { name: `Add sub-step to step ${path}`, exact: true }).click();
    path += '.1';
    await page.getByLabel(`Step ${path} Text`, { exact: true }).fill(level === 5 ? typed(5001) : `level ${level}`);
  }
  await expect(page.getByRole('button', { name: `Add sub-step to step ${path}`, exact: true })).toHaveCount(0);
  await page.getByRole('button', { name: 'Save changes' }).click();
  // Named as the form labels it ("Text"), not by the API's field (`stepDescription`).
  await expect(alertOf(page, 'Not saved')).toHaveText(`Not saved. Step ${path} text: must be at most 5000 characters`);
  expect((await getCase(t, 'TC-1')).steps.type).toBe('classic');
  await page.getByLabel(`Step ${path} Text`, { exact: true }).fill(full);
  await page.getByRole('button', { name: 'Save changes' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Saved.' })).toBeVisible();
  let step = (await getCase(t, 'TC-1')).steps.gherkin[0];
  for (let level = 1; level <= 5; level++) step = step.subSteps[0];
  expect(step.text).toBe(full);
});

test('custom fields: a value at length and HTML-looking text kept literally; a name given twice refused, nothing lost', async ({
  page,
  tenant,
  signIn,
}) => {
  const t = await tenant('member');
  const suiteId = await suite(t);
  const made = await created(
    api(t.token).post(`/${t.projectId}/manual-test-cases`, { title: 'Refund', suiteId, customFields: { component: 'payments' } }),
  );
  await signIn(page, t.userId);
  await page.goto(`/projects/${t.projectId}/manual-test-cases/${made.caseId}`);
  await page.getByRole('button', { name: 'Add custom field' }).click();
  await page.getByLabel('Field name 2').fill('component');
  await page.getByLabel('Value of field 2').fill('billing');
  await page.getByRole('button', { name: 'Save changes' }).click();
  await expect(alertOf(page, 'Not saved')).toHaveText('Not saved. Custom fields: the name "component" is given twice');
  await expect(page.getByLabel('Value of field 1')).toHaveValue('payments');
  await expect(page.getByLabel('Value of field 2')).toHaveValue('billing');
  expect((await getCase(t, made._id)).customFields).toEqual({ component: 'payments' });

  const value = typed(300);
  await page.getByLabel('Field name 2').fill('Notes <i>, for support');
  await page.getByLabel('Value of field 2').fill(value);
  await page.getByLabel('Tags').fill('smoke, login, smoke,  , login');
  await page.getByRole('button', { name: 'Save changes' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Saved.' })).toBeVisible();
  const stored = await getCase(t, made._id);
  expect(stored.customFields).toEqual({ component: 'payments', 'Notes <i>, for support': value });
  expect(stored.tags).toEqual(['smoke', 'login']);
  await page.reload();
  await expect(page.getByLabel('Field name 2')).toHaveValue('Notes <i>, for support');
  await expect(page.getByLabel('Value of field 2')).toHaveValue(value);
  await expect(page.getByLabel('Tags')).toHaveValue('smoke, login');
});

test('a suite name of 500 and a description of 2000 characters are saved whole; one more refused, the form kept', async ({
  page,
  tenant,
  signIn,
}) => {
  const t = await tenant('member');
  await signIn(page, t.userId);
  await page.goto(`/projects/${t.projectId}/manual-test-cases`);
  await page.getByRole('button', { name: 'New suite' }).click();
  const form = page.getByRole('form', { name: 'New suite' });
  const name = form.getByLabel('Suite name');
  const description = form.getByLabel('Suite description');
  const over = typed(501);
  await name.fill(over);
  await description.fill(typed(2001));
  await form.getByRole('button', { name: 'Create suite' }).click();
  await expect(form.getByRole('alert').getByRole('listitem')).toHaveText([
    'Name: must be at most 500 characters',
    'Description: must be at most 2000 characters',
  ]);
  await expect(name).toHaveValue(over);
  await expect(description).toHaveValue(typed(2001));
  expect((await api(t.token).get(`/${t.projectId}/manual-test-suites`)).body.data).toEqual([]);

  await name.fill('   ');
  await description.fill('');
  await form.getByRole('button', { name: 'Create suite' }).click();
  await expect(form.getByRole('alert')).toHaveText('Not saved. Name: must not be empty');
  expect((await api(t.token).get(`/${t.projectId}/manual-test-suites`)).body.data).toEqual([]);

  const full = typed(500);
  await name.fill(full);
  await description.fill(typed(2000));
  await form.getByRole('button', { name: 'Create suite' }).click();
  await expect(form).toHaveCount(0);
  const [stored] = (await api(t.token).get(`/${t.projectId}/manual-test-suites`)).body.data;
  expect(stored).toMatchObject({ name: full, description: typed(2000) });
  await expect(page.getByRole('tree').getByRole('treeitem', { name: full })).toBeVisible();
});

test('a release and a session named with 255 characters are created whole; 256 refused, nothing created', async ({
  page,
  tenant,
  signIn,
}) => {
  const t = await tenant('member');
  await signIn(page, t.userId);
  for (const [list, open, submit, heading] of [
    ['releases', 'New release', 'Create release', 'Releases'],
    ['sessions', 'New session', 'Start session', 'Exploratory sessions'],
  ] as const) {
    await page.goto(`/projects/${t.projectId}/${list}`);
    await page.getByRole('button', { name: open }).click();
    const name = page.getByLabel('Name', { exact: true });
    const over = typed(256);
    await name.fill(over);
    await page.getByRole('button', { name: submit }).click();
    await expect(alertOf(page, 'Not saved')).toHaveText('Not saved. Name: must be at most 255 characters');
    await expect(name).toHaveValue(over);
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(heading);
    expect((await api(t.token).get(`/${t.projectId}/${list}`)).body.data).toEqual([]);

    const full = typed(255);
    await name.fill(full);
    await page.getByRole('button', { name: submit }).click();
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(full);
    const [stored] = (await api(t.token).get(`/${t.projectId}/${list}`)).body.data;
    expect(stored.name).toBe(full);
  }
});

test('a manual run named with 255 characters is created whole, its tags once each; 256 refused, nothing created', async ({
  page,
  tenant,
  signIn,
}) => {
  const t = await tenant('member');
  await signIn(page, t.userId);
  await page.goto(`/projects/${t.projectId}/manual-runs`);
  await page.getByRole('button', { name: 'New manual run' }).click();
  const name = page.getByLabel('Name', { exact: true });
  const over = typed(256);
  await name.fill(over);
  await page.getByLabel('Tags').fill('nightly, ios, nightly, , ios');
  await page.getByRole('button', { name: 'Create run' }).click();
  await expect(alertOf(page, 'Not saved')).toHaveText('Not saved. Name: must be at most 255 characters');
  await expect(name).toHaveValue(over);
  expect((await api(t.token).get(`/${t.projectId}/manual-runs`)).body.data).toEqual([]);

  const full = typed(255);
  await name.fill(full);
  await page.getByRole('button', { name: 'Create run' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(full);
  const [stored] = (await api(t.token).get(`/${t.projectId}/manual-runs`)).body.data;
  expect(stored).toMatchObject({ name: full, tags: ['nightly', 'ios'] });
});

test('a webhook description of 200 characters is stored whole; 201 refused in words, the form kept', async ({ page, tenant, signIn }) => {
  const t = await tenant('owner');
  await signIn(page, t.userId);
  await page.goto(`/projects/${t.projectId}/webhooks`);
  const form = page.getByRole('form', { name: 'New subscription' });
  await form.getByLabel('Endpoint URL').fill('https://hooks.example.com/assay');
  const description = form.getByLabel('Description');
  const over = typed(201);
  await description.fill(over);
  await expect(description).toHaveValue(over);
  await form.getByRole('button', { name: 'Create subscription' }).click();
  await expect(form.getByRole('alert')).toHaveText('Not created. Description: must be at most 200 characters');
  await expect(description).toHaveValue(over);
  expect((await api(t.token).get(`/${t.projectId}/webhooks`)).body.data).toEqual([]);

  // The URL: 2049 characters refused, 2048 taken whole.
  const url = (n: number) => `https://hooks.example.com/${'a'.repeat(n - 'https://hooks.example.com/'.length)}`;
  await description.fill('Chat');
  await form.getByLabel('Endpoint URL').fill(url(2049));
  await form.getByRole('button', { name: 'Create subscription' }).click();
  await expect(form.getByRole('alert')).toHaveText('Not created. URL: must be at most 2048 characters');
  await expect(form.getByLabel('Endpoint URL')).toHaveValue(url(2049));
  expect((await api(t.token).get(`/${t.projectId}/webhooks`)).body.data).toEqual([]);

  const full = typed(200);
  await description.fill(full);
  await form.getByLabel('Endpoint URL').fill(url(2048));
  await form.getByRole('button', { name: 'Create subscription' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Subscription created' })).toBeVisible();
  const [stored] = (await api(t.token).get(`/${t.projectId}/webhooks`)).body.data;
  expect(stored).toMatchObject({ description: full, url: url(2048) });
  await expect(page.getByRole('table').getByText(full, { exact: true })).toBeVisible();
});

test('a token name of 100 characters is kept whole; 101 refused in words, the form kept', async ({ page, tenant, signIn }) => {
  const t = await tenant('member');
  await signIn(page, t.userId);
  await page.goto('/settings/tokens');
  const form = page.getByRole('form', { name: 'New token' });
  const name = form.getByLabel('Name');
  const names = page.getByRole('table', { name: 'Your tokens' }).getByRole('rowheader');
  await expect(names).toHaveCount(1);
  const before = await names.allTextContents();
  const over = typed(101);
  await name.fill(over);
  await expect(name).toHaveValue(over);
  await form.getByRole('button', { name: 'Create token' }).click();
  await expect(form.getByRole('alert')).toHaveText('Not created. Name: must be at most 100 characters');
  await expect(name).toHaveValue(over);
  // The tenant's own token, and no other.
  await expect(names).toHaveCount(1);

  const full = typed(100);
  await name.fill(full);
  await form.getByRole('button', { name: 'Create token' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Token created:' })).toContainText(`Token created: ${full}.`);
  await expect.poll(async () => (await names.allTextContents()).sort()).toEqual([...before, full].sort());
});

test('a PDF report: every window offered is taken; a branch of 200 characters and 20 tags are accepted', async ({
  page,
  tenant,
  signIn,
}) => {
  const t = await tenant('member');
  await signIn(page, t.userId);
  await page.goto(`/projects/${t.projectId}/reports`);
  const form = page.getByRole('form', { name: 'New PDF report' });
  const options = await form
    .getByLabel('Window')
    .locator('option')
    .evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value));
  // The API takes 1 to 30 days: a window it refuses is never offered.
  expect(options.map(Number).every((d) => d >= 1 && d <= 30)).toBe(true);

  await form.getByLabel('Tags (optional, comma-separated)').fill(Array.from({ length: 21 }, (_, i) => `tag${i + 1}`).join(', '));
  await form.getByRole('button', { name: 'Generate report' }).click();
  await expect(form.getByRole('alert')).toHaveText('Not generated. Tags: must have at most 20 items');

  await form.getByLabel('Tags (optional, comma-separated)').fill('smoke');
  await form.getByLabel('Branch (optional)').fill(typed(201));
  await form.getByRole('button', { name: 'Generate report' }).click();
  await expect(form.getByRole('alert')).toHaveText('Not generated. Branch: must be at most 200 characters');

  // At the limits: 200 characters of emoji and right-to-left text, and 20 tags (one of them typed twice).
  const branch = typed(200);
  await form.getByLabel('Branch (optional)').fill(branch);
  await form.getByLabel('Tags (optional, comma-separated)').fill(Array.from({ length: 21 }, (_, i) => `tag${(i % 20) + 1}`).join(', '));
  await form.getByRole('button', { name: 'Generate report' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(/^Report: last \d+ days$/);
});

test("a manual run result's comment with emoji, right-to-left text and HTML-looking text round-trips exactly", async ({
  page,
  tenant,
  signIn,
}) => {
  const t = await tenant('member');
  const suiteId = await suite(t);
  await created(api(t.token).post(`/${t.projectId}/manual-test-cases`, { title: 'Pay by card', suiteId }));
  const run = await created(api(t.token).post(`/${t.projectId}/manual-runs`, { name: 'Nightly' }));
  await signIn(page, t.userId);
  await page.goto(`/projects/${t.projectId}/manual-runs/${run._id}`);
  await expect(page.locator('#current-case-heading')).toHaveText('TC-1 Pay by card');
  const comment = page.getByLabel('Comment', { exact: true });
  const text = `${typed(80)}\n\n<img src=x onerror="alert(1)"> &lt;tag&gt; 1 < 2 & 3 > 2\nשלום, e\u0301 👩‍💻`;
  await comment.fill(text);
  await page.getByRole('button', { name: 'Save comment' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Saved.' })).toBeVisible();
  await page.reload();
  await expect(comment).toHaveValue(text);
});

test('a case at its 100 steps: no step can be added, and it says why; all 100 saved again whole', async ({ page, tenant, signIn }) => {
  const t = await tenant('member');
  const suiteId = await suite(t);
  const steps = Array.from({ length: 100 }, (_, i) => ({ action: `Step ${i + 1} <b>&amp;</b> ✓` }));
  const made = await created(api(t.token).post(`/${t.projectId}/manual-test-cases`, { title: 'Many steps', suiteId, steps }));
  await signIn(page, t.userId);
  await page.goto(`/projects/${t.projectId}/manual-test-cases/${made.caseId}`);
  await expect(page.getByLabel('Step 100 Action', { exact: true })).toHaveValue('Step 100 <b>&amp;</b> ✓');
  await expect(page.getByRole('button', { name: 'Add step', exact: true })).toBeDisabled();
  await expect(page.getByText('A case holds at most 100 steps.')).toBeVisible();
  await page.getByLabel('Step 50 Action', { exact: true }).fill('Step 50, changed');
  await page.getByRole('button', { name: 'Save changes' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Saved.' })).toBeVisible();
  const stored = (await getCase(t, made._id)).steps.classic.map((x: { action: string }) => x.action);
  expect(stored).toEqual(steps.map((x, i) => (i === 49 ? 'Step 50, changed' : x.action)));
  await page.getByRole('button', { name: 'Remove step 1', exact: true }).click();
  await expect(page.getByRole('button', { name: 'Add step', exact: true })).toBeEnabled();
  await expect(page.getByText('A case holds at most 100 steps.')).toHaveCount(0);
});

test("a session's estimate below 0 or not whole is refused in words on its edit form, the text kept, nothing stored", async ({
  page,
  tenant,
  signIn,
}) => {
  const t = await tenant('member');
  const made = await created(api(t.token).post(`/${t.projectId}/sessions`, { name: 'Tour the settings', estimate: 30 }));
  await signIn(page, t.userId);
  await page.goto(`/projects/${t.projectId}/sessions/${made._id}`);
  await page.getByRole('button', { name: 'Edit session' }).click();
  const estimate = page.getByLabel('Estimate (minutes)');
  const save = page.getByRole('button', { name: 'Save session' });
  for (const [value, message] of [
    ['-5', 'Not saved. Estimate: must be at least 0'],
    ['1.5', 'Not saved. Estimate: must be a whole number'],
  ] as const) {
    await estimate.fill(value);
    await save.click();
    await expect(alertOf(page, 'Not saved')).toHaveText(message);
    await expect(estimate).toHaveValue(value);
  }
  expect((await api(t.token).get(`/${t.projectId}/sessions/${made._id}`)).body.data.estimate).toBe(30);
  await estimate.fill('45');
  await page.getByLabel('Tags').fill('mobile, ios, mobile');
  // A linked issue row added and left blank (or only spaces) is left out, as a blank step row is.
  await page.getByRole('button', { name: 'Add linked issue' }).click();
  await page.getByLabel('Issue 1 ID').fill('  ');
  await save.click();
  await expect(save).toHaveCount(0);
  expect((await api(t.token).get(`/${t.projectId}/sessions/${made._id}`)).body.data).toMatchObject({
    estimate: 45,
    tags: ['mobile', 'ios'],
    linkedIssues: [],
  });
});
