/**
 * Every page fits the window's width, with the long names real projects have (nested spec paths, long branch
 * names, long commit messages and webhook URLs): tables wrap their text (paths and branches after their
 * separators) or scroll in a box of their own, so the page itself never scrolls sideways, from 1024 to 1920 pixels.
 * Opening each page directly logs no error or warning in the console (React Router's, React's, the CSP's).
 */
import { resultItem } from '@assay/testkit';
import { api, expect, test } from './support/fixtures';

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
