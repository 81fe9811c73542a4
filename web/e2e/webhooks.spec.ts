/**
 * Webhooks in a real browser: an owner creates a subscription in the page (the signing secret shown once), a
 * `javascript:` URL is refused with the API's message, a finished run shows up in the delivery history, a disabled
 * subscription is re-enabled, a subscription is deleted after a confirmation; a viewer of the same organization
 * sees the subscriptions but no write control, and the API refuses their write with the same session (403); a member
 * sees no control either. A delete cancelled keeps the subscription; one deleted in another tab meanwhile is refused,
 * and the page says so.
 */
import { largePlaywrightReport, testAdmin, WebhookReceiver } from '@assay/testkit';
import { api, expect, expectAccessible, test } from './support/fixtures';

test('create a subscription, see its deliveries, re-enable it, delete it', async ({ page, tenant, signIn }) => {
  const t = await tenant('owner');
  const receiver = await new WebhookReceiver().start();
  try {
    await signIn(page, t.userId);
    await page.goto(`/projects/${t.projectId}/webhooks`);
    await expect(page.getByText('No webhook subscriptions yet.')).toBeVisible();
    await expectAccessible(page);

    await page.getByLabel('Endpoint URL').fill('javascript:alert(1)');
    await page.getByRole('button', { name: 'Create subscription' }).click();
    await expect(page.getByRole('alert')).toContainText('Not created.');

    await page.getByLabel('Endpoint URL').fill(receiver.url('/hook'));
    await page.getByLabel('Description').fill('Chat notifications');
    await page.getByRole('button', { name: 'Create subscription' }).click();
    await expect(page.getByLabel('Signing secret')).toHaveText(/^whsec_/);
    const row = page.getByRole('row', { name: new RegExp(receiver.url('/hook')) });
    await expect(row).toContainText('RUN_FINISHED');
    await expect(row).toContainText('active');

    const run = await api(t.token).request('POST', `/api/v1/ingest/${t.projectId}/playwright`, {
      rawBody: JSON.stringify(largePlaywrightReport(3)),
      headers: { 'content-type': 'application/json' },
    });
    expect(run.status).toBe(201);
    await receiver.waitFor(() => receiver.at('/hook').length === 1, 30_000, 'the delivery');

    await row.getByRole('link').click();
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(receiver.url('/hook'));
    const deliveries = page.getByRole('table', { name: 'Deliveries' });
    await expect(async () => {
      await page.reload();
      await expect(deliveries.getByRole('row').nth(1)).toContainText('success', { timeout: 1000 });
    }).toPass({ timeout: 20_000 });
    await expect(deliveries).toContainText('HTTP 200');
    await expectAccessible(page);

    // Disabled (as after failing deliveries): the page says so, and re-enables it.
    const webhookId = page.url().split('/').at(-1)!;
    expect((await api(t.token).patch(`/${t.projectId}/webhooks/${webhookId}`, { active: false })).status).toBe(200);
    await page.reload();
    await expect(page.getByText('Disabled.')).toBeVisible();
    await page.getByRole('button', { name: 'Re-enable' }).click();
    await expect(page.getByText('Disabled.')).toHaveCount(0);
    expect((await api(t.token).get(`/${t.projectId}/webhooks/${webhookId}`)).body.data.active).toBe(true);

    await page.getByRole('button', { name: 'Delete subscription' }).click();
    await page.getByRole('button', { name: 'Yes, delete' }).click();
    await expect(page).toHaveURL(new RegExp(`/projects/${t.projectId}/webhooks$`));
    await expect(page.getByText('No webhook subscriptions yet.')).toBeVisible();
    expect((await api(t.token).get(`/${t.projectId}/webhooks/${webhookId}`)).status).toBe(404);
  } finally {
    await receiver.close();
  }
});

test('a viewer sees subscriptions without write controls, and the API refuses their write', async ({ page, tenant, signIn }) => {
  const owner = await tenant('owner');
  const viewer = await testAdmin().member(owner.orgId, 'viewer', { projects: [owner.projectId] });
  const created = await api(owner.token).post(`/${owner.projectId}/webhooks`, {
    url: 'https://hooks.example.com/assay',
    events: ['RUN_FINISHED'],
  });
  expect(created.status).toBe(201);
  await signIn(page, viewer.userId);
  await page.goto(`/projects/${owner.projectId}/webhooks`);
  await expect(page.getByRole('link', { name: 'https://hooks.example.com/assay' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Create subscription' })).toHaveCount(0);
  await page.getByRole('link', { name: 'https://hooks.example.com/assay' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('https://hooks.example.com/assay');
  await expect(page.getByRole('button', { name: 'Delete subscription' })).toHaveCount(0);
  await expectAccessible(page);
  const refused = await page.request.post(`/api/v1/public/${owner.projectId}/webhooks`, {
    headers: { 'X-Assay-CSRF': '1' },
    data: { url: 'https://hooks.example.com/other', events: ['RUN_FINISHED'] },
  });
  expect(refused.status()).toBe(403);
  // A missing subscription: the not-found state.
  await page.goto(`/projects/${owner.projectId}/webhooks/${'f'.repeat(24)}`);
  await expect(page.getByRole('alert')).toContainText('Webhook not found.');
});

test('deleting: cancel keeps the subscription; one deleted meanwhile is refused and said so; a member has no controls', async ({
  page,
  tenant,
  signIn,
}) => {
  const owner = await tenant('owner');
  const created = await api(owner.token).post(`/${owner.projectId}/webhooks`, {
    url: 'https://hooks.example.com/stale',
    events: ['RUN_FINISHED'],
  });
  expect(created.status).toBe(201);
  const webhookId: string = created.body.data._id;
  await signIn(page, owner.userId);
  await page.goto(`/projects/${owner.projectId}/webhooks/${webhookId}`);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('https://hooks.example.com/stale');

  await page.getByRole('button', { name: 'Delete subscription' }).click();
  await page.getByRole('button', { name: 'Cancel' }).click();
  await expect(page.getByRole('button', { name: 'Yes, delete' })).toHaveCount(0);
  expect((await api(owner.token).get(`/${owner.projectId}/webhooks/${webhookId}`)).status).toBe(200);

  // Deleted in another tab: this page's delete is refused, and the page says so instead of leaving.
  expect((await api(owner.token).delete(`/${owner.projectId}/webhooks/${webhookId}`)).status).toBe(200);
  await page.getByRole('button', { name: 'Delete subscription' }).click();
  await page.getByRole('button', { name: 'Yes, delete' }).click();
  await expect(page.getByRole('alert')).toContainText('Not done.');
  await expect(page.getByRole('alert')).toContainText(/not found/i);
  await expect(page).toHaveURL(new RegExp(`/webhooks/${webhookId}$`));
  await expectAccessible(page);

  // A member (not an admin) reads subscriptions but manages none.
  const again = await api(owner.token).post(`/${owner.projectId}/webhooks`, {
    url: 'https://hooks.example.com/kept',
    events: ['RUN_FINISHED'],
  });
  expect(again.status).toBe(201);
  const member = await testAdmin().member(owner.orgId, 'member', { projects: [owner.projectId] });
  await page.context().clearCookies();
  await signIn(page, member.userId);
  await page.goto(`/projects/${owner.projectId}/webhooks`);
  await expect(page.getByRole('link', { name: 'https://hooks.example.com/kept' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Create subscription' })).toHaveCount(0);
  await page.getByRole('link', { name: 'https://hooks.example.com/kept' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('https://hooks.example.com/kept');
  await expect(page.getByRole('button', { name: 'Delete subscription' })).toHaveCount(0);
});
