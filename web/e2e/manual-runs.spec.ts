/**
 * Manual runs in a real browser: a run created in the page over chosen suites, executed in the execution view
 * with verdicts set by click and by keyboard (never while typing), step results and a comment, the progress
 * following, everything still there after a reload and the API agreeing; closing a run; the list, the API's
 * refusal of an empty selection shown next to the form, the case picker, and a missing run. A new run named with
 * spaces only: refused, the form kept, nothing created.
 */
import { api, created, expect, expectAccessible, test } from './support/fixtures';

/** A project with suite Checkout (3 cases: classic, Gherkin, classic) and suite Search (1 case). */
async function arrange(token: string, projectId: string) {
  const a = api(token);
  const P = `/${projectId}`;
  const checkout = await created(a.post(`${P}/manual-test-suites`, { name: 'Checkout' }));
  const search = await created(a.post(`${P}/manual-test-suites`, { name: 'Search' }));
  const cases = [
    await created(
      a.post(`${P}/manual-test-cases`, {
        title: 'Pay with a saved card',
        suiteId: checkout._id,
        steps: [
          { action: 'Add a product to the cart', expectedResult: 'The cart shows 1 item' },
          { action: 'Pay with the saved card', expectedResult: 'The order number shows' },
        ],
      }),
    ),
    await created(
      a.post(`${P}/manual-test-cases`, {
        title: 'Apply a discount code',
        suiteId: checkout._id,
        testStepsDeclarationType: 'Gherkin',
        steps: [
          { event: 'Given', stepDescription: 'a cart worth 100' },
          { event: 'When', stepDescription: 'the code SPRING10 is applied' },
          { event: 'Then', stepDescription: 'the total is 90' },
        ],
      }),
    ),
    await created(
      a.post(`${P}/manual-test-cases`, { title: 'Empty cart is refused', suiteId: checkout._id, steps: [{ action: 'Open /checkout' }] }),
    ),
    await created(a.post(`${P}/manual-test-cases`, { title: 'Search by name', suiteId: search._id })),
  ];
  return { a, P, checkout, search, cases };
}

