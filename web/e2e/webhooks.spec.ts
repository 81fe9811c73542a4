/**
 * Webhooks in a real browser: an owner creates a subscription in the page (the signing secret shown once), a
 * `javascript:` URL is refused with the API's message, a finished run shows up in the delivery history, a disabled
 * subscription is re-enabled, a subscription is deleted after a confirmation; a viewer of the same organization
 * sees the subscriptions but no write control, and the API refuses their write with the same session (403); a member
 * sees no control either. A delete cancelled keeps the subscription; one deleted in another tab meanwhile is refused,
 * and the page says so. The delivery history filtered by status, in the URL: a receiver that accepts a run's start
 * and refuses its finish leaves one success and one pending retry, which turns failed when the subscription is
 * disabled; a subscription without deliveries and a status none has say so. An endpoint URL the API refuses (with
 * credentials, then not http or https): its message, the form kept as typed, nothing stored; corrected, created.
 */
import { largePlaywrightReport, resultItem, testAdmin, WebhookReceiver } from '@assay/testkit';
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

  // Deleted in another tab: this page's delete is refused (404), the page reads the subscription again and says it
  // is gone, with no buttons left, instead of leaving. (The refusal's own "Not done." alert shows only until that
  // read answers: asserting it raced the read.)
  expect((await api(owner.token).delete(`/${owner.projectId}/webhooks/${webhookId}`)).status).toBe(200);
  await page.getByRole('button', { name: 'Delete subscription' }).click();
  await page.getByRole('button', { name: 'Yes, delete' }).click();
  // The reads answer in any order: until the subscription's own says 404, the write's alert and the deliveries'
  // error show; then only the page's "not found".
  const notFound = page.getByRole('alert').filter({ hasText: 'It does not exist in this project' });
  await expect(notFound).toHaveText('Webhook not found. It does not exist in this project, or it was deleted. All webhooks');
  await expect(page.getByRole('alert')).toHaveCount(1);
  await expect(page.getByRole('button', { name: 'Delete subscription' })).toHaveCount(0);
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

test('the deliveries filtered by status, kept in the URL; none yet, and none with a status, say so', async ({ page, tenant, signIn }) => {
  const t = await tenant('admin');
  const receiver = await new WebhookReceiver().start();
  try {
    // The run's start is accepted; its finish is refused (a retry is then due in a minute).
    receiver.answer('/hook', [200, 500]);
    const created = await api(t.token).post(`/${t.projectId}/webhooks`, {
      url: receiver.url('/hook'),
      events: ['RUN_STARTED', 'RUN_FINISHED'],
    });
    expect(created.status, created.text).toBe(201);
    const webhookId: string = created.body.data._id;
    await signIn(page, t.userId);
    await page.goto(`/projects/${t.projectId}/webhooks/${webhookId}`);
    await expect(page.getByText('No deliveries yet.')).toBeVisible();
    await expect(page.getByRole('table', { name: 'Deliveries' })).toHaveCount(0);
    await expectAccessible(page);

    // A CI job streams a run: its start, a result, its finish.
    const ingest = (path: string, body: unknown) =>
      api(t.token).request('POST', `/api/v1/ingest/${t.projectId}${path}`, {
        rawBody: JSON.stringify(body),
        headers: { 'content-type': 'application/json' },
      });
    const started = await ingest('/runs', { metadata: { git: { branch: 'main' } } });
    expect(started.status, started.text).toBe(201);
    const runId: string = started.body.data.runId;
    await receiver.waitFor(() => receiver.at('/hook').length === 1, 30_000, 'the run.started delivery');
    const sent = await ingest(`/runs/${runId}/results`, { results: [resultItem('cart.spec.ts', ['cart', 'adds'], 'passed')] });
    expect(sent.status).toBe(200);
    expect((await ingest(`/runs/${runId}/finish`, {})).status).toBe(200);
    await receiver.waitFor(() => receiver.at('/hook').length === 2, 30_000, 'the run.finished delivery');

    const deliveries = page.getByRole('table', { name: 'Deliveries' });
    const rows = deliveries.getByRole('row');
    await expect(async () => {
      await page.reload();
      await expect(rows.filter({ hasText: 'pending' })).toHaveCount(1, { timeout: 1000 });
    }).toPass({ timeout: 20_000 });
    await expect(rows).toHaveCount(3);

    const status = page.getByLabel('Status');
    await status.selectOption('pending');
    await expect(page).toHaveURL(/[?&]status=pending(&|$)/);
    await expect(rows).toHaveCount(2);
    await expect(rows.nth(1)).toContainText('RUN_FINISHED');
    await expect(rows.nth(1)).toContainText('HTTP 500');
    await expect(rows.nth(1).getByRole('cell').nth(5)).not.toHaveText('—');
    await expectAccessible(page);

    await status.selectOption('success');
    await expect(page).toHaveURL(/[?&]status=success(&|$)/);
    await expect(rows).toHaveCount(2);
    await expect(rows.nth(1)).toContainText('RUN_STARTED');
    await expect(rows.nth(1)).toContainText('HTTP 200');
    await expect(rows.nth(1).getByRole('cell').nth(5)).toHaveText('—');
    await rows.nth(1).getByRole('link', { name: 'Open the run' }).click();
    await expect(page).toHaveURL(new RegExp(`/runs/${runId}$`));
    await page.goBack();
    await expect(status).toHaveValue('success');
    await expect(rows).toHaveCount(2);

    await status.selectOption('failed');
    await expect(page).toHaveURL(/[?&]status=failed(&|$)/);
    await expect(page.getByText('No delivery with the status failed.')).toBeVisible();
    await expect(deliveries).toHaveCount(0);
    await expectAccessible(page);

    // Disabled (by its owner, in another tab): the pending retry stops and reads as failed. The link keeps the filter.
    expect((await api(t.token).patch(`/${t.projectId}/webhooks/${webhookId}`, { active: false })).status).toBe(200);
    await page.reload();
    await expect(status).toHaveValue('failed');
    await expect(rows).toHaveCount(2);
    await expect(rows.nth(1)).toContainText('RUN_FINISHED');
    await expect(rows.nth(1)).toContainText('retries stopped: the subscription was disabled');
    await status.selectOption('pending');
    await expect(page.getByText('No delivery with the status pending.')).toBeVisible();
    await status.selectOption('');
    await expect(page).not.toHaveURL(/status=/);
    await expect(rows).toHaveCount(3);
  } finally {
    await receiver.close();
  }
});

