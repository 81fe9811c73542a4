/**
 * A form sent again when its answer was lost (spec §4.4's `Idempotency-Key`, web/src/api/idempotency.ts): the
 * request reaches the gateway and is carried out, but the connection drops before the answer reaches the browser
 * (Playwright lets the request through and then resets the browser's side). The page says the server cannot be
 * reached and that the form may have been saved; the person sends it again, with the key of the first send, and the gateway replays the first
 * answer: one test case, one token (its secret the one the first send created), never two. After a success the key
 * ends: the same form sent on purpose creates again.
 */
import type { Page, Request } from '@playwright/test';
import { api, expect, expectAccessible, test } from './support/fixtures';

/**
 * The first POST to `url` is carried out by the server and its answer dropped on the way back; later ones pass.
 * Returns the `Idempotency-Key` of every POST sent there.
 */
async function dropFirstAnswer(page: Page, url: string): Promise<string[]> {
  const keys: string[] = [];
  await page.route(url, async (route, request: Request) => {
    if (request.method() !== 'POST') return route.continue();
    keys.push((await request.headerValue('idempotency-key')) ?? '(none)');
    if (keys.length > 1) return route.continue();
    const answered = await route.fetch();
    expect(answered.status(), await answered.text()).toBe(201);
    return route.abort('connectionreset');
  });
  return keys;
}

test('a new test case whose answer was lost, sent again: one case, the first answer replayed', async ({ page, tenant, signIn }) => {
  const t = await tenant('member');
  const suite = await api(t.token).post(`/${t.projectId}/manual-test-suites`, { name: 'Checkout' });
  expect(suite.status, suite.text).toBe(201);
  await signIn(page, t.userId);
  const keys = await dropFirstAnswer(page, `**/api/v1/public/${t.projectId}/manual-test-cases`);

  await page.goto(`/projects/${t.projectId}/manual-test-cases/new?suite=${suite.body.data._id}`);
  await expect(page.getByLabel('Suite')).toHaveValue(suite.body.data._id);
  await page.getByLabel('Title').fill('Pay by voucher');
  await page.getByRole('button', { name: 'Create test case' }).click();
  const form = page.getByRole('form', { name: 'New test case' });
  await expect(form.getByRole('alert')).toHaveText(
    'Perhaps not saved. The server cannot be reached. Send it again once it answers: if it was done before the connection ' +
      'dropped, it is not done twice.',
  );
  await expect(page.getByLabel('Title')).toHaveValue('Pay by voucher');
  // The server did store it; the page cannot know.
  expect((await api(t.token).get(`/${t.projectId}/manual-test-cases`)).body.pagination.total).toBe(1);

  const replayed = page.waitForResponse((r) => r.request().method() === 'POST' && r.url().endsWith('/manual-test-cases'));
  await page.getByRole('button', { name: 'Create test case' }).click();
  expect(await (await replayed).headerValue('idempotent-replayed')).toBe('true');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('TC-1 · Pay by voucher');
  await expectAccessible(page);
  expect(keys).toHaveLength(2);
  expect(keys[0]).toMatch(/^[0-9a-f]{32}$/);
  expect(keys[1]).toBe(keys[0]);
  const cases = await api(t.token).get(`/${t.projectId}/manual-test-cases`);
  expect(cases.body.data.map((c: { caseId: string; title: string }) => `${c.caseId} ${c.title}`)).toEqual(['TC-1 Pay by voucher']);

  // The same form sent on purpose after that success is a second case: the key ended with its answer.
  await page.goto(`/projects/${t.projectId}/manual-test-cases/new?suite=${suite.body.data._id}`);
  await expect(page.getByLabel('Suite')).toHaveValue(suite.body.data._id);
  await page.getByLabel('Title').fill('Pay by voucher');
  await page.getByRole('button', { name: 'Create test case' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('TC-2 · Pay by voucher');
  expect(keys).toHaveLength(3);
  expect(keys[2]).not.toBe(keys[0]);
  expect((await api(t.token).get(`/${t.projectId}/manual-test-cases`)).body.pagination.total).toBe(2);
});

test('a new token whose answer was lost, sent again: one token, and the secret shown is the one that works', async ({
  page,
  tenant,
  signIn,
}) => {
  const t = await tenant('member');
  await signIn(page, t.userId);
  const keys = await dropFirstAnswer(page, '**/api/v1/app/tokens');
  await page.goto('/settings/tokens');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Personal access tokens');

  await page.getByLabel('Name').fill('CI on GitHub');
  await page.getByRole('button', { name: 'Create token' }).click();
  await expect(page.getByRole('alert')).toHaveText(
    'Perhaps not created. The server cannot be reached. Send it again once it answers: if it was done before the ' +
      'connection dropped, it is not done twice.',
  );
  await expect(page.getByLabel('Token secret')).toHaveCount(0);
  await expect(page.getByLabel('Name')).toHaveValue('CI on GitHub');

  await page.getByRole('button', { name: 'Create token' }).click();
  const secretBox = page.getByLabel('Token secret');
  await expect(secretBox).toHaveText(/^svc_pat_/);
  const secret = (await secretBox.textContent())!.trim();
  expect(keys).toHaveLength(2);
  expect(keys[1]).toBe(keys[0]);
  const info = await api(secret).get(`/${t.projectId}/token-info`);
  expect(info.status, info.text).toBe(200);
  // One token of that name in the list (the page's, and the API's own list behind it).
  await expect(page.getByRole('row', { name: /CI on GitHub/ })).toHaveCount(1);
  const mine = await page.request.get('/api/v1/app/tokens', { headers: { 'X-Assay-CSRF': '1' } });
  expect(mine.status()).toBe(200);
  const names = ((await mine.json()).data as { name: string }[]).map((tok) => tok.name);
  expect(names.filter((n) => n === 'CI on GitHub')).toHaveLength(1);
});
