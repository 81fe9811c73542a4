/**
 * Signing in and out in a real browser: the invitation link, the sign-in page, one-time sign-in links (and either
 * link without its token), where the app sends a signed-out visitor, signing out here and everywhere, the not-found
 * page, the keyboard, and axe-core on each of these pages. Another organization's project shows the API's refusal.
 * A password longer than the API takes is said in words (choosing one) or read as wrong (signing in).
 * Ten wrong passwords lock the account (the right one is then refused too, and the page says so, the e-mail kept),
 * not the address: another account signs in from the same browser.
 */
import { testAdmin } from '@assay/testkit';
import { api, expect, expectAccessible, test } from './support/fixtures';

const PASSWORD = 'correct horse battery staple';

/** Gives `userId` a password the way a person does: through an invitation, answered over the API. */
async function withPassword(userId: string, baseURL: string): Promise<void> {
  const invitation = await testAdmin().rpc.createInvitation({ userId });
  const res = await fetch(`${baseURL}/api/v1/app/invitations/accept`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-assay-csrf': '1' },
    body: JSON.stringify({ token: invitation.token, password: PASSWORD }),
  });
  expect(res.status).toBe(200);
}

test('an invitation link lets the user choose a password and signs them in', async ({ page, tenant }) => {
  const t = await tenant('member');
  const invitation = await testAdmin().rpc.createInvitation({ userId: t.userId });
  await page.goto(invitation.url);
  await expect(page.getByRole('heading', { name: 'Choose your password' })).toBeVisible();
  // The token leaves the address bar once read.
  await expect(page).toHaveURL(/\/accept-invitation$/);
  await expectAccessible(page);

  // Longer than the identity service keeps: said in words before anything is sent (no `maxLength`, which would cut
  // a pasted password short without a word).
  await page.getByLabel('New password').fill('x'.repeat(257));
  await page.getByLabel('Confirm password').fill('x'.repeat(257));
  await page.getByRole('button', { name: 'Set password and sign in' }).click();
  await expect(page.getByRole('alert')).toHaveText('A password is at most 256 characters; this one has 257.');
  await expect(page.getByText('12 to 256 characters.')).toBeVisible();

  await page.getByLabel('New password').fill(PASSWORD);
  await page.getByLabel('Confirm password').fill(`${PASSWORD}!`);
  await page.getByRole('button', { name: 'Set password and sign in' }).click();
  await expect(page.getByRole('alert')).toHaveText('The two passwords differ.');

  await page.getByLabel('Confirm password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Set password and sign in' }).click();
  // One project: the user lands on its runs.
  await expect(page).toHaveURL(new RegExp(`/projects/${t.projectId}/runs$`));
  await expect(page.getByRole('navigation', { name: 'Account' })).toContainText(t.name);

  // The link was for one use.
  const again = await page.context().browser()!.newPage();
  await again.goto(invitation.url);
  await again.getByLabel('New password').fill(PASSWORD);
  await again.getByLabel('Confirm password').fill(PASSWORD);
  await again.getByRole('button', { name: 'Set password and sign in' }).click();
  await expect(again.getByRole('alert')).toBeVisible();
  await expect(again).toHaveURL(/\/accept-invitation$/);
  await again.close();
});

test('the sign-in page: labelled fields, one message for a wrong password and an unknown e-mail, then in', async ({
  page,
  tenant,
  baseURL,
}) => {
  const t = await tenant('viewer');
  await withPassword(t.userId, baseURL!);

  await page.goto('/login');
  await expect(page.getByRole('heading', { name: 'Sign in to Assay' })).toBeVisible();
  await expectAccessible(page);

  // A password longer than any account's (the API refuses to look it up: 400) is as wrong as any other, and said so.
  await page.getByLabel('Email').fill(t.email);
  await page.getByLabel('Password').fill('x'.repeat(300));
  const refused = page.waitForResponse((res) => res.url().endsWith('/api/v1/app/login'));
  await page.getByRole('button', { name: 'Sign in' }).click();
  expect((await refused).status()).toBe(400);
  await expect(page.getByRole('alert')).toHaveText('Wrong e-mail or password');

  await page.getByLabel('Password').fill('not the password');
  const answered = page.waitForResponse((res) => res.url().endsWith('/api/v1/app/login'));
  await page.getByRole('button', { name: 'Sign in' }).click();
  expect((await answered).status()).toBe(401);
  const wrongPassword = await page.getByRole('alert').textContent();
  expect(wrongPassword).toBe('Wrong e-mail or password');

  await page.getByLabel('Email').fill('nobody-at-all@example.test');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('alert')).toHaveText(wrongPassword!);
  expect(wrongPassword).not.toMatch(/unknown|not found|no such|exist/i);

  await page.getByLabel('Email').fill(t.email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(new RegExp(`/projects/${t.projectId}/runs$`));
});

