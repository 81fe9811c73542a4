/**
 * The webhooks' SSRF guard as a user meets it, on a system of its own with the guard on (the shared browser test
 * system allows private targets for its local receivers). It acts twice: when a subscription is created, an
 * endpoint whose host is an IP literal outside the public internet (or `localhost`) is refused in the form; a host
 * name is accepted, and checked when a delivery is sent, after DNS: a name resolving to this machine gets nothing,
 * and the delivery history says why, in the same words as for a name that resolves nowhere.
 */
import { randomBytes } from 'node:crypto';
import dns from 'node:dns/promises';
import os from 'node:os';
import type { Page } from '@playwright/test';
import { largePlaywrightReport, startPrivateSystem, WebhookReceiver, type PrivateSystem, type Tenant } from '@assay/testkit';
import { expect, expectAccessible, test } from './support/fixtures';

let sys: PrivateSystem;
test.beforeAll(async () => {
  test.setTimeout(120_000);
  sys = await startPrivateSystem({
    name: 'web-webhook-guard',
    // The guard is on by default; the consumer group is its own (the shared system's keeps its partitions).
    envFor: { webhooks: { WEBHOOK_CONSUMER_GROUP: `webhooks-guard-${randomBytes(4).toString('hex')}`, WEBHOOK_POLL_INTERVAL_MS: '50' } },
  });
});
test.afterAll(async () => {
  await sys?.stop();
});

/** An owner of a new organization of the private system, signed in on `page`, on the project's webhooks page. */
async function ownerOnWebhooks(page: Page): Promise<Tenant> {
  const t = await sys.admin.tenant('owner');
  const link = await sys.admin.rpc.createSignInLink({ userId: t.userId });
  await page.goto(link.url);
  await expect(page).not.toHaveURL(/\/sign-in/);
  await page.goto(`${sys.system.gatewayUrl}/projects/${t.projectId}/webhooks`);
  await expect(page.getByText('No webhook subscriptions yet.')).toBeVisible();
  return t;
}

test('an endpoint on a private, loopback or link-local address is refused in the form, in words; nothing is stored', async ({ page }) => {
  const t = await ownerOnWebhooks(page);
  const url = page.getByLabel('Endpoint URL');
  for (const [target, said] of [
    ['http://127.0.0.1:8080/hook', 'loopback'],
    ['http://localhost:8080/hook', 'loopback'],
    ['http://[::1]/hook', 'loopback'],
    ['http://10.1.2.3/hook', 'private'],
    // A cloud's metadata endpoint; the ranges are named in words, not the address library's `linkLocal`.
    ['http://169.254.169.254/latest/meta-data/', 'link-local'],
    ['http://100.64.0.1/hook', 'carrier-grade NAT'],
    ['http://[fd12::1]/hook', 'unique-local'],
  ]) {
    await url.fill(target!);
    await page.getByRole('button', { name: 'Create subscription' }).click();
    await expect(page.getByRole('alert')).toHaveText(`Not created. URL: must point at a public address (this host is ${said})`);
    await expect(url).toHaveValue(target!);
  }
  await expect(page.getByLabel('Signing secret')).toHaveCount(0);
  await expect(page.getByText('No webhook subscriptions yet.')).toBeVisible();
  await expectAccessible(page);
  expect((await sys.api(t.token).get(`/${t.projectId}/webhooks`)).body.pagination.total).toBe(0);
});

test('a host name resolving to this machine is accepted, but nothing is sent: the delivery history says why', async ({ page }) => {
  // This machine's name resolves to an address of its own (e.g. 127.0.1.1 or a container's 172.x): not public.
  const host = os.hostname();
  const addresses = (await dns.lookup(host, { all: true })).map((a) => a.address);
  expect(addresses.length, `${host} resolves`).toBeGreaterThan(0);
  for (const a of addresses)
    expect(a, `${host} resolves to a non-public address`).toMatch(/^(127\.|10\.|192\.168\.|172\.(1[6-9]|2\d|3[01])\.|::1$|f[cd]|fe80)/);

  const t = await ownerOnWebhooks(page);
  const receiver = await new WebhookReceiver().start();
  try {
    const target = `http://${host}:${receiver.port}/hook`;
    await page.getByLabel('Endpoint URL').fill(target);
    await page.getByRole('button', { name: 'Create subscription' }).click();
    await expect(page.getByLabel('Signing secret')).toHaveText(/^whsec_/);

    const run = await sys.api(t.token).request('POST', `/api/v1/ingest/${t.projectId}/playwright`, {
      rawBody: JSON.stringify(largePlaywrightReport(3)),
      headers: { 'content-type': 'application/json' },
    });
    expect(run.status, run.text).toBe(201);

    await page.getByRole('link', { name: target }).click();
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(target);
    const deliveries = page.getByRole('table', { name: 'Deliveries' });
    await expect(async () => {
      await page.reload();
      await expect(deliveries.getByRole('row').nth(1)).toContainText('not sent: the target does not resolve to a public address', {
        timeout: 1000,
      });
    }).toPass({ timeout: 30_000 });
    // Refused before any connection: no HTTP answer, and retried later (each attempt is refused the same way).
    await expect(deliveries.getByRole('row').nth(1).getByRole('cell')).toHaveText([
      'RUN_FINISHED',
      'Open the run',
      'pending',
      '1',
      'not sent: the target does not resolve to a public address',
      /\d/,
      /\d/,
    ]);
    await expectAccessible(page);
    expect(receiver.at('/hook')).toHaveLength(0);
  } finally {
    await receiver.close();
  }
});
