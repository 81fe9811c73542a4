/**
 * One-time links past their one use, in a real browser: a sign-in link and an invitation opened a second time, a
 * token never issued, one garbled on its way (longer than any token: said to be damaged, not in the validator's
 * words), and links past their expiry (a sign-in link after 24 hours, an invitation after 7 days). Expiry is made
 * the way the identity service's own tests make it: the link's `expires_at` set in the past in the test system's
 * database (with the testkit's `psql`: the web workspace has no Postgres client). Each page says
 * what happened and what to do, signs nobody in and sets no password; a new link opened in the same tab then works.
 */
import { createHash } from 'node:crypto';
import type { Page } from '@playwright/test';
import { psql, testAdmin, testSystem } from '@assay/testkit';
import { expect, expectAccessible, test } from './support/fixtures';

const PASSWORD = 'correct horse battery staple';
const USED = 'This sign-in link is unknown, used or expired';
const INVITATION_USED =
  'This invitation link is unknown, used or expired; ask for a new one. If you chose your password with it already, sign in.';
const DAMAGED = (link: string) => `This ${link} is damaged; open it again exactly as you received it, or ask for a new one`;
const tokenOf = (url: string) => new URL(url).hash.replace(/^#token=/, '');

/** The status of a sign-in with e-mail and password, from `page`'s browser. */
async function signInStatus(page: Page, email: string, password: string): Promise<number> {
  const res = await page.request.post('/api/v1/app/login', { headers: { 'x-assay-csrf': '1' }, data: { email, password } });
  return res.status();
}

/** Moves the link's expiry a second into the past (identity.invitations holds both kinds of link, by token hash). */
async function expire(url: string): Promise<void> {
  const hash = createHash('sha256').update(tokenOf(url)).digest('hex');
  const sql = `UPDATE identity.invitations SET expires_at = now() - interval '1 second' WHERE token_hash = '\\x${hash}'::bytea`;
  expect(await psql(testSystem().infra.DATABASE_URL, `${sql} RETURNING 1`)).toBe('1');
}

/** The link opened in a browser that holds no session (another person's, or the same one later). */
async function openSignedOut(page: Page, url: string): Promise<void> {
  await page.context().clearCookies();
  // From another document: a link differing from the address only after `#` would not load the page again.
  await page.goto('about:blank');
  await page.goto(url);
}

test('a sign-in link used once, or never issued: the page says so, signs nobody in, and leads to the sign-in page', async ({
  page,
  tenant,
}) => {
  const t = await tenant('member');
  const link = await testAdmin().rpc.createSignInLink({ userId: t.userId });
  await page.goto(link.url);
  await expect(page).toHaveURL(new RegExp(`/projects/${t.projectId}/runs$`));

  // Used; never issued; garbled on its way (longer than any token): refused in words, not the validator's.
  const origin = new URL(link.url).origin;
  for (const [url, said] of [
    [link.url, USED],
    [`${origin}/sign-in#token=${'A'.repeat(43)}`, USED],
    [`${origin}/sign-in#token=${tokenOf(link.url).repeat(4)}`, DAMAGED('sign-in link')],
  ]) {
    await openSignedOut(page, url!);
    await expect(page.getByRole('heading', { name: 'Signing you in' })).toBeVisible();
    await expect(page.getByRole('alert')).toHaveText(`${said}. Sign in with your password.`);
    await expect(page).toHaveURL(/\/sign-in$/);
    expect((await page.request.get('/api/v1/app/me')).status()).toBe(401);
  }
  await expectAccessible(page);
  await page.getByRole('link', { name: 'Sign in with your password' }).click();
  await expect(page).toHaveURL(/\/login$/);
  await expect(page.getByRole('heading', { name: 'Sign in to Assay' })).toBeVisible();
});

test('an invitation used once, or never issued: the page says so and what to do, and sets no password', async ({ page, tenant }) => {
  const t = await tenant('member');
  const invitation = await testAdmin().rpc.createInvitation({ userId: t.userId });
  await page.goto(invitation.url);
  await page.getByLabel('New password').fill(PASSWORD);
  await page.getByLabel('Confirm password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Set password and sign in' }).click();
  await expect(page).toHaveURL(new RegExp(`/projects/${t.projectId}/runs$`));

  const origin = new URL(invitation.url).origin;
  for (const [url, said] of [
    [invitation.url, INVITATION_USED],
    [`${origin}/accept-invitation#token=${'A'.repeat(43)}`, INVITATION_USED],
    [
      `${origin}/accept-invitation#token=${tokenOf(invitation.url).repeat(4)}`,
      `${DAMAGED('invitation link')}. If you chose your password with it already, sign in.`,
    ],
  ]) {
    await openSignedOut(page, url!);
    await expect(page.getByRole('heading', { name: 'Choose your password' })).toBeVisible();
    await page.getByLabel('New password').fill(`${PASSWORD} again`);
    await page.getByLabel('Confirm password').fill(`${PASSWORD} again`);
    await page.getByRole('button', { name: 'Set password and sign in' }).click();
    await expect(page.getByRole('alert')).toHaveText(said!);
    await expect(page).toHaveURL(/\/accept-invitation$/);
    expect((await page.request.get('/api/v1/app/me')).status()).toBe(401);
  }
  await expectAccessible(page);
  // The password chosen the first time stands; the one typed since was set by none of these.
  expect(await signInStatus(page, t.email, `${PASSWORD} again`)).toBe(401);
  expect(await signInStatus(page, t.email, PASSWORD)).toBe(200);
  // The way out for someone who did choose a password: the sign-in page.
  await page.getByRole('alert').getByRole('link', { name: 'sign in' }).click();
  await expect(page.getByRole('heading', { name: 'Sign in to Assay' })).toBeVisible();
});

