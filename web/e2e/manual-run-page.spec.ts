/**
 * A manual run's page beyond executing it, in a real browser: editing the run (nothing changed, a linked issue
 * without id or URL and a javascript: link refused with the API's message and nothing stored, then a saved
 * environment, link and issue); a closed run's form, where only the release can change; a case's assignee by
 * e-mail (a non-member refused, a member assigned, then unassigned); a verdict clicked in a page that has not
 * seen the run closed, refused and not stored; and a viewer, who gets no write control and whose write the API
 * refuses with the same session; a forecast cleared in the form is cleared. A run of every case created from the
 * list with a release, tags and a note; its Close run refused in a page that has not seen it closed. The run's
 * cases filtered by verdict and assignee (in the URL, kept on reload): none matching, a chosen case filtered out,
 * and a run that holds no case each say so. The verdict keys s, r and u, and j/k stopping at the list's ends; no key
 * acts while an actual result or an assignee's e-mail is typed. A step result and a comment saved in a page that
 * has not seen the run closed: refused with the API's message, the typed text kept, nothing stored. Keys pressed
 * faster than a slowed-down page renders: each j counts, and the verdict key lands on the case the keys reached.
 */
import { testAdmin } from '@assay/testkit';
import { api, created, detail, expect, expectAccessible, test } from './support/fixtures';

/** A project with suite Checkout (2 classic cases) and an open run over it, "Sprint 12 regression". */
async function arrange(token: string, projectId: string) {
  const a = api(token);
  const P = `/${projectId}`;
  const checkout = await created(a.post(`${P}/manual-test-suites`, { name: 'Checkout' }));
  await created(
    a.post(`${P}/manual-test-cases`, {
      title: 'Pay with a saved card',
      suiteId: checkout._id,
      steps: [
        { action: 'Add a product to the cart', expectedResult: 'The cart shows 1 item' },
        { action: 'Pay with the saved card', expectedResult: 'The order number shows' },
      ],
    }),
  );
  await created(
    a.post(`${P}/manual-test-cases`, { title: 'Empty cart is refused', suiteId: checkout._id, steps: [{ action: 'Open /checkout' }] }),
  );
  const run = await created(
    a.post(`${P}/manual-runs`, { name: 'Sprint 12 regression', selectionMode: 'selected', suiteIds: [checkout._id] }),
  );
  const runId: string = run._id;
  const getRun = async () => (await a.get(`${P}/manual-runs/${runId}`)).body.data;
  const getCase = async (caseId: string) => {
    const cases = (await a.get(`${P}/manual-runs/${runId}/test-cases?limit=100`)).body.data;
    return cases.find((c: { testCase: { caseId: string } }) => c.testCase.caseId === caseId);
  };
  return { a, P, runId, getRun, getCase };
}