test('execute a manual run: verdicts by click and keyboard, step results, progress, persisted after reload', async ({
  page,
  tenant,
  signIn,
}) => {
  const t = await tenant('member');
  const { a, P } = await arrange(t.token, t.projectId);
  await signIn(page, t.userId);

  // Create the run in the page, over the Checkout suite only.
  await page.goto(`/projects/${t.projectId}/manual-runs`);
  await expect(page.getByRole('heading', { name: 'Manual runs', level: 1 })).toBeVisible();
  await expect(page.getByText('No manual runs yet.')).toBeVisible();
  await page.getByRole('button', { name: 'New manual run' }).click();
  await page.getByLabel('Name').fill('Sprint 12 regression');
  await page.getByLabel('Environment').fill('staging');
  await page.getByLabel('Chosen suites and cases').check();
  await page.getByRole('checkbox', { name: 'Checkout' }).check();
  await expectAccessible(page);
  await page.getByRole('button', { name: 'Create run' }).click();

  await expect(page.getByRole('heading', { name: 'Sprint 12 regression', level: 1 })).toBeVisible();
  const runId = page.url().split('/manual-runs/')[1]!.split('?')[0]!;
  await expect(page.getByText('0 of 3 tested')).toBeVisible();
  const current = page.locator('#current-case-heading');
  await expect(current).toHaveText('TC-1 Pay with a saved card');
  // The shortcuts are on the page.
  const shortcuts = page.getByRole('region', { name: 'Keyboard shortcuts' });
  await expect(shortcuts).toContainText('pPassed');
  await expect(shortcuts).toContainText('Next case');
  await expectAccessible(page);

  const row = (caseId: string) => page.getByRole('row').filter({ hasText: caseId });
  const verdicts = page.getByRole('group', { name: 'Set the verdict' });

  // By click.
  await verdicts.getByRole('button', { name: /^Passed/ }).click();
  await expect(page.getByText('1 of 3 tested')).toBeVisible();
  await expect(row('TC-1')).toContainText('Passed');
  await expect(verdicts.getByRole('button', { name: /^Passed/ })).toHaveAttribute('aria-pressed', 'true');

  // By keyboard: j/↓ next, k/↑ previous, f failed, b blocked.
  await page.keyboard.press('j');
  await expect(current).toHaveText('TC-2 Apply a discount code');
  await expect(row('TC-2')).toHaveAttribute('aria-current', 'true');
  await expect(page.getByText('When the code SPRING10 is applied')).toBeVisible();
  await page.keyboard.press('f');
  await expect(page.getByText('2 of 3 tested')).toBeVisible();
  await expect(row('TC-2')).toContainText('Failed');
  await page.keyboard.press('ArrowDown');
  await expect(current).toHaveText('TC-3 Empty cart is refused');
  await page.keyboard.press('b');
  await expect(page.getByText('3 of 3 tested')).toBeVisible();
  await page.keyboard.press('k');
  await expect(current).toHaveText('TC-2 Apply a discount code');
  await page.keyboard.press('ArrowUp');
  await expect(current).toHaveText('TC-1 Pay with a saved card');
  await page.keyboard.press('j');
  await expect(current).toHaveText('TC-2 Apply a discount code');

  // Typing in a field never sets a verdict.
  const comment = page.getByLabel('Comment', { exact: true });
  await comment.fill('');
  await comment.pressSequentially('pbs the banner overlaps the total');
  await expect(row('TC-2')).toContainText('Failed');
  await page.getByRole('button', { name: 'Save comment' }).click();
  await expect(page.getByText('Saved.')).toBeVisible();
  await expect(page.locator('dd[data-verdict="failed"]')).toHaveText('1');

  // Step results of the classic case: a verdict per step, with the actual result.
  await row('TC-1').getByRole('button').click();
  await expect(current).toHaveText('TC-1 Pay with a saved card');
  await page.getByRole('group', { name: 'Result of step 1' }).getByRole('button', { name: 'Passed step 1' }).click();
  await expect(page.getByRole('button', { name: 'Passed step 1' })).toHaveAttribute('aria-pressed', 'true');
  await page.getByLabel('Actual result of step 2').fill('No order number, a blank page');
  await page.getByRole('button', { name: 'Failed step 2' }).click();
  await expect(page.getByRole('button', { name: 'Failed step 2' })).toHaveAttribute('aria-pressed', 'true');

  // Assign the case to oneself.
  await page.getByRole('button', { name: 'Assign to me' }).click();
  await expect(row('TC-1')).toContainText(t.name);

  // After a reload everything is still there.
  await page.reload();
  await expect(page.getByText('3 of 3 tested')).toBeVisible();
  await expect(page.locator('dd[data-verdict="passed"]')).toHaveText('1');
  await expect(page.locator('dd[data-verdict="failed"]')).toHaveText('1');
  await expect(page.locator('dd[data-verdict="blocked"]')).toHaveText('1');
  await expect(row('TC-1')).toContainText('Passed');
  await expect(row('TC-2')).toContainText('Failed');
  await expect(row('TC-3')).toContainText('Blocked');
  await expect(current).toHaveText('TC-1 Pay with a saved card');
  await expect(page.getByLabel('Actual result of step 2')).toHaveValue('No order number, a blank page');

  // The API agrees.
  const run = (await a.get(`${P}/manual-runs/${runId}`)).body.data;
  expect(run).toMatchObject({ name: 'Sprint 12 regression', environment: 'staging', selectionMode: 'selected' });
  expect(run.stats).toEqual({ total: 3, untested: 0, passed: 1, failed: 1, blocked: 1, skipped: 0, retest: 0 });
  const runCases = (await a.get(`${P}/manual-runs/${runId}/test-cases?limit=100`)).body.data;
  const byCase = Object.fromEntries(runCases.map((c: { testCase: { caseId: string } }) => [c.testCase.caseId, c]));
  expect(byCase['TC-1'].result).toBe('passed');
  expect(byCase['TC-1'].assignee).toMatchObject({ _id: t.userId, email: t.email });
  expect(byCase['TC-1'].stepResults).toEqual([
    { order: 1, status: 'passed', comment: '' },
    { order: 2, status: 'failed', comment: '<p>No order number, a blank page</p>' },
  ]);
  expect(byCase['TC-2'].result).toBe('failed');
  expect(byCase['TC-2'].comment).toBe('<p>pbs the banner overlaps the total</p>');
  expect(byCase['TC-3'].result).toBe('blocked');
  for (const c of runCases) expect(typeof c.elapsed).toBe('number');
});

test('a closed run shows its verdicts and takes no more', async ({ page, tenant, signIn }) => {
  const t = await tenant('member');
  const { a, P, checkout } = await arrange(t.token, t.projectId);
  const run = await created(a.post(`${P}/manual-runs`, { name: 'Smoke', selectionMode: 'selected', suiteIds: [checkout._id] }));
  expect((await a.patch(`${P}/manual-runs/${run._id}/test-cases/TC-1`, { result: 'passed' })).status).toBe(200);
  await signIn(page, t.userId);
  await page.goto(`/projects/${t.projectId}/manual-runs/${run._id}`);
  await expect(page.getByText('1 of 3 tested')).toBeVisible();

  await page.getByRole('button', { name: 'Close run' }).click();
  await expect(page.getByText('This run is closed: its verdicts can no longer change.')).toBeVisible();
  await expect(page.getByRole('group', { name: 'Set the verdict' })).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Save comment' })).toHaveCount(0);
  await page.keyboard.press('f');
  await page.keyboard.press('j');
  await expect(page.locator('#current-case-heading')).toHaveText('TC-2 Apply a discount code');
  await page.keyboard.press('p');
  await expect(page.getByText('1 of 3 tested')).toBeVisible();
  expect((await a.get(`${P}/manual-runs/${run._id}`)).body.data).toMatchObject({ status: 'closed', stats: { passed: 1, untested: 2 } });
  await expectAccessible(page);
});

