/**
 * The project dashboard's states no other spec drives: a fresh project (figures at zero or without a value,
 * nothing running, no chart, and the way to its first run), and a project it cannot show (an id no project has,
 * and a path that is no id at all): the page says so in words for a person signed in (not "to this token"),
 * shows no figure, and the header leads back to the user's projects.
 */
import { detail, expect, expectAccessible, test } from './support/fixtures';

test('a fresh project: figures at zero, nothing running, no chart, and the way to its first run', async ({ page, tenant, signIn }) => {
  const t = await tenant('member');
  await signIn(page, t.userId);
  await page.goto(`/projects/${t.projectId}`);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Dashboard');
  // The window the API answered for (its dates), as the subtitle.
  const span = (await (await page.request.get(`/api/v1/public/${t.projectId}/dashboard`)).json()).data;
  await expect(page.getByText(`Last 30 days (${span.from} to ${span.until})`)).toBeVisible();

  // Nothing ran: no rate and no average, rather than a 0.0% pass rate that reads as "every test failed".
  await expect(detail(page, 'Runs')).toHaveText('0');
  await expect(detail(page, 'Pass rate')).toHaveText('—');
  await expect(detail(page, 'Flaky rate')).toHaveText('—');
  await expect(detail(page, 'Test results')).toHaveText('0');
  await expect(detail(page, 'Average test duration')).toHaveText('—');
  const running = page.getByRole('region', { name: 'Running now' });
  await expect(running.getByText('No run is running.')).toBeVisible();
  await expect(running.getByRole('link')).toHaveCount(0);
  await expect(page.getByText('No runs in the last 30 days.')).toHaveText(
    'No runs in the last 30 days. Send a report to the ingestion API, then see it under Runs.',
  );
  await expect(page.getByRole('heading', { name: 'Pass rate by day' })).toHaveCount(0);
  await expect(page.getByRole('table')).toHaveCount(0);
  await expectAccessible(page);

  await page.locator('#main').getByRole('link', { name: 'Runs', exact: true }).click();
  await expect(page).toHaveURL(new RegExp(`/projects/${t.projectId}/runs$`));
});

test('a project the dashboard cannot show: no such project, or no id at all, said so; the header leads back', async ({
  page,
  tenant,
  signIn,
}) => {
  const t = await tenant('member');
  await signIn(page, t.userId);
  for (const id of ['f'.repeat(24), 'no-such-project']) {
    await page.goto(`/projects/${id}`);
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Dashboard');
    await expect(page.getByRole('alert')).toHaveText('This could not be loaded. Project not found or not accessible to your account');
    await expect(page.getByRole('definition')).toHaveCount(0);
    await expect(page.getByRole('region', { name: 'Running now' })).toHaveCount(0);
  }
  await expectAccessible(page);

  await page.getByRole('banner').getByRole('link', { name: 'Assay' }).click();
  await expect(page.getByRole('heading', { name: 'Your projects' })).toBeVisible();
  await expect(page.getByRole('link', { name: 'Test project' })).toHaveAttribute('href', `/projects/${t.projectId}`);
});