test('edit a run: nothing changed, a linked issue and a link the API refuses (nothing stored), then a saved edit', async ({
  page,
  tenant,
  signIn,
}) => {
  const t = await tenant('member');
  const { runId, getRun } = await arrange(t.token, t.projectId);
  const before = await getRun();
  await signIn(page, t.userId);
  await page.goto(`/projects/${t.projectId}/manual-runs/${runId}`);
  await expect(page.getByRole('heading', { name: 'Sprint 12 regression', level: 1 })).toBeVisible();

  const toggle = page.getByRole('button', { name: 'Edit run' });
  await toggle.click();
  const form = page.getByRole('form', { name: 'Edit run' });
  await expect(form).toBeVisible();
  await expect(page.getByRole('button', { name: 'Close the form' })).toHaveAttribute('aria-expanded', 'true');
  await expect(form.getByLabel('Name')).toHaveValue('Sprint 12 regression');
  await expect(form.getByText('No linked issues.')).toBeVisible();
  const save = form.getByRole('button', { name: 'Save run' });

  // Unchanged: nothing is sent.
  await save.click();
  await expect(form.getByRole('status')).toHaveText('Nothing changed.');

  // A linked issue with a title only: the API wants an id or a URL.
  await form.getByRole('button', { name: 'Add linked issue' }).click();
  await form.getByLabel('Issue 1 Title').fill('Discount codes are applied twice');
  await save.click();
  await expect(form.getByRole('alert')).toHaveText('Not saved. Linked issues #1: a linked issue needs displayId or url');
  await expect(form.getByRole('status')).toHaveCount(0);
  await expect(form).toBeVisible();
  await expectAccessible(page);

  // The issue fixed, but a link whose URL is no http(s) one: the whole write is refused.
  await form.getByLabel('Issue 1 ID').fill('SHOP-142');
  await form.getByRole('button', { name: 'Add link', exact: true }).click();
  await form.getByLabel('Link title 1').fill('Build 1842');
  await form.getByLabel('Link URL 1').fill('javascript:alert(1)');
  await save.click();
  await expect(form.getByRole('alert')).toHaveText('Not saved. Links #1 URL: must be an http or https URL');
  await expect(detail(page, 'Links')).toHaveText('—');
  await expect(detail(page, 'Linked issues')).toHaveText('None');
  const refused = await getRun();
  expect(refused).toMatchObject({ environment: null, links: [], linkedIssues: [], updatedAt: before.updatedAt });

  // Fixed, with an environment: saved, the form closes, the page and the API show it.
  await form.getByLabel('Link URL 1').fill('https://ci.example.com/builds/1842');
  await form.getByLabel('Environment').fill('staging');
  await save.click();
  await expect(form).toHaveCount(0);
  await expect(toggle).toHaveAttribute('aria-expanded', 'false');
  await expect(page.locator('.page-subtitle')).toContainText('· staging');
  await expect(detail(page, 'Links').getByRole('link', { name: 'Build 1842' })).toHaveAttribute(
    'href',
    'https://ci.example.com/builds/1842',
  );
  await expect(detail(page, 'Linked issues')).toHaveText('SHOP-142 · Discount codes are applied twice');
  await expect(detail(page, 'Last change')).toContainText(`by ${t.name}`);
  const saved = await getRun();
  expect(saved).toMatchObject({
    name: 'Sprint 12 regression',
    environment: 'staging',
    links: [{ title: 'Build 1842', url: 'https://ci.example.com/builds/1842' }],
    linkedIssues: [{ displayId: 'SHOP-142', title: 'Discount codes are applied twice' }],
    status: 'open',
  });
  expect(saved.linkedIssues[0]).not.toHaveProperty('url');
  await expectAccessible(page);

  // The form opens again on what is stored now.
  await toggle.click();
  await expect(form.getByLabel('Environment')).toHaveValue('staging');
  await expect(form.getByLabel('Issue 1 ID')).toHaveValue('SHOP-142');
  await save.click();
  await expect(form.getByRole('status')).toHaveText('Nothing changed.');
});

