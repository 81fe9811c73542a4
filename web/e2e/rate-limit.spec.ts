/**
 * The reads limit in a real browser: a session's reads count as its user's (RATE_LIMITS `reads`), so a person paging
 * quickly can use them up. On a gateway of its own with a few reads a minute: the page whose read is refused says how
 * long the wait is, shows no error, and loads by itself once the window has reset; so does the app opened with the
 * limit already used up (its first read, the account, is refused). About a minute each (the window is 60 s), run side
 * by side.
 */
import { largePlaywrightReport, startPrivateGateway, testAdmin } from '@assay/testkit';
import { api, expect, expectAccessible, test } from './support/fixtures';

test.describe.configure({ mode: 'parallel' });

const NOTICE = 'reads of the API';

test('a page whose read the rate limit refuses waits for the window, says so, and then loads by itself', async ({ page, tenant }) => {
  test.setTimeout(150_000);
  const t = await tenant();
  const report = largePlaywrightReport(3, { branch: 'main' });
  const ingested = await api(t.token).request('POST', `/api/v1/ingest/${t.projectId}/playwright`, {
    rawBody: JSON.stringify(report),
    headers: { 'content-type': 'application/json' },
  });
  expect(ingested.status, ingested.text).toBe(201);
  const runId = ingested.body.data.runId as string;

  const gateway = await startPrivateGateway({ name: 'web-reads', env: { RATE_LIMITS: 'reads=4,writes=60,ip=1000' } });
  try {
    const link = await testAdmin().rpc.createSignInLink({ userId: t.userId });
    await page.goto(`${gateway.url}/sign-in${new URL(link.url).hash}`);
    await expect(page).not.toHaveURL(/\/sign-in/);
    // The account and the runs list: two reads of four.
    await page.goto(`${gateway.url}/projects/${t.projectId}/runs`);
    await expect(page.getByRole('link', { name: /Run #1/ })).toBeVisible();
    const notice = page.getByRole('status').filter({ hasText: NOTICE });
    await expect(notice).toHaveCount(0);

    // The run page reads the run, its rows and its first tests at once, then its artifacts: two of them are refused.
    const refused: number[] = [];
    page.on('response', (r) => r.status() === 429 && refused.push(r.status()));
    await page.getByRole('link', { name: /Run #1/ }).click();
    await expect(notice).toBeVisible();
    await expect(notice).toContainText("You have used this minute's 4 reads of the API. The page loads again in");
    expect(refused.length).toBeGreaterThan(0);
    await expect(page.getByRole('alert')).toHaveCount(0);
    await expectAccessible(page);
    const waitText = await notice.locator('[aria-hidden="true"]').textContent();
    const seconds = Number(/in (\d+) s/.exec(waitText ?? '')?.[1]);
    expect(seconds).toBeGreaterThan(0);
    expect(seconds).toBeLessThanOrEqual(60);

    // Once the window has reset the page asks again by itself: the notice goes, the run and its tests show.
    await expect(notice).toHaveCount(0, { timeout: 75_000 });
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Run #1');
    await expect(page.getByRole('link', { name: 'Feature 0 › test number 2' })).toBeVisible();
    await expect(page.getByRole('alert')).toHaveCount(0);
    expect(page.url()).toContain(runId);
  } finally {
    await gateway.stop();
  }
});

test('the app opened with the reads limit used up waits for the window, says so, and then loads by itself', async ({ page, tenant }) => {
  test.setTimeout(150_000);
  const t = await tenant();
  const gateway = await startPrivateGateway({ name: 'web-reads-first', env: { RATE_LIMITS: 'reads=6,writes=60,ip=1000' } });
  try {
    const link = await testAdmin().rpc.createSignInLink({ userId: t.userId });
    await page.goto(`${gateway.url}/sign-in${new URL(link.url).hash}`);
    await expect(page).not.toHaveURL(/\/sign-in/);
    // Another tab (the same session) uses up the minute's reads.
    for (let i = 0; i < 6; i++) await page.request.get(`${gateway.url}/api/v1/app/me`);
    expect((await page.request.get(`${gateway.url}/api/v1/app/me`)).status()).toBe(429);

    await page.goto(`${gateway.url}/projects/${t.projectId}/runs`);
    const notice = page.getByRole('status').filter({ hasText: NOTICE });
    await expect(notice).toContainText("You have used this minute's 6 reads of the API. The page loads again in");
    await expect(page.getByText('Loading…').first()).toBeVisible();
    await expect(page.getByRole('alert')).toHaveCount(0);

    await expect(notice).toHaveCount(0, { timeout: 75_000 });
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Runs');
    await expect(page.getByText('No runs yet')).toBeVisible();
    await expect(page.getByRole('alert')).toHaveCount(0);
  } finally {
    await gateway.stop();
  }
});
