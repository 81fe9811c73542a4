/**
 * The app on a phone (375 × 667, touch), where the project's navigation and a manual run's execution view change
 * their layout, and the same pages at 1280 pixels, where they do not. On the phone the navigation folds behind a
 * button that names the page shown (the page's title on the first screen): the button opens and folds it, a
 * followed link folds it, Escape folds it and the focus goes back to the button, axe passes open and folded. A
 * manual run's current case with its verdict buttons comes before the list of its cases (and no legend of keyboard
 * keys above it), its title and its Passed and Failed buttons on the first screen for a writer (the progress one
 * line, its counts per verdict behind a button that opens and folds them), and a tap records a verdict; a case
 * tapped in the list below brings the case into view.
 */
import type { Locator } from '@playwright/test';
import { api, created, expect, expectAccessible, test } from './support/fixtures';

const PHONE = { viewport: { width: 375, height: 667 }, hasTouch: true, isMobile: true };

/** Where an element's box starts, in pixels from the top of the window. */
const top = async (element: Locator) => (await element.boundingBox())!.y;

/** An open run over a suite of two classic cases, in `t`'s project. */
async function manualRun(t: { token: string; projectId: string }) {
  const a = api(t.token);
  const P = `/${t.projectId}`;
  const suite = await created(a.post(`${P}/manual-test-suites`, { name: 'Checkout' }));
  for (const title of ['Pay with a saved card', 'Empty cart is refused']) {
    await created(a.post(`${P}/manual-test-cases`, { title, suiteId: suite._id, steps: [{ action: 'Open /checkout' }] }));
  }
  const run = await created(a.post(`${P}/manual-runs`, { name: 'Sprint 12 regression', selectionMode: 'selected', suiteIds: [suite._id] }));
  const resultOf = async (caseId: string) =>
    (await a.get(`${P}/manual-runs/${run._id}/test-cases?limit=10`)).body.data.find(
      (c: { testCase: { caseId: string } }) => c.testCase.caseId === caseId,
    ).result;
  return { runId: run._id as string, resultOf };
}