test("a closed run's form: its fields are locked, only its release changes", async ({ page, tenant, signIn }) => {
  const t = await tenant('member');
  const { a, P, runId, getRun } = await arrange(t.token, t.projectId);
  const release = await created(a.post(`${P}/releases`, { name: '4.2.0' }));
  await signIn(page, t.userId);
  await page.goto(`/projects/${t.projectId}/manual-runs/${runId}`);
  await expect(page.getByRole('heading', { name: 'Sprint 12 regression', level: 1 })).toBeVisible();

  await page.getByRole('button', { name: 'Close run' }).click();
  await expect(page.getByText('This run is closed: its verdicts can no longer change.')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Close run' })).toHaveCount(0);
  expect(await getRun()).toMatchObject({ status: 'closed', releaseId: null });

  await page.getByRole('button', { name: 'Edit run' }).click();
  const form = page.getByRole('form', { name: 'Edit run' });
  await expect(form.getByText('A closed run keeps its fields; only its release can change.')).toBeVisible();
  await expect(form.getByLabel('Name')).toBeDisabled();
  await expect(form.getByLabel('Environment')).toBeDisabled();
  await expect(form.getByLabel('Tags')).toBeDisabled();
  await expect(form.getByLabel('Release')).toBeEnabled();
  await expect(form.getByLabel('Note')).toHaveCount(0);
  await expect(form.getByRole('button', { name: 'Add link', exact: true })).toHaveCount(0);
  await expectAccessible(page);

  await form.getByLabel('Release').selectOption({ label: '4.2.0' });
  await form.getByRole('button', { name: 'Save run' }).click();
  await expect(form).toHaveCount(0);
  await expect(page.locator('.page-subtitle').getByRole('link', { name: '4.2.0' })).toHaveAttribute(
    'href',
    `/projects/${t.projectId}/releases/${release._id}`,
  );
  expect(await getRun()).toMatchObject({ status: 'closed', releaseId: release._id, name: 'Sprint 12 regression' });

  // And detached again.
  await page.getByRole('button', { name: 'Edit run' }).click();
  await expect(form.getByLabel('Release')).toHaveValue(release._id);
  await form.getByLabel('Release').selectOption({ label: 'None' });
  await form.getByRole('button', { name: 'Save run' }).click();
  await expect(form).toHaveCount(0);
  await expect(page.locator('.page-subtitle').getByRole('link', { name: '4.2.0' })).toHaveCount(0);
  expect(await getRun()).toMatchObject({ status: 'closed', releaseId: null });
  await expectAccessible(page);
});

test("a case's assignee by e-mail: a non-member refused, a member assigned, then unassigned", async ({ page, tenant, signIn }) => {
  const t = await tenant('member');
  const { runId, getCase } = await arrange(t.token, t.projectId);
  const colleague = await testAdmin().member(t.orgId, 'member', { projects: [t.projectId], name: 'Ada Lovelace' });
  await signIn(page, t.userId);
  await page.goto(`/projects/${t.projectId}/manual-runs/${runId}`);
  await expect(page.locator('#current-case-heading')).toHaveText('TC-1 Pay with a saved card');
  const assignee = page.getByText(/^Assignee: /);
  await expect(assignee).toHaveText('Assignee: nobody');
  const email = page.getByLabel('Assign to (e-mail)');
  const assign = page.getByRole('button', { name: 'Assign', exact: true });
  const row = page.getByRole('row').filter({ hasText: 'TC-1' });

  await email.fill('nobody@example.com');
  await assign.click();
  await expect(page.getByRole('alert')).toHaveText("Not assigned. Assignee user ID: is not a member of the project's organization");
  await expect(assignee).toHaveText('Assignee: nobody');
  await expect(email).toHaveValue('nobody@example.com');
  expect((await getCase('TC-1')).assignee).toBeNull();
  await expectAccessible(page);

  await email.fill(colleague.email);
  await assign.click();
  await expect(assignee).toHaveText(`Assignee: Ada Lovelace <${colleague.email}>`);
  await expect(page.getByRole('alert')).toHaveCount(0);
  await expect(email).toHaveValue('');
  await expect(row).toContainText('Ada Lovelace');
  expect((await getCase('TC-1')).assignee).toEqual({ _id: colleague.userId, name: 'Ada Lovelace', email: colleague.email });
  expect((await getCase('TC-2')).assignee).toBeNull();
  await expectAccessible(page);

  await page.getByRole('button', { name: 'Unassign' }).click();
  await expect(assignee).toHaveText('Assignee: nobody');
  await expect(page.getByRole('button', { name: 'Unassign' })).toHaveCount(0);
  await expect(row).not.toContainText('Ada Lovelace');
  expect((await getCase('TC-1')).assignee).toBeNull();
});

test("the run's cases by verdict and assignee: in the URL, kept on reload; none matching and a chosen case filtered out say so", async ({
  page,
  tenant,
  signIn,
}) => {
  const t = await tenant('member');
  const { a, P, runId } = await arrange(t.token, t.projectId);
  const colleague = await testAdmin().member(t.orgId, 'member', { projects: [t.projectId], name: 'Ada Lovelace' });
  // A third case, brought into the run by switching it to every case of the project (as its edit form can).
  await created(a.post(`${P}/manual-test-cases`, { title: 'Pay by invoice', suiteName: 'Checkout' }));
  expect((await a.patch(`${P}/manual-runs/${runId}`, { selectionMode: 'all' })).status).toBe(200);
  // TC-1 passed by this person, TC-2 failed by a colleague, TC-3 untested and unassigned.
  for (const [caseId, body] of [
    ['TC-1', { result: 'passed', assigneeUserId: t.email }],
    ['TC-2', { result: 'failed', assigneeUserId: colleague.email }],
  ] as const) {
    const set = await a.patch(`${P}/manual-runs/${runId}/test-cases/${caseId}`, body);
    expect(set.status, set.text).toBe(200);
  }
  const emptyRun = await created(
    a.post(`${P}/manual-runs`, {
      name: 'Nothing to run',
      selectionMode: 'selected',
      suiteIds: [(await created(a.post(`${P}/manual-test-suites`, { name: 'Empty' })))._id],
    }),
  );
  await signIn(page, t.userId);
  await page.goto(`/projects/${t.projectId}/manual-runs/${runId}`);
  const cases = page.getByRole('region', { name: 'Cases' });
  const listed = cases.getByRole('table').getByRole('button');
  const current = page.locator('#current-case-heading');
  const verdict = cases.getByLabel('Verdict', { exact: true });
  const assignee = cases.getByLabel('Assignee', { exact: true });
  await expect(listed).toHaveText(['TC-1 Pay with a saved card', 'TC-2 Empty cart is refused', 'TC-3 Pay by invoice']);

  await verdict.selectOption({ label: 'Failed' });
  await expect(page).toHaveURL(/[?&]result=failed(&|$)/);
  await expect(listed).toHaveText(['TC-2 Empty cart is refused']);
  await expect(current).toHaveText('TC-2 Empty cart is refused');

  // Failed and mine: none; the page says so, and still after a reload.
  await assignee.selectOption({ label: 'Me' });
  await expect(page).toHaveURL(/[?&]assignee=me(&|$)/);
  await expect(cases.getByText('No case of this run matches.')).toBeVisible();
  await expect(cases.getByRole('table')).toHaveCount(0);
  await expect(current).toHaveText('Current case');
  await page.reload();
  await expect(verdict).toHaveValue('failed');
  await expect(assignee).toHaveValue('me');
  await expect(cases.getByText('No case of this run matches.')).toBeVisible();
  await expectAccessible(page);

  await verdict.selectOption({ label: 'Any' });
  await expect(page).not.toHaveURL(/[?&]result=/);
  await expect(listed).toHaveText(['TC-1 Pay with a saved card']);
  await assignee.selectOption({ label: 'Unassigned' });
  await expect(page).toHaveURL(/[?&]assignee=none(&|$)/);
  await expect(listed).toHaveText(['TC-3 Pay by invoice']);
  await expect(cases.getByRole('row').filter({ hasText: 'TC-3' })).toContainText('Untested');

  // The chosen case (in the URL) filtered out: the page says where it went.
  await listed.first().click();
  await expect(page).toHaveURL(/[?&]case=/);
  await verdict.selectOption({ label: 'Passed' });
  await expect(cases.getByText('No case of this run matches.')).toBeVisible();
  await expect(page.getByText('The chosen case is not in this list (see the filters).')).toBeVisible();
  await expectAccessible(page);

  // Every filter cleared: the whole run again, the chosen case still the current one.
  await verdict.selectOption({ label: 'Any' });
  await assignee.selectOption({ label: 'Anyone' });
  await expect(page).not.toHaveURL(/[?&](result|assignee)=/);
  await expect(listed).toHaveCount(3);
  await expect(current).toHaveText('TC-3 Pay by invoice');

  // A run that holds no case says that, not that none matches.
  await page.goto(`/projects/${t.projectId}/manual-runs/${emptyRun._id}`);
  await expect(page.getByRole('heading', { name: 'Nothing to run', level: 1 })).toBeVisible();
  await expect(cases.getByText('This run holds no cases.')).toBeVisible();
  await expect(page.getByText('No case of this run matches.')).toHaveCount(0);
});

test('a verdict clicked after the run was closed elsewhere is refused and not stored', async ({ page, tenant, signIn }) => {
  const t = await tenant('member');
  const { a, P, runId, getRun, getCase } = await arrange(t.token, t.projectId);
  await signIn(page, t.userId);
  await page.goto(`/projects/${t.projectId}/manual-runs/${runId}`);
  await expect(page.getByText('0 of 2 tested')).toBeVisible();
  const passed = page.getByRole('group', { name: 'Set the verdict' }).getByRole('button', { name: /^Passed/ });
  await expect(passed).toBeEnabled();

  // Closed behind the page's back.
  const closed = await a.patch(`${P}/manual-runs/${runId}`, { status: 'closed' });
  expect(closed.status, closed.text).toBe(200);

  await passed.click();
  await expect(page.getByRole('alert')).toHaveText('Not saved. The run is closed: its verdicts cannot change');
  await expect(passed).toHaveAttribute('aria-pressed', 'false');
  await expect(page.getByRole('row').filter({ hasText: 'TC-1' })).toContainText('Untested');
  await expect(page.getByText('0 of 2 tested')).toBeVisible();
  await expectAccessible(page);
  expect((await getCase('TC-1')).result).toBe('untested');
  expect(await getRun()).toMatchObject({ status: 'closed', stats: { total: 2, untested: 2, passed: 0 } });

  // Once reloaded, the page knows the run is closed and offers no verdict.
  await page.reload();
  await expect(page.getByText('This run is closed: its verdicts can no longer change.')).toBeVisible();
  await expect(page.getByRole('group', { name: 'Set the verdict' })).toHaveCount(0);
});

test('a viewer sees a run without write controls, and the API refuses their verdict', async ({ page, tenant, signIn }) => {
  const owner = await tenant('owner');
  const { a, P, runId, getCase } = await arrange(owner.token, owner.projectId);
  const verdict = await a.patch(`${P}/manual-runs/${runId}/test-cases/TC-1`, { result: 'failed', assigneeUserId: owner.email });
  expect(verdict.status, verdict.text).toBe(200);
  const viewer = await testAdmin().member(owner.orgId, 'viewer', { projects: [owner.projectId] });
  await signIn(page, viewer.userId);
  await page.goto(`/projects/${owner.projectId}/manual-runs/${runId}`);
  await expect(page.getByRole('heading', { name: 'Sprint 12 regression', level: 1 })).toBeVisible();
  await expect(page.getByText('1 of 2 tested')).toBeVisible();
  await expect(page.locator('#current-case-heading')).toHaveText('TC-1 Pay with a saved card');
  // What they can read: the verdict, the assignee, the steps.
  await expect(page.getByText(/^Assignee: /)).toHaveText(`Assignee: ${owner.name} <${owner.email}>`);
  await expect(page.getByText('Pay with the saved card')).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Comment', level: 3 })).toBeVisible();

  // No write control.
  await expect(page.getByRole('heading', { name: 'Run', exact: true, level: 2 })).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Edit run' })).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Close run' })).toHaveCount(0);
  await expect(page.getByRole('group', { name: 'Set the verdict' })).toHaveCount(0);
  await expect(page.getByRole('group', { name: 'Result of step 1' })).toHaveCount(0);
  await expect(page.getByRole('button', { name: /^(Passed|Failed|Blocked|Skipped|Retest)/ })).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Assign to me' })).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Unassign' })).toHaveCount(0);
  await expect(page.getByLabel('Assign to (e-mail)')).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Save comment' })).toHaveCount(0);
  await expect(page.getByRole('region', { name: 'Keyboard shortcuts' })).not.toContainText('Passed');
  await expectAccessible(page);

  // The verdict keys do nothing; moving between cases still works.
  await page.keyboard.press('p');
  await page.keyboard.press('j');
  await expect(page.locator('#current-case-heading')).toHaveText('TC-2 Empty cart is refused');
  await page.keyboard.press('p');
  await expect(page.getByText('1 of 2 tested')).toBeVisible();

  // The same session writing to the API directly: refused.
  const refused = await page.request.patch(`/api/v1/public/${owner.projectId}/manual-runs/${runId}/test-cases/TC-2`, {
    headers: { 'X-Assay-CSRF': '1' },
    data: { result: 'passed' },
  });
  expect(refused.status()).toBe(403);
  const closing = await page.request.patch(`/api/v1/public/${owner.projectId}/manual-runs/${runId}`, {
    headers: { 'X-Assay-CSRF': '1' },
    data: { status: 'closed' },
  });
  expect(closing.status()).toBe(403);
  expect((await getCase('TC-2')).result).toBe('untested');
  expect((await getCase('TC-1')).result).toBe('failed');
  expect((await a.get(`${P}/manual-runs/${runId}`)).body.data.status).toBe('open');
});

