/**
 * Personal access tokens in the settings (spec §5.2), in a real browser: created with a name, an expiry and its
 * projects, the secret shown once and working against the API at once; rotated (the old secret answers 401, the
 * new one 200) and revoked after a confirmation (401); an empty name refused with the API's message. A revoke
 * cancelled keeps the token; one revoked in another tab cannot be rotated, and the page says so. "Chosen projects"
 * with none ticked is refused in words a person reads, keeping what was typed, and creates nothing.
 */
import { api, expect, expectAccessible, test } from './support/fixtures';

test('create a token in the settings and use it against the API; rotate it; revoke it', async ({ page, tenant, signIn }) => {
  const t = await tenant('member');
  await signIn(page, t.userId);
  await page.goto('/settings/tokens');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Personal access tokens');
  await expectAccessible(page);

  // The API's message for a name that is only blanks, next to the form; nothing created.
  await page.getByLabel('Name').fill('   ');
  await page.getByRole('button', { name: 'Create token' }).click();
  await expect(page.getByRole('alert')).toContainText('Not created.');
  await expect(page.getByRole('table', { name: 'Your tokens' }).getByRole('row', { name: /^\s+/ })).toHaveCount(0);

  await page.getByLabel('Name').fill('CI on GitHub');
  await page.getByLabel('Expires after').selectOption('30');
  await page.getByRole('button', { name: 'Create token' }).click();
  const secretBox = page.getByLabel('Token secret');
  await expect(secretBox).toHaveText(/^svc_pat_/);
  const secret = (await secretBox.textContent())!.trim();
  await expect(page.getByRole('button', { name: 'Copy token' })).toBeVisible();
  const info = await api(secret).get(`/${t.projectId}/token-info`);
  expect(info.status, info.text).toBe(200);

  const row = page.getByRole('row', { name: /CI on GitHub/ });
  await expect(row).toContainText('All projects');
  await expectAccessible(page);
  // Shown once: a reload shows the list, never the secret again.
  await page.reload();
  await expect(page.getByLabel('Token secret')).toHaveCount(0);
  await expect(page.getByText(secret)).toHaveCount(0);

  await row.getByRole('button', { name: 'Rotate CI on GitHub' }).click();
  await expect(page.getByText('Token rotated: CI on GitHub.')).toBeVisible();
  const rotated = (await page.getByLabel('Token secret').textContent())!.trim();
  expect(rotated).not.toBe(secret);
  expect((await api(secret).get(`/${t.projectId}/token-info`)).status).toBe(401);
  expect((await api(rotated).get(`/${t.projectId}/token-info`)).status).toBe(200);

  await row.getByRole('button', { name: 'Revoke CI on GitHub' }).click();
  await row.getByRole('button', { name: 'Yes, revoke' }).click();
  await expect(row).toContainText('Revoked');
  expect((await api(rotated).get(`/${t.projectId}/token-info`)).status).toBe(401);
});

test('a token for chosen projects covers only them', async ({ page, tenant, signIn }) => {
  const t = await tenant('member');
  await signIn(page, t.userId);
  await page.goto('/settings/tokens');
  await page.getByLabel('Name').fill('One project');
  await page.getByLabel('Chosen projects').check();
  await page.getByRole('checkbox').first().check();
  await page.keyboard.press('Enter');
  const secret = (await page.getByLabel('Token secret').textContent())!.trim();
  expect((await api(secret).get(`/${t.projectId}/token-info`)).status).toBe(200);
  await expect(page.getByRole('row', { name: /One project/ })).not.toContainText('All projects');
  await expectAccessible(page);
});

test('a revoke cancelled keeps the token; a token revoked in another tab cannot be rotated here, and the page says so', async ({
  page,
  tenant,
  signIn,
}) => {
  const t = await tenant('member');
  await signIn(page, t.userId);
  await page.goto('/settings/tokens');
  await page.getByLabel('Name').fill('Nightly job');
  await page.getByRole('button', { name: 'Create token' }).click();
  const secret = (await page.getByLabel('Token secret').textContent())!.trim();
  await page.getByRole('button', { name: 'Done' }).click();
  await expect(page.getByLabel('Token secret')).toHaveCount(0);

  const row = page.getByRole('row', { name: /Nightly job/ });
  await row.getByRole('button', { name: 'Revoke Nightly job' }).click();
  await row.getByRole('button', { name: 'Cancel' }).click();
  await expect(row.getByRole('button', { name: 'Yes, revoke' })).toHaveCount(0);
  expect((await api(secret).get(`/${t.projectId}/token-info`)).status).toBe(200);

  // Revoked in another tab (the same session, through the app API), while this page still offers Rotate.
  const tokens = await page.request.get('/api/v1/app/tokens');
  const id: string = (await tokens.json()).data.find((x: { name: string }) => x.name === 'Nightly job').id;
  const revoked = await page.request.delete(`/api/v1/app/tokens/${id}`, { headers: { 'X-Assay-CSRF': '1' } });
  expect(revoked.status()).toBe(200);
  await row.getByRole('button', { name: 'Rotate Nightly job' }).click();
  await expect(row.getByRole('alert')).toContainText('Not done.');
  await expect(page.getByLabel('Token secret')).toHaveCount(0);
  expect((await api(secret).get(`/${t.projectId}/token-info`)).status).toBe(401);
  await expectAccessible(page);
});

test('chosen projects with none ticked: refused with the reason, the form keeps what was typed, nothing created', async ({
  page,
  tenant,
  signIn,
}) => {
  const t = await tenant('member');
  await signIn(page, t.userId);
  await page.goto('/settings/tokens');
  const names = async () => ((await (await page.request.get('/api/v1/app/tokens')).json()).data as { name: string }[]).map((x) => x.name);
  const before = await names();

  await page.getByLabel('Name').fill('Deploy bot');
  await page.getByLabel('Expires after').selectOption('180');
  await page.getByLabel('Chosen projects').check();
  await page.getByRole('button', { name: 'Create token' }).click();
  const alert = page.getByRole('alert');
  // With what to do, not only what is wrong (the API's "Projects: must not be empty").
  await expect(alert).toHaveText('Not created. Tick at least one project, or choose all of them.');
  await expect(page.getByLabel('Token secret')).toHaveCount(0);
  // Nothing typed is lost: the user ticks a project and sends the same form again.
  await expect(page.getByLabel('Name')).toHaveValue('Deploy bot');
  await expect(page.getByLabel('Expires after')).toHaveValue('180');
  await expect(page.getByLabel('Chosen projects')).toBeChecked();
  await expectAccessible(page);
  expect(await names()).toEqual(before);

  await page.getByRole('checkbox').first().check();
  await page.getByRole('button', { name: 'Create token' }).click();
  await expect(page.getByLabel('Token secret')).toHaveText(/^svc_pat_/);
  await expect(page.getByRole('alert')).toHaveCount(0);
  expect(await names()).toEqual(['Deploy bot', ...before]);
});
