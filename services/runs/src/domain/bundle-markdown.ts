/**
 * A debug bundle (CONTRACT §9) rendered as Markdown: what `format=md` answers. Every text a report brought in
 * (titles, file names, commit messages, error lines, step titles) is ingested data, so it goes through `md()` on
 * one line (no heading, list or link can be injected) or inside a fence it cannot close.
 */
import type { BundleJson, BundleLinks, StepJson, TestBundleJson } from '@assay/contracts/runs/debug-bundle';
import type { TestCaseJson, TestRunJson } from '@assay/contracts/runs/test-runs';

const fence = (s: string) => `\`\`\`\n${s.replace(/```/g, '`\u200b``')}\n\`\`\``;
/** Ingested text as inline Markdown: on one line, with every character that could start markup escaped. */
export const md = (s: string | undefined | null) =>
  String(s ?? '')
    .replace(/\s*[\r\n]+\s*/g, ' ')
    .replace(/[\\`*_{}[\]()<>#+\-!|~]/g, '\\$&');
const firstLine = (s: string | undefined) => md(String(s).split('\n')[0]);

function stepsMd(steps: StepJson[], depth = 0): string[] {
  return steps.flatMap((s) => [
    `${'  '.repeat(depth)}- ${s.error ? '✗' : '✓'} ${md(s.title)} (${s.duration} ms)${s.error ? ` — ${firstLine(s.error.message)}` : ''}`,
    ...stepsMd(s.steps ?? [], depth + 1),
  ]);
}

function runHeader(run: TestRunJson): string[] {
  const c = run.metadata.git.commit;
  return [
    `- Run: #${run.counter} (${run.status}) — ${run.url}`,
    `- Branch: ${md(run.metadata.git.branch) || '—'}; environment: ${md(run.metadata.git.environment) || '—'}`,
    `- Commit: ${md(c.hash) || '—'}${c.message ? ` "${md(c.message)}"` : ''}${c.author ? ` by ${md(c.author)}` : ''}`,
    `- Tests: ${run.testStats.total} total, ${run.testStats.passed} passed, ${run.testStats.failed} failed, ${run.testStats.flaky} flaky, ${run.testStats.skipped} skipped`,
  ];
}

function testsMd(tests: TestCaseJson[]): string[] {
  return tests.length === 0
    ? ['None.']
    : tests.map(
        (t) =>
          `- **${md(t.fullTitle)}** (${md(t.file)}${t.projectName ? `, ${md(t.projectName)}` : ''}) — ${t.status}${t.error ? `: ${firstLine(t.error.message)}` : ''} — ${t.url}`,
      );
}

const linksMd = (links: BundleLinks) => Object.entries(links).map(([k, v]) => `- ${k}: ${v}`);

function testBundleMd(b: TestBundleJson): string[] {
  const out = [
    `# Debug bundle: ${md(b.test.fullTitle)}`,
    '',
    `- File: ${md(b.test.file)}${b.test.location ? `:${b.test.location.line}` : ''}`,
  ];
  out.push(`- Status: ${b.test.status}; attempts: ${b.test.attempts}`, ...runHeader(b.run), '', '## Error', '');
  out.push(b.error ? fence([b.error.message, b.error.snippet, b.error.stack].filter(Boolean).join('\n\n')) : 'No error recorded.');
  out.push('', '## Steps', '', ...(b.steps.length ? stepsMd(b.steps) : ['No steps recorded.']));
  out.push(
    '',
    '## Attempts',
    '',
    ...b.attempts.map(
      (a) => `- Attempt ${a.retry + 1}: ${a.status} (${a.duration} ms)${a.error ? ` — ${firstLine(a.error.message)}` : ''}`,
    ),
  );
  const w = b.failureWindow;
  out.push('', '## Failure window', '', `- Branch: ${md(w.branch) || '—'}`);
  out.push(
    `- Last passing: ${w.lastPassing ? `run #${w.lastPassing.runCounter} at ${w.lastPassing.at}, commit ${md(w.lastPassing.commit.hash) || '—'}` : 'none on record'}`,
  );
  out.push(
    `- First failing: ${w.firstFailing ? `run #${w.firstFailing.runCounter} at ${w.firstFailing.at}, commit ${md(w.firstFailing.commit.hash) || '—'}` : 'none'}`,
  );
  out.push(
    '',
    '## Artifacts',
    '',
    ...(b.artifacts.length
      ? b.artifacts.map((a) =>
          a.artifact
            ? `- [${md(a.name)}](<${a.artifact.url}>) (${md(a.contentType)}, ${a.artifact.size} bytes, retry ${a.retry})`
            : `- ${md(a.name)} (${md(a.contentType)})${a.path ? `: ${md(a.path)}` : ''} (not uploaded)`,
        )
      : ['None.']),
  );
  out.push(
    '',
    '## Trace',
    '',
    !b.trace
      ? 'No trace recorded.'
      : b.trace.viewerUrl
        ? `- [Open in the trace viewer](<${b.trace.viewerUrl}>) · [download](<${b.trace.url}>)`
        : `- ${md(b.trace.path ?? b.trace.name)} (not uploaded)`,
  );
  out.push('', '## Links', '', ...linksMd(b.links));
  out.push('', '## Retry', '', fence(b.retryCommand));
  return out;
}

export function bundleMarkdown(b: BundleJson): string {
  let out: string[];
  if (b.scope === 'test') out = testBundleMd(b);
  else if (b.scope === 'suite') {
    out = [`# Debug bundle: ${md(b.suite.file)}`, '', ...runHeader(b.run), '', '## Failing tests', '', ...testsMd(b.failingTests)];
    out.push('', '## Flaky tests', '', ...testsMd(b.flakyTests), '', '## Links', '', ...linksMd(b.links));
  } else {
    out = [`# Debug bundle: run #${b.run.counter}`, '', ...runHeader(b.run), '', '## Failing suites', ''];
    out.push(...(b.failingSuites.length ? b.failingSuites.map((s) => `- ${md(s.file)}: ${s.failed} failed, ${s.flaky} flaky`) : ['None.']));
    out.push('', '## Failing tests', '', ...testsMd(b.failingTests), '', '## Links', '', ...linksMd(b.links));
  }
  return `${out.join('\n')}\n`;
}