test('a signed-out visitor goes to /login and comes back to the page asked for', async ({ page, tenant, baseURL }) => {
  const t = await tenant('owner');
  await withPassword(t.userId, baseURL!);
  await page.goto('/settings/tokens?from=link');
  await expect(page).toHaveURL(/\/login\?next=%2Fsettings%2Ftokens%3Ffrom%3Dlink$/);
  await page.getByLabel('Email').fill(t.email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(/\/settings\/tokens\?from=link$/);

  // `next` never leads to another site.
  await page.goto('/login?next=//evil.example/x');
  await expect(page.getByRole('heading', { name: 'Sign in to Assay' })).toBeVisible();
});

test('a sign-in link works once; sign out ends the session for the API too', async ({ page, tenant, signIn }) => {
  const t = await tenant('member');
  await signIn(page, t.userId);
  await expect(page).toHaveURL(new RegExp(`/projects/${t.projectId}/runs$`));
  const me = await page.request.get('/api/v1/app/me');
  expect(me.status()).toBe(200);

  await page.getByRole('button', { name: 'Sign out', exact: true }).click();
  await expect(page).toHaveURL(/\/login$/);
  expect((await page.request.get('/api/v1/app/me')).status()).toBe(401);
  expect((await page.request.get(`/api/v1/public/${t.projectId}/test-runs`)).status()).toBe(401);

  // A used link says so and offers the sign-in page.
  const link = await testAdmin().rpc.createSignInLink({ userId: t.userId });
  await page.goto(link.url);
  await expect(page).toHaveURL(new RegExp(`/projects/${t.projectId}/runs$`));
  await page.context().clearCookies();
  await page.goto(link.url);
  await expect(page.getByRole('alert')).toBeVisible();
  await expect(page.getByRole('link', { name: 'Sign in with your password' })).toBeVisible();
});

test('sign out everywhere ends the sessions of other browsers', async ({ browser, tenant, signIn }) => {
  const t = await tenant('member');
  const first = await (await browser.newContext()).newPage();
  const second = await (await browser.newContext()).newPage();
  await signIn(first, t.userId);
  await signIn(second, t.userId);

  await first.getByRole('button', { name: 'Sign out everywhere' }).click();
  await expect(first).toHaveURL(/\/login$/);
  await second.goto('/');
  await expect(second).toHaveURL(/\/login\?next=%2F$/);
  // The API token of the user is not a session: it still works.
  expect((await api(t.token).get(`/${t.projectId}/token-info`)).status).toBe(200);
  await first.context().close();
  await second.context().close();
});

test('an unknown path is the not-found page, answered with 404; known pages with 200', async ({ page }) => {
  // The app's scripts arrive as the build's brotli copies (Chromium accepts br), and run.
  const scripts: { url: string; encoding: string | undefined }[] = [];
  page.on('response', (res) => {
    if (res.request().resourceType() === 'script') scripts.push({ url: res.url(), encoding: res.headers()['content-encoding'] });
  });
  const missing = await page.goto('/no/such/page');
  expect(missing!.status()).toBe(404);
  expect(missing!.headers()['content-type']).toMatch(/^text\/html/);
  await expect(page.getByRole('heading', { name: 'Page not found' })).toBeVisible();
  expect(scripts.find((s) => /\/assets\/index-[\w-]+\.js$/.test(s.url))?.encoding).toBe('br');
  await expectAccessible(page);

  const known = await page.goto('/projects/p1/runs/r1/test-cases/c1');
  expect(known!.status()).toBe(200);
  expect(known!.headers()['content-security-policy']).toContain("script-src 'self'");
  // An API path is never the app.
  const apiMissing = await page.request.get('/api/v1/nope');
  expect(apiMissing.status()).toBe(404);
  expect(apiMissing.headers()['content-type']).toMatch(/json/);
});

test('the keyboard reaches everything: skip link, project navigation, the account menu', async ({ page, tenant, signIn }) => {
  const t = await tenant('owner');
  await signIn(page, t.userId);
  await page.goto('/');
  await expect(page.getByRole('heading', { name: 'Your projects' })).toBeVisible();
  await expectAccessible(page);

  await page.keyboard.press('Tab');
  await expect(page.getByRole('link', { name: 'Skip to content' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.locator('#main')).toBeFocused();

  // From the project list to the project with the keyboard alone.
  await page.getByRole('link', { name: 'Test project' }).focus();
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(new RegExp(`/projects/${t.projectId}$`));
  const nav = page.getByRole('navigation', { name: 'Project' });
  await nav.getByRole('link', { name: 'Runs', exact: true }).focus();
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(new RegExp(`/projects/${t.projectId}/runs$`));
  await expect(nav.getByRole('link', { name: 'Runs', exact: true })).toHaveAttribute('aria-current', 'page');
});

test('a sign-in or invitation link without its token says it is incomplete and leads to the sign-in page', async ({ page }) => {
  await page.goto('/sign-in');
  await expect(page.getByRole('alert')).toContainText('This link is incomplete.');
  await page.getByRole('link', { name: 'Sign in with your password' }).click();
  await expect(page).toHaveURL(/\/login$/);

  await page.goto('/accept-invitation');
  await expect(page.getByRole('alert')).toContainText('This link is incomplete.');
  await expect(page.getByLabel('New password')).toHaveCount(0);
  await expectAccessible(page);
  await page.getByRole('link', { name: 'sign in' }).click();
  await expect(page).toHaveURL(/\/login$/);
});

test("another organization's project: its pages show the API's refusal, not its data", async ({ page, tenant, signIn }) => {
  const mine = await tenant('owner');
  const theirs = await tenant('owner');
  expect((await api(theirs.token).post(`/${theirs.projectId}/releases`, { name: 'Their secret 1.0' })).status).toBe(201);
  await signIn(page, mine.userId);
  for (const path of ['', '/runs', '/analytics', '/releases']) {
    await page.goto(`/projects/${theirs.projectId}${path}`);
    await expect(page.getByRole('alert')).toContainText('Project not found or not accessible');
  }
  await expect(page.getByText('Their secret 1.0')).toHaveCount(0);
  await expectAccessible(page);
});

test('ten wrong passwords lock the account: then even the right one is refused, the e-mail stays typed, others still sign in', async ({
  page,
  tenant,
  baseURL,
}) => {
  const t = await tenant('viewer');
  const other = await tenant('viewer');
  await withPassword(t.userId, baseURL!);
  await withPassword(other.userId, baseURL!);
  await page.goto('/login');
  const alert = page.getByRole('alert');
  const attempt = async (password: string) => {
    await page.getByLabel('Password').fill(password);
    const answered = page.waitForResponse((res) => res.url().endsWith('/api/v1/app/login'));
    await page.getByRole('button', { name: 'Sign in' }).click();
    return (await answered).status();
  };

  await page.getByLabel('Email').fill(t.email);
  for (let i = 1; i <= 10; i++) {
    expect(await attempt(`not the password ${i}`)).toBe(401);
    await expect(alert).toHaveText('Wrong e-mail or password');
  }
  // The eleventh attempt, with the right password, is refused for a while, and the page says so (not "wrong
  // password").
  expect(await attempt(PASSWORD)).toBe(429);
  await expect(alert).toHaveText(/^Too many sign-in attempts; try again in 1[45] minutes$/);
  await expect(alert).not.toContainText(/wrong/i);
  await expect(page).toHaveURL(/\/login$/);
  await expect(page.getByLabel('Email')).toHaveValue(t.email);
  await expectAccessible(page);
  expect((await page.request.get('/api/v1/app/me')).status()).toBe(401);

  // The lock is the account's, not the address's: another user signs in from the same browser.
  await page.getByLabel('Email').fill(other.email);
  expect(await attempt(PASSWORD)).toBe(200);
  await expect(page).toHaveURL(new RegExp(`/projects/${other.projectId}/runs$`));
});