test.describe('on a phone', () => {
  test.use(PHONE);

  test("the project's navigation folds behind a button naming the page: opens, follows a link, folds on Escape", async ({
    page,
    tenant,
    signIn,
  }) => {
    const t = await tenant('member');
    await signIn(page, t.userId);
    await page.goto(`/projects/${t.projectId}`);
    const nav = page.getByRole('navigation', { name: 'Project' });
    const menu = nav.getByRole('button', { name: /^Menu/ });
    const runs = nav.getByRole('link', { name: 'Runs', exact: true });

    // Folded: the button names the page, the links are hidden, the page's title is near the top of the first screen.
    await expect(page.getByRole('heading', { level: 1, name: 'Dashboard' })).toBeInViewport({ ratio: 1 });
    expect(await top(page.getByRole('heading', { level: 1 }))).toBeLessThan(200);
    await expect(menu).toBeInViewport({ ratio: 1 });
    await expect(menu).toHaveAttribute('aria-expanded', 'false');
    await expect(menu).toHaveAccessibleName(/^Menu ?, this page: Dashboard$/);
    const controlled = page.locator(`[id="${await menu.getAttribute('aria-controls')}"]`);
    await expect(controlled).toBeHidden();
    await expect(runs).toBeHidden();
    await expectAccessible(page);

    // Opened: the links show, in the same landmark; tapped again, it folds.
    await menu.tap();
    await expect(menu).toHaveAttribute('aria-expanded', 'true');
    await expect(controlled).toBeVisible();
    await expect(runs).toBeVisible();
    await expectAccessible(page);
    await menu.tap();
    await expect(menu).toHaveAttribute('aria-expanded', 'false');
    await expect(runs).toBeHidden();

    // Escape from a link inside: folded, the focus back on the button.
    await menu.tap();
    await runs.focus();
    await page.keyboard.press('Escape');
    await expect(menu).toHaveAttribute('aria-expanded', 'false');
    await expect(runs).toBeHidden();
    await expect(menu).toBeFocused();

    // A link followed: the page changes, the menu folds and names the new page.
    await menu.tap();
    await nav.getByRole('link', { name: 'Manual runs' }).tap();
    await expect(page).toHaveURL(new RegExp(`/projects/${t.projectId}/manual-runs$`));
    await expect(page.getByRole('heading', { level: 1, name: 'Manual runs' })).toBeInViewport({ ratio: 1 });
    await expect(menu).toHaveAttribute('aria-expanded', 'false');
    await expect(menu).toHaveAccessibleName(/^Menu ?, this page: Manual runs$/);
    await expect(runs).toBeHidden();
    expect(await top(page.getByRole('heading', { level: 1 }))).toBeLessThan(200);
    await expectAccessible(page);
  });

  test("a manual run's current case and its verdict buttons come before the list of its cases; a tap records a verdict", async ({
    page,
    tenant,
    signIn,
  }) => {
    const t = await tenant('member');
    const { runId, resultOf } = await manualRun(t);
    await signIn(page, t.userId);
    await page.goto(`/projects/${t.projectId}/manual-runs/${runId}`);
    const current = page.locator('#current-case-heading');
    await expect(current).toHaveText('TC-1 Pay with a saved card');
    const verdicts = page.getByRole('group', { name: 'Set the verdict' });
    const passed = verdicts.getByRole('button', { name: /^Passed/ });
    const failed = verdicts.getByRole('button', { name: /^Failed/ });
    const cases = page.getByRole('region', { name: 'Cases' });
    // A touch screen most likely has no keyboard: no legend of its keys above the case.
    await expect(page.getByRole('heading', { name: 'Keyboard shortcuts' })).toBeHidden();

    // A writer (the run's card, with its Close run button, is on the page): the case's title and its Passed and
    // Failed buttons are whole on the first screen as the page opens, before any scroll; the progress's line too.
    await expect(page.getByRole('region', { name: 'Run', exact: true }).getByRole('button', { name: 'Close run' })).toBeAttached();
    expect(await page.evaluate(() => window.scrollY)).toBe(0);
    for (const element of [current, passed, failed, page.getByText('0 of 2 tested')]) {
      await expect(element).toBeInViewport({ ratio: 1 });
    }
    expect(await page.evaluate(() => window.scrollY)).toBe(0);

    // The counts per verdict fold behind their button (out of sight, still in the live region): tapped, they show;
    // tapped again, they fold.
    const progress = page.getByRole('region', { name: 'Progress' });
    const counts = progress.getByRole('button', { name: 'Counts per verdict' });
    const untested = progress.locator('dd[data-verdict="untested"]');
    const countsBox = async () => (await progress.locator('.verdict-counts').boundingBox())!;
    await expect(counts).toBeInViewport({ ratio: 1 });
    await expect(counts).toHaveAttribute('aria-expanded', 'false');
    await expect(untested).toHaveText('2');
    expect((await countsBox()).height).toBeLessThanOrEqual(1);
    await counts.tap();
    await expect(counts).toHaveAttribute('aria-expanded', 'true');
    for (const verdict of ['Untested', 'Passed', 'Failed', 'Blocked', 'Skipped', 'Retest']) {
      await expect(progress.getByText(verdict, { exact: true })).toBeInViewport({ ratio: 1 });
    }
    await expect(untested).toBeInViewport({ ratio: 1 });
    expect((await countsBox()).height).toBeGreaterThan(10);
    await expectAccessible(page);
    await counts.tap();
    await expect(counts).toHaveAttribute('aria-expanded', 'false');
    await expect.poll(async () => (await countsBox()).height).toBeLessThanOrEqual(1);
    await expect(passed).toBeInViewport({ ratio: 1 });

    // The verdict buttons before the list, on the page and in the reading order, and near the first screen.
    const { height } = page.viewportSize()!;
    expect(await top(passed)).toBeLessThan(await top(cases));
    expect(await top(passed)).toBeLessThan(height * 1.5);
    expect(
      await page.evaluate(() => {
        const a = document.querySelector('[aria-label="Set the verdict"]')!;
        const b = document.getElementById('run-cases-heading')!;
        return Boolean(a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING);
      }),
    ).toBe(true);
    await expectAccessible(page);

    await passed.scrollIntoViewIfNeeded();
    await passed.tap();
    await expect(passed).toHaveAttribute('aria-pressed', 'true');
    await expect(page.getByText('1 of 2 tested')).toBeVisible();
    // Folded, the count is still the live region's (announced with it).
    await expect(progress.getByRole('status').locator('dd[data-verdict="passed"]')).toHaveText('1');
    await expect.poll(() => resultOf('TC-1')).toBe('passed');

    // A case tapped in the list below: it becomes the current case, in view above the list.
    await cases.getByRole('button', { name: 'TC-2 Empty cart is refused' }).tap();
    await expect(current).toHaveText('TC-2 Empty cart is refused');
    await expect(current).toBeInViewport();
    await failed.tap();
    await expect.poll(() => resultOf('TC-2')).toBe('failed');

    // The run's card, out of the way of the case on the phone's first screen: after the list, on the page and in the
    // reading (and focus) order, and it still works.
    const admin = page.getByRole('region', { name: 'Run', exact: true });
    const adminAfterCases = () =>
      page.evaluate(() => {
        const a = document.getElementById('run-cases-heading')!;
        const b = document.getElementById('run-admin-heading')!;
        return Boolean(a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING);
      });
    expect(await top(admin)).toBeGreaterThan(await top(cases));
    expect(await adminAfterCases()).toBe(true);
    await admin.getByRole('button', { name: 'Edit run' }).tap();
    const name = admin.getByRole('form', { name: 'Edit run' }).getByLabel('Name');
    await expect(name).toHaveValue('Sprint 12 regression');
    await expect(admin.getByRole('form', { name: 'Edit run' })).toBeInViewport();

    // Turned sideways (wider than a phone's layout): the card goes back above the case, the form open with what was typed.
    await name.fill('Sprint 12 regression, second pass');
    await page.setViewportSize({ width: 667, height: 375 });
    await expect.poll(adminAfterCases).toBe(false);
    expect(await top(admin)).toBeLessThan(await top(cases));
    await expect(name).toHaveValue('Sprint 12 regression, second pass');
    await expectAccessible(page);
    // And back upright, typing: the card after the list again, the field still focused (the on-screen keyboard stays).
    await name.focus();
    await page.setViewportSize({ width: 375, height: 667 });
    await expect.poll(adminAfterCases).toBe(true);
    await expect(name).toHaveValue('Sprint 12 regression, second pass');
    await expect(name).toBeFocused();
  });
});