test("clearing a run's forecast in the edit form clears it", async ({ page, tenant, signIn }) => {
  const t = await tenant('member');
  const { a, P, runId, getRun } = await arrange(t.token, t.projectId);
  const set = await a.patch(`${P}/manual-runs/${runId}`, { forecast: 3 });
  expect(set.status, set.text).toBe(200);
  await signIn(page, t.userId);
  await page.goto(`/projects/${t.projectId}/manual-runs/${runId}`);
  await expect(detail(page, 'Forecast')).toHaveText('3');
  await page.getByRole('button', { name: 'Edit run' }).click();
  const form = page.getByRole('form', { name: 'Edit run' });
  await form.getByLabel('Forecast').fill('');
  await form.getByRole('button', { name: 'Save run' }).click();
  await expect(form).toHaveCount(0);
  await expect(detail(page, 'Forecast')).toHaveText('—');
  expect((await getRun()).forecast).toBeNull();
  await expectAccessible(page);
});

test('a run of every case with a release, tags and a note, from the list; closing it in a stale page is refused', async ({
  page,
  tenant,
  signIn,
}) => {
  const t = await tenant('member');
  const { a, P } = await arrange(t.token, t.projectId);
  const release = await created(a.post(`${P}/releases`, { name: '5.0.0' }));
  await signIn(page, t.userId);
  await page.goto(`/projects/${t.projectId}/manual-runs`);
  await page.getByRole('button', { name: 'New manual run' }).click();
  const form = page.getByRole('form', { name: 'Create manual run' });
  await form.getByLabel('Name').fill('Full pass 5.0');
  await form.getByLabel('Release').selectOption({ label: '5.0.0' });
  await form.getByLabel('Tags').fill('smoke, web');
  await form.getByLabel('Note').fill('Everything before the release');
  await expect(form.getByLabel('Every case of the project')).toBeChecked();
  await form.getByRole('button', { name: 'Create run' }).click();
  await expect(page.getByRole('heading', { name: 'Full pass 5.0', level: 1 })).toBeVisible();
  await expect(page.getByText('0 of 2 tested')).toBeVisible();
  const runId = page.url().split('/manual-runs/')[1]!.split('?')[0]!;
  const stored = (await a.get(`${P}/manual-runs/${runId}`)).body.data;
  expect(stored).toMatchObject({
    selectionMode: 'all',
    releaseId: release._id,
    tags: ['smoke', 'web'],
    note: '<p>Everything before the release</p>',
    stats: { total: 2, untested: 2 },
  });

  // Closed in another tab: this page's Close run is refused, and says so.
  expect((await a.patch(`${P}/manual-runs/${runId}`, { status: 'closed' })).status).toBe(200);
  await page.getByRole('button', { name: 'Close run' }).click();
  await expect(page.getByRole('alert')).toContainText('Not closed.');
  await expect(page.getByRole('alert')).toContainText('The run is closed');
  await expectAccessible(page);
});