test('the runs list, an empty selection refused by the API, the case picker, a missing run', async ({ page, tenant, signIn }) => {
  const t = await tenant('member');
  const { P, a } = await arrange(t.token, t.projectId);
  await signIn(page, t.userId);
  await page.goto(`/projects/${t.projectId}/manual-runs`);

  await page.getByRole('button', { name: 'New manual run' }).click();
  await page.getByLabel('Name').fill('Search only');
  await page.getByLabel('Chosen suites and cases').check();
  await page.getByRole('button', { name: 'Create run' }).click();
  await expect(page.getByRole('alert')).toHaveText(/Not saved\. Selection mode: selected needs testCaseIds, suiteIds or includeUnsorted/);

  // Find a case by its title and choose it (Enter searches, it does not submit the run).
  await page.getByLabel('Find cases').fill('Search by');
  await page.getByLabel('Find cases').press('Enter');
  await expect(page.getByRole('list', { name: 'Cases found' }).getByRole('listitem')).toHaveCount(1);
  await page.getByRole('checkbox', { name: 'TC-4 Search by name' }).check();
  await expect(page.getByText('Chosen: TC-4')).toBeVisible();
  await page.getByRole('button', { name: 'Create run' }).click();
  await expect(page.getByRole('heading', { name: 'Search only', level: 1 })).toBeVisible();
  await expect(page.getByText('0 of 1 tested')).toBeVisible();

  await page.getByRole('link', { name: 'Back to manual runs' }).click();
  const row = page.getByRole('row').filter({ hasText: 'Search only' });
  await expect(row).toContainText('Open');
  await expect(row).toContainText('0 of 1 tested');
  await expectAccessible(page);
  await page.getByLabel('Status').selectOption('closed');
  await expect(page).toHaveURL(/status=closed/);
  await expect(page.getByText('No closed manual runs.')).toBeVisible();
  expect((await a.get(`${P}/manual-runs`)).body.pagination.total).toBe(1);

  await page.goto(`/projects/${t.projectId}/manual-runs/0123456789abcdef01234567`);
  await expect(page.getByRole('heading', { name: 'Manual run not found' })).toBeVisible();
  await expectAccessible(page);
});

test("a new run whose name is only spaces: refused with the API's message, the form kept, nothing created", async ({
  page,
  tenant,
  signIn,
}) => {
  const t = await tenant('member');
  const { a, P } = await arrange(t.token, t.projectId);
  await signIn(page, t.userId);
  await page.goto(`/projects/${t.projectId}/manual-runs`);
  await page.getByRole('button', { name: 'New manual run' }).click();
  const form = page.getByRole('form', { name: 'Create manual run' });
  await form.getByRole('textbox', { name: 'Name' }).fill('   ');
  await form.getByLabel('Environment').fill('staging');
  await form.getByLabel('Tags').fill('smoke');
  await form.getByLabel('Chosen suites and cases').check();
  await form.getByRole('checkbox', { name: 'Search', exact: true }).check();
  await form.getByRole('button', { name: 'Create run' }).click();
  await expect(form.getByRole('alert')).toHaveText('Not saved. Name: must not be empty');
  await expect(page).toHaveURL(new RegExp(`/projects/${t.projectId}/manual-runs$`));
  await expect(page.getByText('No manual runs yet.')).toBeVisible();
  await expect(form.getByLabel('Environment')).toHaveValue('staging');
  await expect(form.getByLabel('Tags')).toHaveValue('smoke');
  await expect(form.getByRole('checkbox', { name: 'Search', exact: true })).toBeChecked();
  await expect(form.getByRole('checkbox', { name: 'Checkout' })).not.toBeChecked();
  await expectAccessible(page);
  expect((await a.get(`${P}/manual-runs`)).body.pagination.total).toBe(0);

  // Named: created over the chosen suite only.
  await form.getByRole('textbox', { name: 'Name' }).fill('Search smoke');
  await form.getByRole('button', { name: 'Create run' }).click();
  await expect(page.getByRole('heading', { name: 'Search smoke', level: 1 })).toBeVisible();
  await expect(page.getByText('0 of 1 tested')).toBeVisible();
  const runs = (await a.get(`${P}/manual-runs`)).body;
  expect(runs.pagination.total).toBe(1);
  expect(runs.data[0]).toMatchObject({ name: 'Search smoke', environment: 'staging', tags: ['smoke'], selectionMode: 'selected' });
});
