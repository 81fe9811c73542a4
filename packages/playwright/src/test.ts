/**
 * `@assay/playwright/test`: Playwright's `test` with one automatic fixture that skips, before they run, the tests
 * that active Assay `skip` rules name (a reporter cannot change tests, a fixture can). Use it instead of
 * `@playwright/test` in the spec files (everything else is re-exported):
 *
 *   import { test, expect } from '@assay/playwright/test';
 *
 * Each worker fetches the skip list once (ASSAY_URL, ASSAY_TOKEN, ASSAY_PROJECT_ID; the reporter sets them for
 * its workers from its options). Without them, or when Assay cannot be reached, nothing is skipped and a
 * warning is printed once per worker: the tests run as they would without Assay.
 */
import path from 'node:path';
import {
  test as base,
  type PlaywrightTestArgs,
  type PlaywrightTestOptions,
  type PlaywrightWorkerArgs,
  type PlaywrightWorkerOptions,
  type TestType,
} from '@playwright/test';
import { fetchSkipList, skipRuleFor, type SkipList } from './rules.ts';
import { clientFor, describeError, projectIdOf, resolveConnection } from './settings.ts';

export * from '@playwright/test';

async function loadSkipList(): Promise<SkipList | undefined> {
  if (process.env.ASSAY_DISABLED === '1' || process.env.ASSAY_SKIP_RULES === '0') return undefined;
  const c = resolveConnection({ maxRetries: 1, requestTimeoutMs: 10_000 });
  if ('missing' in c) return undefined;
  try {
    const client = clientFor(c);
    return await fetchSkipList(client, await projectIdOf(client, c), c.requestTimeoutMs);
  } catch (err) {
    process.stderr.write(`[assay] could not fetch the skip list, running every test: ${describeError(err)}\n`);
    return undefined;
  }
}

/** The fixtures this `test` adds: `assaySkipRules` (automatic) and the worker's `assaySkipList`. */
export interface AssayTestFixtures {
  assaySkipRules: void;
}
export interface AssayWorkerFixtures {
  assaySkipList: SkipList | undefined;
}

export const test: TestType<
  PlaywrightTestArgs & PlaywrightTestOptions & AssayTestFixtures,
  PlaywrightWorkerArgs & PlaywrightWorkerOptions & AssayWorkerFixtures
> = base.extend<AssayTestFixtures, AssayWorkerFixtures>({
  assaySkipList: [
    // eslint-disable-next-line no-empty-pattern -- Playwright reads the fixture's dependencies from this argument
    async ({}, use) => {
      await use(await loadSkipList());
    },
    { scope: 'worker' },
  ],
  assaySkipRules: [
    async ({ assaySkipList }, use, testInfo) => {
      if (assaySkipList) {
        const rule = skipRuleFor(assaySkipList, {
          file: path.relative(testInfo.config.rootDir, testInfo.file).split(path.sep).join('/'),
          titlePath: testInfo.titlePath.slice(1),
          projectName: testInfo.project.name,
          tags: testInfo.tags,
        });
        if (rule) testInfo.skip(true, `Assay skip rule "${rule.name}"`);
      }
      await use();
    },
    { auto: true },
  ],
});
