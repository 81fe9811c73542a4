/**
 * Dates where the reader is not in UTC (the browser in Los Angeles, eight hours behind in November, seven in March).
 * A release's start and end are calendar dates (`2026-03-02`), shown as written on its list, its page and its form,
 * never the day before. The runs list's date filter takes UTC days, so that a link shows the same runs to a reader
 * anywhere, and says so; the list shows each run's start in local time.
 */
import { largePlaywrightReport } from '@assay/testkit';
import { api, detail, expect, test } from './support/fixtures';
import { ingestInto } from './support/ingest';

test.use({ timezoneId: 'America/Los_Angeles', locale: 'en-US' });

test('a release’s dates read as the days it was given, not the day before', async ({ page, tenant, signIn }) => {
  const t = await tenant('member');
  const made = await api(t.token).post(`/${t.projectId}/releases`, { name: '3.0.0', startDate: '2026-03-02', endDate: '2026-03-20' });
  expect(made.status, made.text).toBe(201);
  expect([made.body.data.startDate, made.body.data.endDate]).toEqual(['2026-03-02', '2026-03-20']);
  await signIn(page, t.userId);
  expect(await page.evaluate(() => new Date('2026-03-02T12:00:00Z').getTimezoneOffset())).toBe(480);

  await page.goto(`/projects/${t.projectId}/releases`);
  const row = page.getByRole('row', { name: /3\.0\.0/ });
  await expect(row).toContainText('Mar 2, 2026 – Mar 20, 2026');

  await row.getByRole('link', { name: '3.0.0' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(/^3\.0\.0/);
  await expect(detail(page, 'Start date')).toHaveText('Mar 2, 2026');
  await expect(detail(page, 'End date')).toHaveText('Mar 20, 2026');
});

test('the runs list’s date filter is in UTC days and says so; a run’s start shows in local time', async ({ page, tenant, signIn }) => {
  const t = await tenant('member');
  // 06:00 UTC on the 28th is 22:00 on the 27th in Los Angeles.
  for (const [startTime, branch] of [
    ['2026-11-28T06:00:00.000Z', 'early'],
    ['2026-11-29T06:00:00.000Z', 'late'],
  ]) {
    const report = largePlaywrightReport(2, { branch });
    report.stats.startTime = startTime!;
    const res = await ingestInto(t)('/playwright', report);
    expect(res.status, res.text).toBe(201);
  }
  await signIn(page, t.userId);
  await page.goto(`/projects/${t.projectId}/runs`);
  const rows = page.getByRole('table', { name: 'Runs' }).getByRole('row');
  await expect(rows).toHaveCount(3);

  await page.getByLabel('From (UTC)').fill('2026-11-28');
  await page.getByLabel('To (UTC)').fill('2026-11-28');
  await page.getByRole('button', { name: 'Apply' }).click();
  await expect(page).toHaveURL(/from=2026-11-28&to=2026-11-28/);
  await expect(rows).toHaveCount(2);
  await expect(rows.nth(1)).toContainText('early');
  await expect(rows.nth(1)).toContainText('Nov 27, 2026, 10:00 PM');
});
