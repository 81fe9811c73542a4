/**
 * PDF reports in a real browser: generated from the form, the report page following its status until it is ready,
 * the download a real PDF; a bad filter refused with the API's message; a report that does not exist. The spec's
 * limit of one PDF a minute per user (on a gateway of its own: the shared one's limits are raised): a second request
 * within the minute is refused, the page says so and when to try again, and the first report still downloads.
 */
import { startPrivateGateway, testAdmin } from '@assay/testkit';
import type { Request } from '@playwright/test';
import { expect, expectAccessible, test } from './support/fixtures';

test('generate a report, wait for it, download the PDF', async ({ page, tenant, signIn }) => {
  test.setTimeout(90_000);
  const t = await tenant('member');
  await signIn(page, t.userId);
  await page.goto(`/projects/${t.projectId}/reports`);
  await expectAccessible(page);
  await page.getByLabel('Window').selectOption('7');
  await page.getByLabel('Branch (optional)').fill('main');
  await page.getByRole('button', { name: 'Generate report' }).click();
  await expect(page).toHaveURL(new RegExp(`/projects/${t.projectId}/reports/[^/]+$`));
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Report: last 7 days');
  await expect(page.getByText('Only branch main')).toBeVisible();
  const download = page.getByRole('link', { name: /^Download / });
  await expect(download).toBeVisible({ timeout: 60_000 });
  await expectAccessible(page);
  const res = await page.request.get((await download.getAttribute('href'))!);
  expect(res.status()).toBe(200);
  expect(res.headers()['content-type']).toContain('application/pdf');
  expect((await res.body()).subarray(0, 5).toString()).toBe('%PDF-');
});

test('a tag list over the limit is refused with the API message; a missing report is not found', async ({ page, tenant, signIn }) => {
  const t = await tenant('member');
  await signIn(page, t.userId);
  await page.goto(`/projects/${t.projectId}/reports`);
  await page.getByLabel('Tags (optional, comma-separated)').fill(Array.from({ length: 60 }, (_, i) => `tag${i}`).join(','));
  await page.getByRole('button', { name: 'Generate report' }).click();
  await expect(page.getByRole('alert')).toContainText('Not generated.');
  await expect(page).toHaveURL(new RegExp(`/projects/${t.projectId}/reports$`));
  await page.goto(`/projects/${t.projectId}/reports/${'f'.repeat(24)}`);
  await expect(page.getByRole('alert')).toContainText('Report not found.');
});

test('a second PDF within the minute is refused: the page says when to try again; the first one still downloads', async ({
  page,
  tenant,
}) => {
  test.setTimeout(120_000);
  const t = await tenant('member');
  const gateway = await startPrivateGateway({
    name: 'web-pdf',
    env: { RATE_LIMITS: 'reads=1000000,writes=1000000,ip=1000000,pdf=1' },
  });
  try {
    const link = await testAdmin().rpc.createSignInLink({ userId: t.userId });
    await page.goto(`${gateway.url}/sign-in${new URL(link.url).hash}`);
    await expect(page).not.toHaveURL(/\/sign-in/);
    await page.goto(`${gateway.url}/projects/${t.projectId}/reports`);
    await page.getByRole('button', { name: 'Generate report' }).click();
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Report: last 30 days');
    const first = page.url();

    await page.getByRole('link', { name: 'Generate another report' }).click();
    await page.getByLabel('Window').selectOption('7');
    const isCreate = (r: Request) => r.method() === 'POST' && new URL(r.url()).pathname.endsWith('/reports');
    let creates = 0;
    page.on('request', (r) => {
      if (isCreate(r)) creates += 1;
    });
    const answer = page.waitForResponse((r) => isCreate(r.request()));
    await page.getByRole('button', { name: 'Generate report' }).click();
    const refused = await answer;
    expect(refused.status()).toBe(429);
    const retryAfter = Number(refused.headers()['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    const alert = page.getByRole('alert');
    await expect(alert).toContainText('Not generated. Too many requests: the pdf limit of 1 per minute is used up');
    const when = page.getByText(/^Try again in \d+ s\.$/);
    await expect(when).toBeVisible();
    const wait = Number(/(\d+)/.exec((await when.textContent())!)![1]);
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(retryAfter);
    // It counts down (a second later it says less), without the page asking the API again.
    await expect(when).not.toHaveText(`Try again in ${wait} s.`);
    expect(creates).toBe(1);
    // Nothing half-made: the form stays, with no report page and no download.
    await expect(page).toHaveURL(new RegExp(`/projects/${t.projectId}/reports$`));
    await expect(page.getByRole('link', { name: /^Download / })).toHaveCount(0);
    await expect(page.getByLabel('Window')).toHaveValue('7');
    await expectAccessible(page);

    // Reading and downloading are not limited: the first report becomes ready and downloads.
    await page.goto(first);
    const download = page.getByRole('link', { name: /^Download / });
    await expect(download).toBeVisible({ timeout: 60_000 });
    const pdf = await page.request.get(`${gateway.url}${(await download.getAttribute('href'))!}`);
    expect(pdf.status()).toBe(200);
    expect((await pdf.body()).subarray(0, 5).toString()).toBe('%PDF-');
  } finally {
    await gateway.stop();
  }
});