test.describe('at 1280 pixels', () => {
  test("the project's navigation shows its links and no menu button; a manual run's list is left of the case", async ({
    page,
    tenant,
    signIn,
  }) => {
    const t = await tenant('member');
    const { runId } = await manualRun(t);
    await signIn(page, t.userId);
    await page.goto(`/projects/${t.projectId}`);
    const nav = page.getByRole('navigation', { name: 'Project' });
    await expect(page.getByRole('heading', { level: 1, name: 'Dashboard' })).toBeVisible();
    await expect(nav.getByRole('button')).toBeHidden();
    await expect(nav.getByText('Test project')).toBeVisible();
    for (const name of ['Dashboard', 'Runs', 'Summary', 'Test cases', 'Manual runs', 'Webhooks', 'Reports']) {
      await expect(nav.getByRole('link', { name, exact: true })).toBeVisible();
    }
    // Escape does not hide them.
    await nav.getByRole('link', { name: 'Runs', exact: true }).focus();
    await page.keyboard.press('Escape');
    await expect(nav.getByRole('link', { name: 'Runs', exact: true })).toBeVisible();

    await page.goto(`/projects/${t.projectId}/manual-runs/${runId}`);
    await expect(page.locator('#current-case-heading')).toHaveText('TC-1 Pay with a saved card');
    await expect(page.getByRole('heading', { name: 'Keyboard shortcuts' })).toBeVisible();
    const list = (await page.getByRole('region', { name: 'Cases' }).boundingBox())!;
    const current = (await page.locator('.execution-case').boundingBox())!;
    expect(list.x + list.width).toBeLessThanOrEqual(current.x);
    expect(Math.abs(list.y - current.y)).toBeLessThan(2);
  });
});