test('an endpoint URL the API refuses (credentials in it, not http or https): its message, the form kept, nothing stored', async ({
  page,
  tenant,
  signIn,
}) => {
  const t = await tenant('owner');
  const list = async () => (await api(t.token).get(`/${t.projectId}/webhooks`)).body;
  await signIn(page, t.userId);
  await page.goto(`/projects/${t.projectId}/webhooks`);
  await expect(page.getByText('No webhook subscriptions yet.')).toBeVisible();
  const url = page.getByLabel('Endpoint URL');
  const create = page.getByRole('button', { name: 'Create subscription' });
  await url.fill('https://bot:hunter2@hooks.example.com/assay');
  await page.getByLabel('Run started').check();
  await page.getByLabel('Only runs that').selectOption({ label: 'fail' });
  await page.getByLabel('Description').fill('Chat notifications');
  await create.click();
  await expect(page.getByRole('alert')).toHaveText('Not created. URL: must not carry credentials');
  await expect(page.getByLabel('Signing secret')).toHaveCount(0);
  await expect(page.getByText('No webhook subscriptions yet.')).toBeVisible();
  // What was typed and chosen is still there, to be corrected.
  await expect(url).toHaveValue('https://bot:hunter2@hooks.example.com/assay');
  await expect(page.getByLabel('Run started')).toBeChecked();
  await expect(page.getByLabel('Run finished')).toBeChecked();
  await expect(page.getByLabel('Only runs that')).toHaveValue('failed');
  await expect(page.getByLabel('Description')).toHaveValue('Chat notifications');
  await expectAccessible(page);
  expect((await list()).pagination.total).toBe(0);

  await url.fill('ftp://hooks.example.com/assay');
  await create.click();
  await expect(page.getByRole('alert')).toHaveText('Not created. URL: must use http or https');
  expect((await list()).pagination.total).toBe(0);

  // Corrected: created with every other choice as it was typed.
  await url.fill('https://hooks.example.com/assay');
  await create.click();
  await expect(page.getByLabel('Signing secret')).toHaveText(/^whsec_/);
  await expect(page.getByRole('alert')).toHaveCount(0);
  await expect(page.getByRole('row', { name: /hooks\.example\.com\/assay/ })).toContainText('RUN_STARTED, RUN_FINISHED');
  const stored = await list();
  expect(stored.pagination.total).toBe(1);
  expect(stored.data[0]).toMatchObject({
    url: 'https://hooks.example.com/assay',
    events: ['RUN_STARTED', 'RUN_FINISHED'],
    conditions: { outcome: 'failed' },
    description: 'Chat notifications',
  });
});