test('the verdict keys s, r and u, j and k at the ends of the list; no key acts while typing an actual result or an e-mail', async ({
  page,
  tenant,
  signIn,
}) => {
  const t = await tenant('member');
  const { runId, getRun, getCase } = await arrange(t.token, t.projectId);
  await signIn(page, t.userId);
  await page.goto(`/projects/${t.projectId}/manual-runs/${runId}`);
  const current = page.locator('#current-case-heading');
  const row = (caseId: string) => page.getByRole('row').filter({ hasText: caseId });
  const verdicts = page.getByRole('group', { name: 'Set the verdict' });
  const tested = page.getByText(/^\d+ of 2 tested$/);
  await expect(current).toHaveText('TC-1 Pay with a saved card');

  // k on the first case and j on the last one stay where they are.
  await page.keyboard.press('k');
  await expect(current).toHaveText('TC-1 Pay with a saved card');
  await page.keyboard.press('s');
  await expect(row('TC-1')).toContainText('Skipped');
  await expect(tested).toHaveText('1 of 2 tested');
  await expect(verdicts.getByRole('button', { name: /^Skipped/ })).toHaveAttribute('aria-pressed', 'true');
  await page.keyboard.press('j');
  await expect(current).toHaveText('TC-2 Empty cart is refused');
  await page.keyboard.press('j');
  await expect(current).toHaveText('TC-2 Empty cart is refused');
  await expect(row('TC-2')).toHaveAttribute('aria-current', 'true');
  await page.keyboard.press('r');
  await expect(row('TC-2')).toContainText('Retest');
  await expect(tested).toHaveText('2 of 2 tested');
  await expect(page.locator('dd[data-verdict="retest"]')).toHaveText('1');
  await page.keyboard.press('k');
  await expect(current).toHaveText('TC-1 Pay with a saved card');
  await page.keyboard.press('u');
  await expect(row('TC-1')).toContainText('Untested');
  await expect(tested).toHaveText('1 of 2 tested');
  await expect(verdicts.getByRole('button', { name: /^Untested/ })).toHaveAttribute('aria-pressed', 'true');
  await expectAccessible(page);
  expect((await getCase('TC-1')).result).toBe('untested');
  expect((await getCase('TC-2')).result).toBe('retest');

  // Typed into a step's actual result and into the assignee's e-mail: letters, not verdicts or moves.
  const actual = page.getByLabel('Actual result of step 2');
  await actual.click();
  await actual.pressSequentially('pfbsru jk');
  await expect(actual).toHaveValue('pfbsru jk');
  const email = page.getByLabel('Assign to (e-mail)');
  await email.click();
  await email.pressSequentially('jkp');
  await expect(email).toHaveValue('jkp');
  await expect(current).toHaveText('TC-1 Pay with a saved card');
  await expect(row('TC-1')).toContainText('Untested');
  await expect(tested).toHaveText('1 of 2 tested');
  // Leaving the field keeps the typed text with the step (the blur saves it); the verdict is still untested.
  await expect
    .poll(async () => (await getCase('TC-1')).stepResults)
    .toEqual([{ order: 2, status: 'untested', comment: '<p>pfbsru jk</p>' }]);
  expect(await getRun()).toMatchObject({ stats: { total: 2, untested: 1, retest: 1, passed: 0, failed: 0, blocked: 0, skipped: 0 } });

  // Out of the fields, the keys work again.
  await page.getByRole('heading', { name: 'Sprint 12 regression', level: 1 }).click();
  await page.keyboard.press('p');
  await expect(row('TC-1')).toContainText('Passed');
  await expect(tested).toHaveText('2 of 2 tested');
  expect(await getCase('TC-1')).toMatchObject({ result: 'passed', assignee: null });
});

