/**
 * Paged lists past their first page, in a real browser. A manual run of 105 cases (the API gives at most 100 a
 * page): every case reached through the pager, the counts over the whole run, the verdict keys and the verdict
 * filter on the second page, the page kept on reload, a page past the end. The test-case explorer and the spec
 * health list over 60 tests in 60 files: forward and back, the page kept on reload, the explorer's page size, a
 * page past the end that says where the list ends (and no pager beside it). A fresh project's runs list.
 */
import { resultItem } from '@assay/testkit';
import { api, created, expect, expectAccessible, test } from './support/fixtures';
import { manualCases } from './support/manual';
import { folded, ingestInto } from './support/ingest';

/** `from`..`to`, both included. */
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
const two = (n: number) => String(n).padStart(2, '0');

test('a manual run of 105 cases: the second page holds the rest; verdict keys, the filter and the counts work there', async ({
  page,
  tenant,
  signIn,
}) => {
  test.setTimeout(120_000);
  const t = await tenant('member');
  const a = api(t.token);
  const P = `/${t.projectId}`;
  await manualCases(t, 105, 3);
  const run = await created(a.post(`${P}/manual-runs`, { name: 'Full regression' }));
  const getCase = async (caseId: string) => {
    for (const pageNo of [1, 2]) {
      const cases = (await a.get(`${P}/manual-runs/${run._id}/test-cases?limit=100&page=${pageNo}`)).body.data;
      const found = cases.find((c: { testCase: { caseId: string } }) => c.testCase.caseId === caseId);
      if (found) return found;
    }
    throw new Error(`${caseId} is not in the run`);
  };
  const label = (n: number) => `TC-${n} Case ${String(n).padStart(3, '0')}`;

  await signIn(page, t.userId);
  await page.goto(`/projects/${t.projectId}/manual-runs/${run._id}`);
  const cases = page.getByRole('region', { name: 'Cases' });
  const names = cases.getByRole('table').getByRole('button');
  const row = (n: number) => cases.getByRole('row').filter({ has: page.getByRole('button', { name: label(n), exact: true }) });
  const pages = cases.getByRole('navigation', { name: 'Pages' });
  const current = page.locator('#current-case-heading');
  const tested = page.getByText(/^\d+ of 105 tested$/);
  await expect(tested).toHaveText('0 of 105 tested');
  await expect(page.locator('dd[data-verdict="untested"]')).toHaveText('105');
  await expect(names).toHaveText(range(1, 100).map(label));
  await expect(pages).toContainText('Page 1 of 2');
  await expect(pages.getByRole('button', { name: 'Previous' })).toBeDisabled();
  await expect(current).toHaveText(label(1));

  await pages.getByRole('button', { name: 'Next' }).click();
  await expect(page).toHaveURL(/[?&]page=2(&|$)/);
  await expect(pages).toContainText('Page 2 of 2');
  await expect(pages.getByRole('button', { name: 'Next' })).toBeDisabled();
  await expect(names).toHaveText(range(101, 105).map(label));
  await expect(current).toHaveText(label(101));
  await expectAccessible(page);

  // The keys on the second page: j moves within it and stops at the run's last case; verdicts are stored there.
  await page.keyboard.press('j');
  await expect(current).toHaveText(label(102));
  await page.keyboard.press('f');
  await expect(row(102)).toContainText('Failed');
  await expect(tested).toHaveText('1 of 105 tested');
  await expect(page.locator('dd[data-verdict="failed"]')).toHaveText('1');
  for (let i = 0; i < 4; i++) await page.keyboard.press('j');
  await expect(current).toHaveText(label(105));
  await expect(row(105)).toHaveAttribute('aria-current', 'true');
  await page.keyboard.press('s');
  await expect(row(105)).toContainText('Skipped');
  await expect(tested).toHaveText('2 of 105 tested');
  await expect(page.locator('dd[data-verdict="untested"]')).toHaveText('103');
  await expect(pages).toContainText('Page 2 of 2');
  expect((await getCase('TC-102')).result).toBe('failed');
  expect((await getCase('TC-105')).result).toBe('skipped');
  expect((await getCase('TC-101')).result).toBe('untested');

  // A reload shows the same page and case.
  await page.reload();
  await expect(pages).toContainText('Page 2 of 2');
  await expect(current).toHaveText(label(105));
  await expect(names).toHaveText(range(101, 105).map(label));
  await page.keyboard.press('k');
  await expect(current).toHaveText(label(104));

  // The verdict filter: from the second page, the first page of what matches.
  const verdict = cases.getByLabel('Verdict', { exact: true });
  await verdict.selectOption({ label: 'Failed' });
  await expect(page).not.toHaveURL(/[?&]page=/);
  await expect(names).toHaveText([label(102)]);
  await expect(pages).toHaveCount(0);
  await verdict.selectOption({ label: 'Untested' });
  await expect(names).toHaveCount(100);
  await expect(pages).toContainText('Page 1 of 2');
  await pages.getByRole('button', { name: 'Next' }).click();
  await expect(pages).toContainText('Page 2 of 2');
  await expect(names).toHaveText([101, 103, 104].map(label));
  await expect(current).toHaveText(label(101));
  // A verdict on a filtered page: the case leaves the untested list, the counts follow.
  await page.keyboard.press('p');
  await expect(names).toHaveText([103, 104].map(label));
  await expect(tested).toHaveText('3 of 105 tested');
  await expect(page.locator('dd[data-verdict="passed"]')).toHaveText('1');
  expect((await getCase('TC-101')).result).toBe('passed');
  await expectAccessible(page);

  // A page past the end of the run's cases says where they end and leads back.
  await page.goto(`/projects/${t.projectId}/manual-runs/${run._id}?page=3`);
  await expect(cases.getByText('Nothing on page 3: the list ends at page 2.')).toBeVisible();
  await expect(pages).toHaveCount(0);
  await cases.getByRole('button', { name: 'Go to the first page' }).click();
  await expect(page).not.toHaveURL(/[?&]page=/);
  await expect(names).toHaveCount(100);
  await expect(pages).toContainText('Page 1 of 2');
  // A page the API would refuse (above its highest, 1,000,000) is the first page, not an error.
  await page.goto(`/projects/${t.projectId}/manual-runs/${run._id}?page=99999999`);
  await expect(names).toHaveText(range(1, 100).map(label));
  await expect(pages).toContainText('Page 1 of 2');
  await expect(page.getByRole('alert')).toHaveCount(0);
});

