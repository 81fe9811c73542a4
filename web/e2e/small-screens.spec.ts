/**
 * The app on a phone and on a laptop at 200 % zoom (WCAG 1.4.10 Reflow): at 320 and 375 pixels wide, and 640 × 400
 * (1280 × 800 at 200 %), no page scrolls sideways, from the sign-in page to the settings, with the long names real
 * projects have; tables scroll in a box of their own, a run's test list keeps its titles readable. On a phone
 * (375 × 667, touch): the header's switcher and account menu and the project's navigation are on screen and reach
 * another page, and the page's title shows on the first screen; a tester taps a verdict in a manual run's execution
 * view and it is stored; a test case's edit form, as wide as the screen, is saved.
 */
import { resultItem, testAdmin } from '@assay/testkit';
import type { Page } from '@playwright/test';
import { api, created, expect, expectAccessible, test } from './support/fixtures';
import { folded, ingestInto } from './support/ingest';

const FILE = 'tests/e2e/checkout/payment-providers/international-cards-and-wallets.spec.ts';
const BRANCH = 'feature/checkout-redesign-for-international-cards-and-wallets';
const HOOK = 'https://hooks.example.com/services/T01234567/B01234567/a-very-long-secret-looking-path-segment-0123456789';
const CASE = 'Pays with a card issued abroad in every supported currency';
const PHONE = { viewport: { width: 375, height: 667 }, hasTouch: true, isMobile: true };

/** How much wider than its window the page is (0: it does not scroll sideways). */
const overflow = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

/** A manual suite with one classic case and an open run over it, in `t`'s project. */
async function manualRun(t: { token: string; projectId: string }) {
  const a = api(t.token);
  const P = `/${t.projectId}`;
  const suite = await created(a.post(`${P}/manual-test-suites`, { name: 'International payments and wallets' }));
  const testCase = await created(
    a.post(`${P}/manual-test-cases`, {
      title: CASE,
      suiteId: suite._id,
      tags: 'payments, international',
      steps: [{ action: 'Add a product to the cart', expectedResult: 'The cart shows 1 item' }],
    }),
  );
  const run = await created(
    a.post(`${P}/manual-runs`, {
      name: 'Sprint 12 regression of international payments',
      selectionMode: 'selected',
      suiteIds: [suite._id],
    }),
  );
  return { a, P, testCase, run };
}

