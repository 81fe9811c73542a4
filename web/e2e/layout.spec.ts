/**
 * Every page fits the window's width, with the long names real projects have (nested spec paths, long branch
 * names, long commit messages and webhook URLs): tables wrap their text (paths and branches after their
 * separators) or scroll in a box of their own, so the page itself never scrolls sideways, from 1024 to 1920 pixels.
 * Opening each page directly logs no error or warning in the console (React Router's, React's, the CSP's). The
 * header's project switcher: a user of two projects goes from one to the other, the URL and the data follow.
 */
import { resultItem, testAdmin } from '@assay/testkit';
import { api, expect, expectAccessible, test } from './support/fixtures';

const FILE = 'tests/e2e/checkout/payment-providers/international-cards-and-wallets.spec.ts';
const BRANCH = 'feature/checkout-redesign-for-international-cards-and-wallets';
const HOOK = 'https://hooks.example.com/services/T01234567/B01234567/a-very-long-secret-looking-path-segment-0123456789';

test('no page scrolls sideways at 1024, 1280, 1440 and 1920 pixels, nor logs a warning', async ({ page, tenant, signIn }) => {
  test.setTimeout(120_000);
  const t = await tenant('owner');
  const ingest = (path: string, body: unknown) =>
    api(t.token).request('POST', `/api/v1/ingest/${t.projectId}${path}`, {
      rawBody: JSON.stringify(body),
      headers: { 'content-type': 'application/json' },
    });
  const result = (title: string, status: 'passed' | 'failed') =>
    resultItem(FILE, ['International cards and wallets', title], status, {
      projectName: 'chromium-with-a-long-project-name',
      duration: 1234,
      errors: status === 'failed' ? [{ message: `expect(received).toBe(expected) ${'x'.repeat(300)}` }] : [],
      tags: ['@payments', '@international'],
    });
  const metadata = {
    git: {
      branch: BRANCH,
      commit: {
        hash: 'abcdef0123456789',
        message: `Accept international cards and wallets ${'in every currency '.repeat(8)}`,
        author: 'Ada',
      },
    },
    environment: 'staging-europe-west',
  };
  const start = async () => {
    const res = await ingest('/runs', { metadata });
    expect(res.status).toBe(201);
    return res.body.data.runId as string;
  };
  const finished = await start();
  const titles = ['pays with a card issued abroad', 'declines a card that the issuer blocked', 'pays with a wallet'];
  expect(
    (await ingest(`/runs/${finished}/results`, { results: titles.map((x, i) => result(x, i === 1 ? 'failed' : 'passed')) })).status,
  ).toBe(200);
  expect((await ingest(`/runs/${finished}/finish`, {})).status).toBe(200);
  const running = await start();
  expect((await ingest(`/runs/${running}/results`, { results: [result(titles[0]!, 'passed')] })).status).toBe(200);
  const suite = await api(t.token).post(`/${t.projectId}/manual-test-suites`, { name: 'International payments and wallets' });
  for (const title of titles) {
    const made = await api(t.token).post(`/${t.projectId}/manual-test-cases`, {
      title: `${title} in every supported currency`,
      suiteId: suite.body.data._id,
      tags: 'payments, international, regression',
    });
    expect(made.status, made.text).toBe(201);
  }
  expect((await api(t.token).post(`/${t.projectId}/webhooks`, { url: HOOK, events: ['RUN_FINISHED'] })).status).toBe(201);
  await expect(async () => {
    const s = await api(t.token).get(`/${t.projectId}/analytics/summary?days=7`);
    expect(s.body.data.totals.runs).toBe(1);
  }).toPass({ timeout: 60_000 });
  const testId = (await api(t.token).get(`/${t.projectId}/test-runs/${finished}/test-cases?limit=10`)).body.data[0].testId;

  await signIn(page, t.userId);
  const logged: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') logged.push(`${page.url()}: ${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => logged.push(`${page.url()}: ${e.message}`));
  const p = `/projects/${t.projectId}`;
  // Each page with what shows once its data is in.
  const pages: [string, () => Promise<void>][] = [
    [p, () => expect(page.getByRole('region', { name: 'Running now' }).getByText(BRANCH)).toBeVisible()],
    [`${p}/runs`, () => expect(page.getByRole('table', { name: 'Runs' }).getByRole('row')).toHaveCount(3)],
    [`${p}/runs/${finished}`, () => expect(page.getByText('declines a card that the issuer blocked').first()).toBeVisible()],
    [`${p}/tests/${testId}`, () => expect(page.getByRole('table', { name: /Results of this test/ })).toBeVisible()],
    [`${p}/analytics`, () => expect(page.getByRole('table', { name: 'Most failing tests' })).toBeVisible()],
    [`${p}/analytics/performance`, () => expect(page.getByRole('table', { name: 'Duration percentiles by test' })).toBeVisible()],
    [`${p}/test-case-explorer`, () => expect(page.getByRole('table', { name: 'Tests' })).toBeVisible()],
    [`${p}/specs`, () => expect(page.getByRole('table', { name: 'Spec files' })).toBeVisible()],
    [`${p}/manual-test-cases`, () => expect(page.getByText('pays with a wallet in every supported currency')).toBeVisible()],
    [`${p}/webhooks`, () => expect(page.getByRole('link', { name: HOOK })).toBeVisible()],
  ];
  for (const width of [1024, 1280, 1440, 1920]) {
    await page.setViewportSize({ width, height: 900 });
    for (const [path, loaded] of pages) {
      await page.goto(path);
      await loaded();
      const { scrollWidth, clientWidth } = await page.evaluate(() => ({
        scrollWidth: document.documentElement.scrollWidth,
        clientWidth: document.documentElement.clientWidth,
      }));
      expect.soft(scrollWidth, `${path} at ${width} px is ${scrollWidth} px wide`).toBeLessThanOrEqual(clientWidth);
    }
  }
  expect(logged).toEqual([]);
});

