/**
 * The manual-testing demo data (packages/testkit/src/demo/manual.ts) seeds a fresh tenant through the public
 * API: suites with one nested, twelve cases in both step styles, a release under way, a session, and a run of
 * the release with some verdicts. Read back over the same API.
 */
import { seedDemoManual, testAdmin, testApi, testSystem } from '@assay/testkit';

test('seedDemoManual creates suites, cases, a release, a session and a run with verdicts', async () => {
  const t = await testAdmin().tenant('member');
  await seedDemoManual(testSystem().gatewayUrl, t.token, t.projectId);
  const api = testApi(t.token);
  const P = `/${t.projectId}`;

  const suites = (await api.get(`${P}/manual-test-suites?limit=100`)).body;
  expect(suites.data.map((s: any) => s.name)).toEqual(['Authentication', 'Checkout']);
  const auth = suites.data[0];
  expect(auth.children.map((s: any) => [s.name, s.hierarchy.depth])).toEqual([['Invitations and passwords', 2]]);

  const cases = (await api.get(`${P}/manual-test-cases?limit=100`)).body;
  expect(cases.pagination.total).toBe(12);
  const styles = cases.data.map((c: any) => c.steps.type);
  expect(styles.filter((s: string) => s === 'classic').length).toBe(7);
  expect(styles.filter((s: string) => s === 'gherkin').length).toBe(5);
  expect(new Set(cases.data.map((c: any) => c.classification.priority))).toEqual(new Set(['critical', 'high', 'medium', 'low']));
  expect(cases.data.every((c: any) => c.tags.length > 0 && c.metadata.suite !== null)).toBe(true);
  const nested = cases.data.find((c: any) => c.title === 'Sign-in attempts are limited per account');
  expect(nested.steps.classic[0].subSteps).toHaveLength(2);
  const card = cases.data.find((c: any) => c.title === 'Pay with a saved card');
  expect(card.customFields).toEqual({ browser: 'Chrome, Firefox, Safari' });
  expect((await api.get(`${P}/manual-test-cases?limit=100&suiteId=${auth.children[0]._id}`)).body.pagination.total).toBe(3);

  const releases = (await api.get(`${P}/releases`)).body.data;
  expect(releases).toHaveLength(1);
  expect(releases[0]).toMatchObject({
    name: '2.4.0',
    isStarted: true,
    isCompleted: false,
    branch: 'release/2.4',
    buildTarget: { platform: 'web' },
  });

  const sessions = (await api.get(`${P}/sessions`)).body.data;
  expect(sessions).toHaveLength(1);
  expect(sessions[0]).toMatchObject({ name: 'Explore checkout on a phone', status: 'open', releaseId: releases[0]._id, estimate: 60 });
  expect(sessions[0].mission).toContain('<li>Saved cards</li>');

  const runs = (await api.get(`${P}/manual-runs`)).body.data;
  expect(runs).toHaveLength(1);
  // The active cases of Authentication and its sub-suite (7: the draft one stays out) and two checkout cases.
  expect(runs[0]).toMatchObject({ name: '2.4.0 regression', releaseId: releases[0]._id, selectionMode: 'selected', status: 'open' });
  expect(runs[0].stats).toEqual({ total: 9, untested: 5, passed: 2, failed: 1, blocked: 1, skipped: 0, retest: 0 });
  const runCases = (await api.get(`${P}/manual-runs/${runs[0]._id}/test-cases?limit=100&result=failed`)).body.data;
  expect(runCases).toHaveLength(1);
  expect(runCases[0]).toMatchObject({ elapsed: 410, testCase: { title: 'Sign-in attempts are limited per account' } });
  expect(runCases[0].stepResults.map((s: any) => [s.order, s.status])).toEqual([
    [1, 'passed'],
    [2, 'failed'],
  ]);
});
