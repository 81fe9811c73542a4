/**
 * One service down, as a user meets it, on a system of its own (its services are stopped, frozen and killed there,
 * never on the shared test system). With analytics stopped, the dashboard and the analytics summary say in words
 * that a service is unavailable and to retry later (the gateway's 503 SERVICE_UNAVAILABLE: never a 500, never the
 * transport's own words) and stop loading; the runs list keeps working; once analytics is back the summary shows
 * its figures on a reload and the dashboard when opened again. With manual-testing stopped, the test cases list
 * says the same; a new case's "Create" is refused with that message, the form keeps what was typed, nothing is
 * stored (the next case number is still free), and once the service is back the same form creates the case. When
 * the service dies while a create waits on it, the user reads the same message, not "Internal server error". Over
 * HTTP each answer is the error envelope with status 503 and `Retry-After` (CONTRACT §3).
 */
import type { Page } from '@playwright/test';
import { largePlaywrightReport, startPrivateSystem, type ManagedProcess, type PrivateSystem, type Tenant } from '@assay/testkit';
import { detail, expect, expectAccessible, test } from './support/fixtures';

test.describe.configure({ mode: 'serial' });

let sys: PrivateSystem;
test.beforeAll(async () => {
  test.setTimeout(120_000);
  sys = await startPrivateSystem({ name: 'web-outage' });
});
test.afterAll(async () => {
  await sys?.stop();
});

const UNAVAILABLE = 'A service is temporarily unavailable; retry later';

/**
 * Takes the service `name` of the private system down (`down`: a clean stop by default), runs `during` (which may
 * start it again with `start`), and starts it again afterwards if `during` did not, also when it failed: the next
 * test finds the whole system up.
 */
async function withServiceDown(
  name: string,
  during: (start: () => Promise<void>) => Promise<void>,
  down: (service: ManagedProcess) => Promise<void> = async (service) => void (await service.stop()),
): Promise<void> {
  await down(sys.system.processes.get(name)!);
  let up = false;
  const start = async () => {
    // Whatever state it was left in (stopped, frozen, killed): gone, then started the way the system started it.
    await sys.system.processes.get(name)!.kill();
    await sys.system.restart(name);
    up = true;
  };
  try {
    await during(start);
  } finally {
    if (!up) await start();
  }
}

/** The private system's 503 for a call to a stopped service: the envelope, its code and words, and `Retry-After`. */
async function expectUnavailable(t: Tenant, method: 'GET' | 'POST', path: string, body?: unknown): Promise<void> {
  const res = await sys.api(t.token).request(method, `/api/v1/public/${t.projectId}${path}`, body === undefined ? {} : { body });
  expect([res.status, res.body], `${method} ${path}: ${res.text}`).toEqual([
    503,
    { success: false, error: { code: 'SERVICE_UNAVAILABLE', message: UNAVAILABLE } },
  ]);
  expect(res.headers.get('retry-after')).toBe('5');
}

/** An owner of a new organization of the private system, signed in on `page`. */
async function signedIn(page: Page): Promise<Tenant> {
  const t = await sys.admin.tenant('owner');
  const link = await sys.admin.rpc.createSignInLink({ userId: t.userId });
  await page.goto(link.url);
  await expect(page).not.toHaveURL(/\/sign-in/);
  return t;
}

/** The page's `count` error callouts say a service is unavailable, in the gateway's words; nothing is loading. */
async function expectUnavailableOnPage(page: Page, count = 1): Promise<void> {
  const main = page.locator('#main');
  await expect(main.getByRole('alert')).toHaveText(Array(count).fill(`This could not be loaded. ${UNAVAILABLE}`));
  await expect(main.getByText(/^Loading/)).toHaveCount(0);
  await expect(main).not.toContainText(/ECONNREFUSED|\[unavailable\]|Internal server error|127\.0\.0\.1/);
}

