/**
 * What every browser test starts from: `baseURL` is the test system's gateway; `tenant(role)` makes a fresh
 * organization, project and user (through the admin RPC, as the admin CLI does); `signIn(page, user)` opens a
 * one-time sign-in link for that user, the way `make up`'s link works; `expectAccessible(page)` runs axe-core.
 */
import { test as base, expect, type Page } from '@playwright/test';
import AxeBuilder from '@axe-core/playwright';
import { testAdmin, testApi, testSystem, type ApiResponse, type RoleName, type Tenant } from '@assay/testkit';

export { expect };

export interface Fixtures {
  /** A new organization with one project and one user of `role` (default owner), with an API token. */
  tenant: (role?: RoleName) => Promise<Tenant>;
  /** Signs `userId` in on `page` and waits until the app has left the sign-in page. */
  signIn: (page: Page, userId: string) => Promise<void>;
}

export const test = base.extend<Fixtures>({
  baseURL: async ({}, use) => use(testSystem().gatewayUrl),
  tenant: async ({}, use) => use((role = 'owner') => testAdmin().tenant(role)),
  signIn: async ({}, use) =>
    use(async (page, userId) => {
      const link = await testAdmin().rpc.createSignInLink({ userId });
      await page.goto(link.url);
      await expect(page).not.toHaveURL(/\/sign-in/);
    }),
});

/** The value beside a label of a detail page's list (`<dt>label</dt><dd>value</dd>`). */
export const detail = (page: Page, label: string) =>
  page.locator('dl div', { has: page.locator('dt', { hasText: new RegExp(`^${label}$`) }) }).locator('dd');

/** An API client for the test system (bearer token), for arranging data the way a CI job would send it. */
export const api = (token: string) => testApi(token);

/** The `data` of a 201 answer (the testkit's client leaves bodies untyped). */
export async function created(res: Promise<ApiResponse>): Promise<ApiResponse['body']> {
  const r = await res;
  expect(r.status, r.text).toBe(201);
  return r.body.data;
}

/** No serious or critical axe-core violation (WCAG 2.x A and AA rules) on what the page shows now. */
export async function expectAccessible(page: Page): Promise<void> {
  const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  const bad = results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id}: ${v.help} — ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  expect(bad, `accessibility violations on ${page.url()}`).toEqual([]);
}