test("the header's project switcher: the URL names the chosen project and the page shows its data", async ({ page, tenant, signIn }) => {
  const t = await tenant('member');
  const mobile = await testAdmin().project(t.orgId, 'Mobile app');
  // Each project's CI job (an API key of its own) starts a run on its branch; both keep running.
  for (const [projectId, branch] of [
    [t.projectId, 'feature/web-checkout'],
    [mobile, 'feature/mobile-login'],
  ]) {
    const key = await testAdmin().apiKey(projectId);
    const started = await api(key.token).request('POST', `/api/v1/ingest/${projectId}/runs`, {
      rawBody: JSON.stringify({ metadata: { git: { branch } } }),
      headers: { 'content-type': 'application/json' },
    });
    expect(started.status, started.text).toBe(201);
  }
  await signIn(page, t.userId);
  await page.goto(`/projects/${t.projectId}`);
  const switcher = page.getByRole('banner').getByRole('combobox', { name: 'Project' });
  const nav = page.getByRole('navigation', { name: 'Project' });
  const running = page.getByRole('region', { name: 'Running now' });
  await expect(switcher).toHaveValue(t.projectId);
  await expect(switcher.getByRole('option')).toHaveText(['Choose a project…', 'Test project', 'Mobile app']);
  await expect(running).toContainText('feature/web-checkout');
  await expect(nav).toContainText('Test project');
  await expectAccessible(page);

  await switcher.selectOption({ label: 'Mobile app' });
  await expect(page).toHaveURL(new RegExp(`/projects/${mobile}$`));
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Dashboard');
  await expect(running).toContainText('feature/mobile-login');
  await expect(running).not.toContainText('feature/web-checkout');
  await expect(nav).toContainText('Mobile app');
  await expect(switcher).toHaveValue(mobile);

  // From another page of the second project, back to the first: its dashboard, its data.
  await nav.getByRole('link', { name: 'Runs', exact: true }).click();
  await expect(page).toHaveURL(new RegExp(`/projects/${mobile}/runs$`));
  await expect(page.getByRole('table', { name: 'Runs' })).toContainText('feature/mobile-login');
  await switcher.selectOption({ label: 'Test project' });
  await expect(page).toHaveURL(new RegExp(`/projects/${t.projectId}$`));
  await expect(running).toContainText('feature/web-checkout');
  await expect(running).not.toContainText('feature/mobile-login');
  await expect(nav).toContainText('Test project');
  // The browser's Back returns to the other project's page, and the switcher says so.
  await page.goBack();
  await expect(page).toHaveURL(new RegExp(`/projects/${mobile}/runs$`));
  await expect(switcher).toHaveValue(mobile);
  await expect(page.getByRole('table', { name: 'Runs' })).toContainText('feature/mobile-login');
  await expect(page.getByRole('table', { name: 'Runs' })).not.toContainText('feature/web-checkout');
  // Outside a project it offers the choice again.
  await page.getByRole('link', { name: 'Settings' }).click();
  await expect(switcher).toHaveValue('');
  await expectAccessible(page);
});