test('analytics down: the dashboard and analytics pages say so and stop loading, the runs list works; back after a reload', async ({
  page,
}) => {
  const t = await signedIn(page);
  const run = await sys.api(t.token).request('POST', `/api/v1/ingest/${t.projectId}/playwright`, {
    rawBody: JSON.stringify(largePlaywrightReport(3)),
    headers: { 'content-type': 'application/json' },
  });
  expect(run.status, run.text).toBe(201);
  // Analytics folds the finished run (from Kafka) before it is stopped.
  await expect(async () => {
    const s = await sys.api(t.token).get(`/${t.projectId}/analytics/summary?days=30`);
    expect(s.body.data.totals.runs).toBe(1);
  }).toPass({ timeout: 60_000 });

  await withServiceDown('analytics', async (start) => {
    await expectUnavailable(t, 'GET', '/dashboard');
    await expectUnavailable(t, 'GET', '/analytics/summary?days=30');

    await page.goto(`${sys.system.gatewayUrl}/projects/${t.projectId}`);
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Dashboard');
    await expectUnavailableOnPage(page);
    await expect(page.getByRole('region', { name: 'Running now' })).toHaveCount(0);
    await expectAccessible(page);

    // The runs list needs the runs service alone.
    const nav = page.getByRole('navigation', { name: 'Project' });
    await nav.getByRole('link', { name: 'Runs', exact: true }).click();
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Runs');
    await expect(page.getByRole('table').getByRole('link', { name: 'Run #1' })).toBeVisible();
    await expect(page.locator('#main').getByRole('alert')).toHaveCount(0);

    await nav.getByRole('link', { name: 'Summary', exact: true }).click();
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Analytics');
    await expectUnavailableOnPage(page);

    await start();
    // The page that failed shows its figures on a reload.
    await page.reload();
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Analytics');
    await expect(detail(page, 'Runs')).toHaveText('1');
    await expect(page.locator('#main').getByRole('alert')).toHaveCount(0);
    // The dashboard, opened again in the app, asks again.
    await nav.getByRole('link', { name: 'Dashboard', exact: true }).click();
    await expect(page.getByRole('heading', { name: 'Running now' })).toBeVisible();
    await expect(detail(page, 'Runs')).toHaveText('1');
    await expect(page.locator('#main').getByRole('alert')).toHaveCount(0);
  });
  expect((await sys.api(t.token).get(`/${t.projectId}/dashboard`)).body.data.runCounts.total).toBe(1);
});

test('manual-testing down: the cases list says so; a new case is refused with the form kept, stored once it is back', async ({ page }) => {
  const t = await signedIn(page);
  const suite = await sys.api(t.token).post(`/${t.projectId}/manual-test-suites`, { name: 'Checkout' });
  expect(suite.status, suite.text).toBe(201);
  const first = await sys.api(t.token).post(`/${t.projectId}/manual-test-cases`, { title: 'Pay by card', suiteId: suite.body.data._id });
  expect(first.status, first.text).toBe(201);
  expect(first.body.data.caseId).toBe('TC-1');

  // The form is open (its suites loaded) when the service goes.
  await page.goto(`${sys.system.gatewayUrl}/projects/${t.projectId}/manual-test-cases/new?suite=${suite.body.data._id}`);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('New test case');
  await expect(page.getByLabel('Suite')).toHaveValue(suite.body.data._id);

  await withServiceDown('manual-testing', async (start) => {
    await expectUnavailable(t, 'GET', '/manual-test-cases');
    await expectUnavailable(t, 'POST', '/manual-test-cases', { title: 'Pay by voucher', suiteId: suite.body.data._id });

    await page.getByLabel('Title').fill('Pay by voucher');
    await page.getByLabel('Description').fill('A voucher covers the whole basket.');
    await page.getByRole('button', { name: 'Create test case' }).click();
    const form = page.getByRole('form', { name: 'New test case' });
    await expect(form.getByRole('alert')).toHaveText(`Not saved. ${UNAVAILABLE}`);
    await expect(page.getByRole('button', { name: 'Create test case' })).toBeEnabled();
    await expect(page).toHaveURL(/\/manual-test-cases\/new/);
    await expect(page.getByLabel('Title')).toHaveValue('Pay by voucher');
    await expect(page.getByLabel('Description')).toHaveValue('A voucher covers the whole basket.');
    await expect(page.getByLabel('Suite')).toHaveValue(suite.body.data._id);
    await expectAccessible(page);

    // The list in another tab: both its reads say so; the runs list works.
    const list = await page.context().newPage();
    await list.goto(`${sys.system.gatewayUrl}/projects/${t.projectId}/manual-test-cases`);
    await expect(list.getByRole('heading', { level: 1 })).toHaveText('Test cases');
    await expectUnavailableOnPage(list, 2);
    // A new case started from there: its form says why no suite can be chosen.
    await list.getByRole('link', { name: 'New test case' }).click();
    await expect(list.getByRole('heading', { level: 1 })).toHaveText('New test case');
    await expect(list.getByRole('form', { name: 'New test case' }).getByRole('alert')).toHaveText(
      `The suites could not be loaded. ${UNAVAILABLE}`,
    );
    await list.getByRole('navigation', { name: 'Project' }).getByRole('link', { name: 'Runs', exact: true }).click();
    await expect(list.getByText('No runs yet: send a report to the ingestion API.')).toBeVisible();

    await start();
    // Nothing of the refused create was stored: one case, and the next number is still TC-2.
    const cases = await sys.api(t.token).get(`/${t.projectId}/manual-test-cases`);
    expect(cases.body.data.map((c: { title: string }) => c.title)).toEqual(['Pay by card']);

    // The same form, as it was, creates the case now.
    await page.getByRole('button', { name: 'Create test case' }).click();
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('TC-2 · Pay by voucher');
    await expect(page.getByLabel('Description')).toHaveValue('A voucher covers the whole basket.');

    // The list shows both cases when opened again.
    await list.goto(`${sys.system.gatewayUrl}/projects/${t.projectId}/manual-test-cases`);
    await expect(list.getByRole('heading', { level: 1 })).toHaveText('Test cases');
    await expect(list.getByRole('link', { name: 'Pay by voucher' })).toBeVisible();
    await expect(list.getByRole('link', { name: 'Pay by card' })).toBeVisible();
    await expect(list.locator('#main').getByRole('alert')).toHaveCount(0);
    await list.close();
  });
  const after = await sys.api(t.token).get(`/${t.projectId}/manual-test-cases`);
  expect(after.body.pagination.total).toBe(2);
});

