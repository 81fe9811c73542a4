/**
 * Case numbers under concurrency: 50 creates in parallel in one project get 50 distinct, gap-free `TC-n`
 * (1…50), and numbers are never reused.
 */
import { makeCase, makeSuite, newProject } from './support/manual-testing';

it('50 parallel creates in one project yield TC-1 … TC-50, each once', async () => {
  const p = await newProject('owner');
  await makeSuite(p, { name: 'S' });
  // Five writers (ten creates each) keep every token far below its write rate limit.
  const writers = await Promise.all(Array.from({ length: 5 }, () => p.writer()));
  const created = await Promise.all(
    Array.from({ length: 50 }, (_, i) => makeCase(p, { title: `parallel ${i}`, suiteName: 'S' }, writers[i % writers.length])),
  );
  const numbers = created.map((c) => Number(/^TC-(\d+)$/.exec(c.caseId)![1])).sort((a, b) => a - b);
  expect(numbers).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
  expect(new Set(created.map((c) => c._id)).size).toBe(50);

  // Every number reads back as exactly the case that got it.
  const list = await p.api.get(`${p.P}/manual-test-cases?limit=100`);
  expect(list.body.pagination.total).toBe(50);
  const byNumber = new Map(list.body.data.map((c: any) => [c.caseId, c._id]));
  for (const c of created) expect(byNumber.get(c.caseId)).toBe(c._id);

  // The next case continues the sequence: nothing was skipped or handed out twice.
  expect((await makeCase(p, { title: 'after', suiteName: 'S' })).caseId).toBe('TC-51');
});