/** One finished run of 60 passed tests, `paging › case NN` in `specs/area-NN.spec.ts` (NN = 00..59), folded. */
async function sixtyTestsInSixtyFiles(t: { token: string; projectId: string }) {
  const ingest = ingestInto(t);
  const started = await ingest('/runs', { metadata: { git: { branch: 'main' } } });
  expect(started.status, started.text).toBe(201);
  const runId = started.body.data.runId;
  const results = range(0, 59).map((n) => resultItem(`specs/area-${two(n)}.spec.ts`, ['paging', `case ${two(n)}`], 'passed'));
  const sent = await ingest(`/runs/${runId}/results`, { results });
  expect(sent.status, sent.text).toBe(200);
  expect((await ingest(`/runs/${runId}/finish`, {})).status).toBe(200);
  await folded(t, 1, 30);
}

test("the explorer's pages: forward and back, kept on reload, 10, 25 or 50 a page, a page past the end", async ({
  page,
  tenant,
  signIn,
}) => {
  test.setTimeout(120_000);
  const t = await tenant('member');
  await sixtyTestsInSixtyFiles(t);
  // Every test ran once: the explorer's order is by title.
  const titles = (from: number, to: number) => range(from, to).map((n) => `paging › case ${two(n)}`);

  await signIn(page, t.userId);
  await page.goto(`/projects/${t.projectId}/test-case-explorer`);
  const names = page.getByRole('table', { name: 'Tests' }).getByRole('link');
  const pages = page.getByRole('navigation', { name: 'Pages' });
  const perPage = page.getByLabel('Per page');
  await expect(names).toHaveText(titles(0, 24));
  await expect(perPage).toHaveValue('25');
  await expect(pages).toContainText('Page 1 of 3');
  await expect(pages.getByRole('button', { name: 'Previous' })).toBeDisabled();
  await pages.getByRole('button', { name: 'Next' }).click();
  await expect(page).toHaveURL(/[?&]page=2$/);
  await expect(pages).toContainText('Page 2 of 3');
  await expect(names).toHaveText(titles(25, 49));
  await pages.getByRole('button', { name: 'Next' }).click();
  await expect(pages).toContainText('Page 3 of 3');
  await expect(names).toHaveText(titles(50, 59));
  await expect(pages.getByRole('button', { name: 'Next' })).toBeDisabled();
  await pages.getByRole('button', { name: 'Previous' }).click();
  await expect(page).toHaveURL(/[?&]page=2$/);
  await expect(names).toHaveText(titles(25, 49));
  await page.reload();
  await expect(pages).toContainText('Page 2 of 3');
  await expect(names).toHaveText(titles(25, 49));
  await expectAccessible(page);

  // The page size: a new size starts at its first page; in the URL, kept on reload.
  await perPage.selectOption('10');
  await expect(page).toHaveURL(/[?&]limit=10$/);
  await expect(pages).toContainText('Page 1 of 6');
  await expect(names).toHaveText(titles(0, 9));
  await pages.getByRole('button', { name: 'Next' }).click();
  await expect(names).toHaveText(titles(10, 19));
  await perPage.selectOption('50');
  await expect(page).toHaveURL(/[?&]limit=50$/);
  await expect(pages).toContainText('Page 1 of 2');
  await expect(names).toHaveText(titles(0, 49));
  await pages.getByRole('button', { name: 'Next' }).click();
  await expect(page).toHaveURL(/[?&]limit=50&page=2$/);
  await page.reload();
  await expect(perPage).toHaveValue('50');
  await expect(pages).toContainText('Page 2 of 2');
  await expect(names).toHaveText(titles(50, 59));
  await perPage.selectOption('25');
  await expect(page).not.toHaveURL(/[?&](limit|page)=/);
  await expect(names).toHaveText(titles(0, 24));

  // Past the end: where the list ends, the way back, and no pager counting "page 9 of 6".
  await page.goto(`/projects/${t.projectId}/test-case-explorer?limit=10&page=9`);
  await expect(page.getByText('Nothing on page 9: the list ends at page 6.')).toBeVisible();
  await expect(pages).toHaveCount(0);
  await expect(page.getByText('Page 9 of 6')).toHaveCount(0);
  await expectAccessible(page);
  await page.getByRole('button', { name: 'Go to the first page' }).click();
  await expect(page).toHaveURL(/[?&]limit=10$/);
  await expect(names).toHaveText(titles(0, 9));
  await expect(pages).toContainText('Page 1 of 6');
  // A page no list has (typed, or cut short) is the first page, not the API's refusal.
  for (const typed of ['-1', '1.5', '99999999']) {
    await page.goto(`/projects/${t.projectId}/test-case-explorer?page=${typed}`);
    await expect(pages, `page=${typed}`).toContainText('Page 1 of 3');
    await expect(names).toHaveText(titles(0, 24));
    await expect(page.getByRole('alert')).toHaveCount(0);
  }
});

