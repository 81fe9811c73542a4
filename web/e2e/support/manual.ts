/** Manual-testing data that browser tests arrange through the API, as a team's script would send it. */
import { api, created } from './fixtures';

/**
 * A suite named Regression holding `count` test cases titled `Case 01`, `Case 02`, … (numbers padded to `digits`),
 * one POST a case: the API has no bulk create. Returns the suite.
 */
export async function manualCases(
  t: { token: string; projectId: string },
  count: number,
  digits = 2,
): Promise<{ _id: string; name: string }> {
  const a = api(t.token);
  const suite = await created(a.post(`/${t.projectId}/manual-test-suites`, { name: 'Regression' }));
  for (let n = 1; n <= count; n++) {
    const title = `Case ${String(n).padStart(digits, '0')}`;
    await created(a.post(`/${t.projectId}/manual-test-cases`, { title, suiteId: suite._id }));
  }
  return suite;
}