test('an expired sign-in link says so and signs nobody in; a new link works', async ({ page, tenant }) => {
  const t = await tenant('viewer');
  const link = await testAdmin().rpc.createSignInLink({ userId: t.userId });
  await expire(link.url);
  await page.goto(link.url);
  await expect(page.getByRole('alert')).toHaveText(`${USED}. Sign in with your password.`);
  await expect(page).toHaveURL(/\/sign-in$/);
  expect((await page.request.get('/api/v1/app/me')).status()).toBe(401);

  // A new link opened in the same tab (the address differs only after `#`: the page is not loaded again) works.
  const fresh = await testAdmin().rpc.createSignInLink({ userId: t.userId });
  await page.goto(fresh.url);
  await expect(page).toHaveURL(new RegExp(`/projects/${t.projectId}/runs$`));
});

test('an expired invitation says so and sets no password; a new invitation works', async ({ page, tenant }) => {
  const t = await tenant('viewer');
  const invitation = await testAdmin().rpc.createInvitation({ userId: t.userId });
  await expire(invitation.url);
  await page.goto(invitation.url);
  await page.getByLabel('New password').fill(PASSWORD);
  await page.getByLabel('Confirm password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Set password and sign in' }).click();
  await expect(page.getByRole('alert')).toHaveText(INVITATION_USED);
  expect((await page.request.get('/api/v1/app/me')).status()).toBe(401);
  expect(await signInStatus(page, t.email, PASSWORD)).toBe(401);

  // A new invitation opened in the same tab (the address differs only after `#`): the refusal goes, the new one works.
  const fresh = await testAdmin().rpc.createInvitation({ userId: t.userId });
  await page.goto(fresh.url);
  await expect(page.getByRole('alert')).toHaveCount(0);
  await page.getByLabel('New password').fill(PASSWORD);
  await page.getByLabel('Confirm password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Set password and sign in' }).click();
  await expect(page).toHaveURL(new RegExp(`/projects/${t.projectId}/runs$`));
});