test('no page scrolls sideways at 320 and 375 pixels nor at 200 % zoom', async ({ page, tenant, signIn }) => {
  test.setTimeout(240_000);
  const t = await tenant('owner');
  const ingest = ingestInto(t);
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
      commit: { hash: 'abcdef0123456789', message: `Accept international cards ${'in every currency '.repeat(8)}`, author: 'Ada' },
    },
    environment: 'staging-europe-west',
  };
  const started = await ingest('/runs', { metadata });
  expect(started.status, started.text).toBe(201);
  const run: string = started.body.data.runId;
  const titles = ['pays with a card issued abroad', 'declines a card that the issuer blocked', 'pays with a wallet'];
  const sent = await ingest(`/runs/${run}/results`, { results: titles.map((x, i) => result(x, i === 1 ? 'failed' : 'passed')) });
  expect(sent.status, sent.text).toBe(200);
  expect((await ingest(`/runs/${run}/finish`, {})).status).toBe(200);
  const { a, P, testCase, run: manual } = await manualRun(t);
  const release = await created(a.post(`${P}/releases`, { name: '3.0.0 international payments and wallets' }));
  const session = await created(a.post(`${P}/sessions`, { name: 'Tour the checkout in every supported currency' }));
  const hook = await created(a.post(`${P}/webhooks`, { url: HOOK, events: ['RUN_FINISHED'] }));
  await folded(t, 1, 7);
  const results: { id: string; testId: string; title: string }[] = (await a.get(`${P}/test-runs/${run}/test-cases?limit=10`)).body.data;
  const failed = results.find((r) => r.title === titles[1])!;

  // Signed out first: the sign-in page.
  const p = `/projects/${t.projectId}`;
  const heading = (name: string | RegExp) => () => expect(page.getByRole('heading', { level: 1, name })).toBeVisible();
  const table = (name: string) => () => expect(page.getByRole('table', { name })).toBeVisible();
  const signedIn: [string, () => Promise<void>][] = [
    ['/', () => expect(page.getByRole('link', { name: 'Test project' })).toBeVisible()],
    [p, () => expect(page.getByRole('region', { name: 'Running now' })).toBeVisible()],
    [`${p}/runs`, () => expect(page.getByRole('table', { name: 'Runs' }).getByRole('row')).toHaveCount(2)],
    [`${p}/runs/${run}`, () => expect(page.getByRole('region', { name: 'Tests of the run (scrolls)' })).toBeVisible()],
    [`${p}/runs/${run}/test-cases/${failed.id}`, () => expect(page.getByText('expect(received).toBe(expected)').first()).toBeVisible()],
    [`${p}/tests/${failed.testId}`, () => expect(page.getByRole('table', { name: /Results of this test/ })).toBeVisible()],
    [`${p}/analytics`, table('Most failing tests')],
    [`${p}/analytics/performance`, table('Duration percentiles by test')],
    [`${p}/test-case-explorer`, table('Tests')],
    [`${p}/specs`, table('Spec files')],
    [`${p}/manual-test-cases`, () => expect(page.getByRole('link', { name: CASE })).toBeVisible()],
    [`${p}/manual-test-cases/${testCase._id}`, () => expect(page.getByLabel('Title')).toHaveValue(CASE)],
    [`${p}/manual-test-cases/new`, () => expect(page.getByRole('button', { name: 'Create test case' })).toBeVisible()],
    [`${p}/manual-runs`, () => expect(page.getByRole('link', { name: manual.name })).toBeVisible()],
    [`${p}/manual-runs/${manual._id}`, () => expect(page.getByRole('group', { name: 'Set the verdict' })).toBeVisible()],
    [`${p}/releases`, () => expect(page.getByRole('link', { name: release.name })).toBeVisible()],
    [`${p}/releases/${release._id}`, heading(release.name)],
    [`${p}/sessions`, () => expect(page.getByRole('link', { name: session.name })).toBeVisible()],
    [`${p}/sessions/${session._id}`, heading(session.name)],
    [`${p}/webhooks`, () => expect(page.getByRole('link', { name: HOOK })).toBeVisible()],
    [`${p}/webhooks/${hook._id}`, heading(HOOK)],
    [`${p}/reports`, () => expect(page.getByRole('form', { name: 'New PDF report' })).toBeVisible()],
    ['/settings/tokens', heading('Personal access tokens')],
  ];
  const sizes = [
    { width: 320, height: 640 },
    { width: 375, height: 667 },
    { width: 640, height: 400 },
  ];
  for (const size of sizes) {
    await page.setViewportSize(size);
    await page.goto('/login');
    await expect(page.getByLabel('Password')).toBeVisible();
    expect.soft(await overflow(page), `/login at ${size.width} px`).toBe(0);
  }
  await signIn(page, t.userId);
  for (const size of sizes) {
    await page.setViewportSize(size);
    for (const [path, loaded] of signedIn) {
      await page.goto(path);
      await loaded();
      expect.soft(await overflow(page), `${path} at ${size.width} × ${size.height} scrolls sideways by`).toBe(0);
      // A table's box that scrolls takes the keyboard's focus (axe: scrollable-region-focusable), and the rest holds.
      if (size.width === 320) await expectAccessible(page);
    }
  }

  // A run's test list at 200 % zoom: its titles are read, not cut to a few letters; the list scrolls in its box.
  await page.goto(`${p}/runs/${run}`);
  const link = page.getByRole('region', { name: 'Tests of the run (scrolls)' }).getByRole('link', { name: titles[1] });
  const width = await link.evaluate((e) => (e.parentElement as HTMLElement).clientWidth);
  expect(width, 'the width of the test list’s title column').toBeGreaterThanOrEqual(150);
});