test('a step result and a comment saved in a page that has not seen the run closed: refused, the text kept, nothing stored', async ({
  page,
  tenant,
  signIn,
}) => {
  const t = await tenant('member');
  const { a, P, runId, getCase } = await arrange(t.token, t.projectId);
  await signIn(page, t.userId);
  await page.goto(`/projects/${t.projectId}/manual-runs/${runId}`);
  await expect(page.locator('#current-case-heading')).toHaveText('TC-1 Pay with a saved card');
  await expect(page.getByRole('button', { name: 'Failed step 2' })).toBeVisible();

  // Closed behind the page's back.
  const closed = await a.patch(`${P}/manual-runs/${runId}`, { status: 'closed' });
  expect(closed.status, closed.text).toBe(200);

  const actual = page.getByLabel('Actual result of step 2');
  await actual.fill('No order number, a blank page');
  await page.getByRole('button', { name: 'Failed step 2' }).click();
  const stepError = page.getByRole('alert').filter({ hasText: 'Step result not saved.' });
  await expect(stepError).toHaveText('Step result not saved. The run is closed: its verdicts cannot change');
  await expect(page.getByRole('button', { name: 'Failed step 2' })).toHaveAttribute('aria-pressed', 'false');
  await expect(actual).toHaveValue('No order number, a blank page');

  const comment = page.getByLabel('Comment', { exact: true });
  await comment.fill('The order page stays blank');
  await page.getByRole('button', { name: 'Save comment' }).click();
  await expect(page.getByRole('alert').filter({ hasText: /^Not saved\./ })).toHaveText(
    'Not saved. The run is closed: its verdicts cannot change',
  );
  await expect(page.getByText('Saved.', { exact: true })).toHaveCount(0);
  await expect(comment).toHaveValue('The order page stays blank');
  await expect(stepError).toBeVisible();
  await expectAccessible(page);
  expect(await getCase('TC-1')).toMatchObject({ result: 'untested', stepResults: [], comment: '' });
});