test('manual-testing dies while a case is being created: refused as unavailable, not a 500; nothing stored; saved once back', async ({
  page,
}) => {
  const t = await signedIn(page);
  const suite = await sys.api(t.token).post(`/${t.projectId}/manual-test-suites`, { name: 'Checkout' });
  expect(suite.status, suite.text).toBe(201);
  await page.goto(`${sys.system.gatewayUrl}/projects/${t.projectId}/manual-test-cases/new?suite=${suite.body.data._id}`);
  await expect(page.getByLabel('Suite')).toHaveValue(suite.body.data._id);
  await page.getByLabel('Title').fill('Pay by card');

  // Frozen, the service reads nothing: the create and an API read wait on its connection until it dies (SIGKILL).
  await withServiceDown(
    'manual-testing',
    async (start) => {
      const read = sys.api(t.token).get(`/${t.projectId}/manual-test-cases`);
      await page.getByRole('button', { name: 'Create test case' }).click();
      await expect(page.getByRole('button', { name: 'Create test case' })).toBeDisabled();
      await page.waitForTimeout(500);
      await sys.system.processes.get('manual-testing')!.kill();

      await expect(page.getByRole('form', { name: 'New test case' }).getByRole('alert')).toHaveText(`Not saved. ${UNAVAILABLE}`);
      await expect(page.getByLabel('Title')).toHaveValue('Pay by card');
      await expect(page.getByRole('button', { name: 'Create test case' })).toBeEnabled();
      const res = await read;
      expect([res.status, res.body], res.text).toEqual([
        503,
        { success: false, error: { code: 'SERVICE_UNAVAILABLE', message: UNAVAILABLE } },
      ]);
      expect(res.headers.get('retry-after')).toBe('5');

      await start();
      expect((await sys.api(t.token).get(`/${t.projectId}/manual-test-cases`)).body.pagination.total).toBe(0);
      await page.getByRole('button', { name: 'Create test case' }).click();
      await expect(page.getByRole('heading', { level: 1 })).toHaveText('TC-1 · Pay by card');
    },
    async (service) => void service.child.kill('SIGSTOP'),
  );
  expect((await sys.api(t.token).get(`/${t.projectId}/manual-test-cases`)).body.pagination.total).toBe(1);
});