test("spec health's pages: forward and back, kept on reload, a page past the end", async ({ page, tenant, signIn }) => {
  test.setTimeout(120_000);
  const t = await tenant('member');
  await sixtyTestsInSixtyFiles(t);
  // No file failed: the list's order is by file name.
  const files = (from: number, to: number) => range(from, to).map((n) => new RegExp(`^specs/area-${two(n)}\\.spec\\.ts`));

  await signIn(page, t.userId);
  await page.goto(`/projects/${t.projectId}/specs`);
  const rows = page.getByRole('table', { name: 'Spec files' }).getByRole('row').filter({ hasText: 'specs/area-' });
  const pages = page.getByRole('navigation', { name: 'Pages' });
  await expect(rows).toHaveText(files(0, 49));
  await expect(pages).toContainText('Page 1 of 2');
  await expect(pages.getByRole('button', { name: 'Previous' })).toBeDisabled();
  await pages.getByRole('button', { name: 'Next' }).click();
  await expect(page).toHaveURL(/[?&]page=2$/);
  await expect(pages).toContainText('Page 2 of 2');
  await expect(pages.getByRole('button', { name: 'Next' })).toBeDisabled();
  await expect(rows).toHaveText(files(50, 59));
  await page.reload();
  await expect(pages).toContainText('Page 2 of 2');
  await expect(rows).toHaveText(files(50, 59));
  await expectAccessible(page);
  await pages.getByRole('button', { name: 'Previous' }).click();
  await expect(pages).toContainText('Page 1 of 2');
  await expect(rows).toHaveText(files(0, 49));

  await page.goto(`/projects/${t.projectId}/specs?page=4`);
  await expect(page.getByText('Nothing on page 4: the list ends at page 2.')).toBeVisible();
  await expect(pages).toHaveCount(0);
  await expectAccessible(page);
  await page.getByRole('button', { name: 'Go to the first page' }).click();
  await expect(page).not.toHaveURL(/[?&]page=/);
  await expect(rows).toHaveText(files(0, 49));
  await page.goto(`/projects/${t.projectId}/specs?page=-2`);
  await expect(pages).toContainText('Page 1 of 2');
  await expect(rows).toHaveText(files(0, 49));
  await expect(page.getByRole('alert')).toHaveCount(0);
});

test("a fresh project's runs list says no run came yet, also on a page past its end, and offers no pager", async ({
  page,
  tenant,
  signIn,
}) => {
  const t = await tenant('viewer');
  await signIn(page, t.userId);
  await page.goto(`/projects/${t.projectId}/runs`);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Runs');
  await expect(page.getByText('No runs yet: send a report to the ingestion API.')).toBeVisible();
  await expect(page.getByRole('table', { name: 'Runs' })).toHaveCount(0);
  await expect(page.getByRole('navigation', { name: 'Pages' })).toHaveCount(0);
  await expectAccessible(page);
  // A page of an empty list is not "past its end": there is no end to name.
  await page.goto(`/projects/${t.projectId}/runs?page=2`);
  await expect(page.getByText('No runs yet: send a report to the ingestion API.')).toBeVisible();
  await expect(page.getByText(/Nothing on page/)).toHaveCount(0);
  await page.goto(`/projects/${t.projectId}/runs?page=-1`);
  await expect(page.getByText('No runs yet: send a report to the ingestion API.')).toBeVisible();
  await expect(page.getByRole('alert')).toHaveCount(0);
});
