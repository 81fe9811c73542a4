/**
 * The app served over plain http on a network address, as a self-hosted install inside a company's network often
 * is (a system of its own whose gateway listens on every interface, opened at this machine's own address, not at
 * 127.0.0.1). That is no secure context: the browser offers neither the Clipboard API nor `crypto.randomUUID`, nor
 * the service workers Playwright's trace viewer runs in. Signing in, a create (its idempotency key made without
 * `randomUUID`) and the copy buttons work there; a result's trace says how to open it instead of a viewer that
 * cannot start.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startPrivateSystem, type PrivateSystem } from '@assay/testkit';
import { expect, test } from './support/fixtures';
import { reportWithFiles } from './support/ingest';

test.describe.configure({ mode: 'serial' });

let sys: PrivateSystem;
/** The gateway at this machine's network address. */
let origin: string;

test.beforeAll(async () => {
  test.setTimeout(120_000);
  const address = Object.values(os.networkInterfaces())
    .flat()
    .find((a) => a?.family === 'IPv4' && !a.internal)?.address;
  if (!address) throw new Error('this machine has no network address but loopback: the test cannot open the app over one');
  sys = await startPrivateSystem({ name: 'web-plain-http', envFor: { gateway: { BIND_HOST: '0.0.0.0' } } });
  origin = `http://${address}:${new URL(sys.system.gatewayUrl).port}`;
});
test.afterAll(async () => {
  await sys?.stop();
});

test('over plain http on a network address: sign in, create a test case, copy a new token', async ({ page, context }) => {
  const t = await sys.admin.tenant('member');
  const suite = await sys.api(t.token).post(`/${t.projectId}/manual-test-suites`, { name: 'Checkout' });
  expect(suite.status, suite.text).toBe(201);
  const link = new URL((await sys.admin.rpc.createSignInLink({ userId: t.userId })).url);
  await page.goto(`${origin}${link.pathname}${link.hash}`);
  await expect(page).toHaveURL(new RegExp(`^${origin}/projects/${t.projectId}/runs$`));
  expect(await page.evaluate(() => window.isSecureContext)).toBe(false);
  const errors: string[] = [];
  page.on('pageerror', (err) => errors.push(err.message));

  await page.goto(`${origin}/projects/${t.projectId}/manual-test-cases/new?suite=${suite.body.data._id}`);
  await expect(page.getByLabel('Suite')).toHaveValue(suite.body.data._id);
  await page.getByLabel('Title').fill('Pay by card');
  const sent = page.waitForRequest((r) => r.method() === 'POST' && r.url().endsWith('/manual-test-cases'));
  await page.getByRole('button', { name: 'Create test case' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('TC-1 · Pay by card');
  expect(await (await sent).headerValue('idempotency-key')).toMatch(/^[0-9a-f]{32}$/);

  await page.goto(`${origin}/settings/tokens`);
  await page.getByLabel('Name').fill('CI on GitHub');
  await page.getByRole('button', { name: 'Create token' }).click();
  const secret = (await page.getByLabel('Token secret').textContent())!.trim();
  expect(secret).toMatch(/^svc_pat_/);
  await page.getByRole('button', { name: 'Copy token' }).click();
  await expect(page.getByRole('button', { name: 'Copy token' }).getByRole('status')).toHaveText('✓ Copied');
  // What the clipboard holds, read where the browser lets a page read it (a secure context of this browser).
  await context.grantPermissions(['clipboard-read'], { origin: sys.system.gatewayUrl });
  const reader = await context.newPage();
  await reader.goto(`${sys.system.gatewayUrl}/login`);
  expect(await reader.evaluate(() => navigator.clipboard.readText())).toBe(secret);
  expect(errors).toEqual([]);
});

test("over plain http on a network address: a result's trace says how to open it, and downloads", async ({ page }, testInfo) => {
  const t = await sys.admin.tenant('member');
  const trace = path.join(testInfo.outputDir, 'trace.zip');
  fs.mkdirSync(testInfo.outputDir, { recursive: true });
  fs.writeFileSync(trace, 'PK\u0005\u0006'.padEnd(22, '\u0000'));
  const { runId, caseId } = await reportWithFiles(t, [{ name: 'trace', contentType: 'application/zip', path: trace }], sys.api(t.token));
  const link = new URL((await sys.admin.rpc.createSignInLink({ userId: t.userId })).url);
  await page.goto(`${origin}${link.pathname}${link.hash}`);
  await expect(page).toHaveURL(new RegExp(`^${origin}/projects/`));

  await page.goto(`${origin}/projects/${t.projectId}/runs/${runId}/test-cases/${caseId}`);
  const attachments = page.getByRole('region', { name: 'Attachments' });
  await expect(attachments.getByText('The trace viewer needs this app over https (or at localhost).')).toBeVisible();
  await expect(attachments.getByRole('link', { name: /Open trace/ })).toHaveCount(0);
  const download = attachments.getByRole('link', { name: /^trace\.zip/ });
  const res = await page.request.get((await download.getAttribute('href'))!);
  expect([res.status(), (await res.body()).length]).toEqual([200, 22]);
});