test("a second verdict key while the first verdict is saving is ignored, as the buttons are: one save, the first's verdict", async ({
  page,
  tenant,
  signIn,
}) => {
  const t = await tenant('member');
  const { runId, getCase } = await arrange(t.token, t.projectId);
  await signIn(page, t.userId);
  await page.goto(`/projects/${t.projectId}/manual-runs/${runId}`);
  await expect(page.locator('#current-case-heading')).toHaveText('TC-1 Pay with a saved card');
  const verdicts = page.getByRole('group', { name: 'Set the verdict' });

  // The first verdict's request is held on its way (a slow network), so the second key comes while it is saving.
  const sent: string[] = [];
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  await page.route(`**/manual-runs/${runId}/test-cases/*`, async (route) => {
    if (route.request().method() !== 'PATCH') return route.fallback();
    sent.push(route.request().postDataJSON().result);
    await held;
    await route.fallback();
  });
  await page.keyboard.press('p');
  await expect.poll(() => sent).toEqual(['passed']);
  await expect(verdicts.getByRole('button', { name: /^Failed/ })).toBeDisabled();
  await page.keyboard.press('f');
  release();
  await expect(verdicts.getByRole('button', { name: /^Passed/ })).toHaveAttribute('aria-pressed', 'true');
  await expect(verdicts.getByRole('button', { name: /^Failed/ })).toBeEnabled();
  expect(sent).toEqual(['passed']);
  expect((await getCase('TC-1')).result).toBe('passed');

  // Saved and shown: the next key is taken.
  await page.keyboard.press('f');
  await expect(verdicts.getByRole('button', { name: /^Failed/ })).toHaveAttribute('aria-pressed', 'true');
  expect(sent).toEqual(['passed', 'failed']);
  expect((await getCase('TC-1')).result).toBe('failed');
});

