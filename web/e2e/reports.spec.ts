/**
 * PDF reports in a real browser: generated from the form, the report page following its status until it is ready,
 * the download a real PDF; a bad filter refused with the API's message; a report that does not exist.
 */
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
