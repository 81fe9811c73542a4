/**
 * A Playwright JSON report of `tests` tests (100 per spec file), for the 10,000-test checks of the web app's run
 * page (browser tests, the web benchmark, the app API's e2e test): every 50th test fails with an assertion
 * error (the same first line, so one error group), every 20th is flaky, every 25th skipped; the rest pass.
 * Titles are unique and searchable: `Feature <f> › test number <k>` in `specs/feature-<f>.spec.ts`.
 */
export interface LargeReportOptions {
  branch?: string;
  environment?: string;
}

export function largePlaywrightReport(tests: number, opts: LargeReportOptions = {}) {
  const perFile = 100;
  const start = Date.now() - 120_000;
  const suites = [];
  for (let f = 0; f * perFile < tests; f++) {
    const file = `specs/feature-${f}.spec.ts`;
    const specs = [];
    for (let i = 0; i < perFile && f * perFile + i < tests; i++) {
      const k = f * perFile + i;
      const failed = k % 50 === 7;
      const flaky = !failed && k % 20 === 3;
      const skipped = !failed && !flaky && k % 25 === 11;
      const error = {
        message: `Error: expect(received).toBe(expected)\n\nExpected: ${k}\nReceived: ${k + 1}`,
        stack: `Error: expect(received).toBe(expected)\n    at ${file}:${10 + i}:5`,
        location: { file, line: 10 + i, column: 5 },
      };
      const attempt = (status: string, retry: number, errors: unknown[]) => ({
        workerIndex: k % 4,
        status,
        duration: 100 + (k % 400),
        retry,
        startTime: new Date(start + k).toISOString(),
        errors,
        stdout: [],
        stderr: [],
        attachments: [],
        steps: [{ title: 'expect.toBe', category: 'expect', duration: 1, steps: [] }],
      });
      const results = skipped
        ? [attempt('skipped', 0, [])]
        : failed
          ? [attempt('failed', 0, [error])]
          : flaky
            ? [attempt('failed', 0, [error]), attempt('passed', 1, [])]
            : [attempt('passed', 0, [])];
      specs.push({
        title: `test number ${k}`,
        ok: !failed,
        tags: [],
        tests: [
          {
            timeout: 30000,
            annotations: [],
            expectedStatus: skipped ? 'skipped' : 'passed',
            projectId: 'chromium',
            projectName: 'chromium',
            results,
            status: skipped ? 'skipped' : failed ? 'unexpected' : flaky ? 'flaky' : 'expected',
          },
        ],
        id: `id-${k}`,
        file,
        line: 10 + i,
        column: 5,
      });
    }
    suites.push({
      title: file,
      file,
      line: 0,
      column: 0,
      specs: [],
      suites: [{ title: `Feature ${f}`, file, line: 3, column: 1, specs, suites: [] }],
    });
  }
  return {
    config: {},
    suites,
    errors: [],
    stats: { startTime: new Date(start).toISOString(), duration: 60_000, expected: 0, skipped: 0, unexpected: 0, flaky: 0 },
    metadata: {
      git: { branch: opts.branch ?? 'main', commit: { hash: 'f00dfeed', message: 'A big run', author: 'Bench' } },
      environment: opts.environment ?? 'ci',
    },
  };
}