test('keys pressed faster than the page renders: each j moves one case on, and a verdict key lands on the case it follows', async ({
  page,
  tenant,
  signIn,
}) => {
  const t = await tenant('member');
  const a = api(t.token);
  const P = `/${t.projectId}`;
  const suite = await created(a.post(`${P}/manual-test-suites`, { name: 'Smoke' }));
  for (const n of [1, 2, 3, 4, 5, 6]) await created(a.post(`${P}/manual-test-cases`, { title: `Check ${n}`, suiteId: suite._id }));
  const run = await created(a.post(`${P}/manual-runs`, { name: 'Smoke run' }));
  await signIn(page, t.userId);
  await page.goto(`/projects/${t.projectId}/manual-runs/${run._id}`);
  const current = page.locator('#current-case-heading');
  await expect(current).toHaveText('TC-1 Check 1');
  // A slow machine: renders lag behind the keys (what a busy laptop or a held-down key does).
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 20 });
  for (let i = 0; i < 3; i++) await page.keyboard.press('j');
  await page.keyboard.press('f');
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 1 });
  await expect(current).toHaveText('TC-4 Check 4');
  await expect(page.getByText('1 of 6 tested')).toBeVisible();
  const cases = (await a.get(`${P}/manual-runs/${run._id}/test-cases?limit=100`)).body.data;
  expect(Object.fromEntries(cases.map((c: { testCase: { caseId: string }; result: string }) => [c.testCase.caseId, c.result]))).toEqual({
    'TC-1': 'untested',
    'TC-2': 'untested',
    'TC-3': 'untested',
    'TC-4': 'failed',
    'TC-5': 'untested',
    'TC-6': 'untested',
  });
});
