/**
 * For the specs that open pages from edited URLs (url-input, url-rewrite): what a page must never do, watched, and
 * one project with something on every page that reads its query.
 */
import type { Page } from '@playwright/test';
import { largePlaywrightReport } from '@assay/testkit';
import { api, created, expect } from './fixtures';
import { folded, ingestInto } from './ingest';

/** Watches a page for what a person should never get: a refused read, a console error, an uncaught exception. */
export function watch(page: Page) {
  const problems: string[] = [];
  let apiRequests = 0;
  page.on('request', (r) => {
    if (new URL(r.url()).pathname.startsWith('/api/')) apiRequests++;
  });
  page.on('response', (r) => {
    const u = new URL(r.url());
    if (u.pathname.startsWith('/api/') && r.request().method() === 'GET' && r.status() >= 400 && r.status() < 500)
      problems.push(`${r.status()} ${u.pathname}${u.search.slice(0, 200)}`);
  });
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text().slice(0, 300)}`);
  });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message.slice(0, 300)}`));
  return { problems, requests: () => apiRequests };
}

/** A run of three tests, a test's history, a suite with a case, a manual run, a release, a session, a webhook. */
export async function arrange(t: { token: string; projectId: string }) {
  const a = api(t.token);
  const P = `/${t.projectId}`;
  const res = await ingestInto(t)('/playwright', largePlaywrightReport(3));
  expect(res.status, res.text).toBe(201);
  const run: string = res.body.data.runId;
  const spec = (await a.get(`${P}/test-runs/${run}?include=specs`)).body.data.specs[0];
  const history: string = (await a.get(`${P}/debug-bundle?caseId=${spec.tests[0].caseId}`)).body.data.links.history;
  const suite = await created(a.post(`${P}/manual-test-suites`, { name: 'Checkout' }));
  await created(a.post(`${P}/manual-test-cases`, { title: 'Pay by invoice', suiteId: suite._id }));
  const manualRun = await created(a.post(`${P}/manual-runs`, { name: 'Regression', selectionMode: 'selected', suiteIds: [suite._id] }));
  await created(a.post(`${P}/releases`, { name: '1.0.0' }));
  await created(a.post(`${P}/sessions`, { name: 'Tour the invoices' }));
  const webhook = await created(a.post(`${P}/webhooks`, { url: 'https://hooks.example.com/assay', events: ['RUN_FINISHED'] }));
  await folded(t, 1, 30);
  return { run, test: history.split('/').pop()!, manualRun: manualRun._id as string, webhook: webhook._id as string };
}