test.describe('on a phone', () => {
  test.use(PHONE);

  test("the header's switcher, the account menu and the project's navigation are on screen and lead to other pages", async ({
    page,
    tenant,
    signIn,
  }) => {
    const t = await tenant('member');
    const mobile = await testAdmin().project(t.orgId, 'Mobile app with a long project name');
    await signIn(page, t.userId);
    await page.goto(`/projects/${t.projectId}`);
    const header = page.getByRole('banner');
    const switcher = header.getByRole('combobox', { name: 'Project' });
    const nav = page.getByRole('navigation', { name: 'Project' });
    for (const control of [
      switcher,
      header.getByRole('link', { name: 'Settings' }),
      header.getByRole('button', { name: 'Sign out', exact: true }),
      header.getByRole('button', { name: 'Sign out everywhere' }),
    ]) {
      await expect(control).toBeInViewport({ ratio: 1 });
    }
    // The navigation leaves the page's title on the first screen.
    await expect(page.getByRole('heading', { level: 1, name: 'Dashboard' })).toBeInViewport({ ratio: 1 });
    expect(await overflow(page)).toBe(0);

    // On a phone the project's links fold behind the navigation's button (phone-layout.spec.ts tests the button).
    await nav.getByRole('button', { name: /^Menu/ }).tap();
    await nav.getByRole('link', { name: 'Manual runs' }).tap();
    await expect(page).toHaveURL(new RegExp(`/projects/${t.projectId}/manual-runs$`));
    await expect(page.getByRole('heading', { level: 1, name: 'Manual runs' })).toBeInViewport({ ratio: 1 });
    await switcher.selectOption({ label: 'Mobile app with a long project name' });
    await expect(page).toHaveURL(new RegExp(`/projects/${mobile}$`));
    await expect(nav).toContainText('Mobile app with a long project name');
    await header.getByRole('link', { name: 'Settings' }).tap();
    await expect(page.getByRole('heading', { level: 1, name: 'Personal access tokens' })).toBeVisible();
    expect(await overflow(page)).toBe(0);
  });

  test("a tester taps a verdict in a manual run's execution view, and it is stored", async ({ page, tenant, signIn }) => {
    const t = await tenant('member');
    const { a, P, run } = await manualRun(t);
    await signIn(page, t.userId);
    await page.goto(`/projects/${t.projectId}/manual-runs/${run._id}`);
    await expect(page.getByRole('heading', { level: 1, name: run.name })).toBeVisible();
    await expect(page.locator('#current-case-heading')).toHaveText(`TC-1 ${CASE}`);
    expect(await overflow(page)).toBe(0);
    const verdicts = page.getByRole('group', { name: 'Set the verdict' });
    const passed = verdicts.getByRole('button', { name: /^Passed/ });
    await passed.scrollIntoViewIfNeeded();
    for (const verdict of await verdicts.getByRole('button').all()) await expect(verdict).toBeInViewport({ ratio: 1 });
    await passed.tap();
    await expect(passed).toHaveAttribute('aria-pressed', 'true');
    await expect(page.getByText('1 of 1 tested')).toBeVisible();
    await expect.poll(async () => (await a.get(`${P}/manual-runs/${run._id}/test-cases?limit=10`)).body.data[0].result).toBe('passed');
    expect(await overflow(page)).toBe(0);
  });

  test("a test case's edit form fits the screen and saves", async ({ page, tenant, signIn }) => {
    const t = await tenant('member');
    const { a, P, testCase } = await manualRun(t);
    await signIn(page, t.userId);
    await page.goto(`/projects/${t.projectId}/manual-test-cases/${testCase._id}`);
    const form = page.getByRole('form', { name: 'Edit test case' });
    await expect(form.getByLabel('Title')).toHaveValue(CASE);
    const { width } = page.viewportSize()!;
    for (const field of [form.getByLabel('Title'), form.getByLabel('Priority'), form.getByLabel('Tags')]) {
      const box = (await field.boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(width);
    }
    await form.getByLabel('Title').fill(`${CASE}, on a phone`);
    await form.getByLabel('Priority').selectOption('high');
    await form.getByRole('button', { name: 'Save changes' }).tap();
    await expect(page.getByRole('status').filter({ hasText: 'Saved.' })).toBeVisible();
    const stored = (await a.get(`${P}/manual-test-cases/${testCase._id}`)).body.data;
    expect(stored).toMatchObject({ title: `${CASE}, on a phone`, classification: { priority: 'high' } });
    expect(await overflow(page)).toBe(0);
  });
});
