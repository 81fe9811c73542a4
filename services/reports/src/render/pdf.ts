/**
 * One report as a PDF (pdfkit): a cover with the project, the period, the filters and the headline figures;
 * the pass-rate trend and the results by day (vector charts); the latest runs; failing, flaky and slowest
 * tests; breakdowns by environment and branch. DejaVu Sans is embedded (subset, with ToUnicode), so every
 * word is selectable and searchable. Every page has a header (after the cover) and "Page n of N".
 */
import PDFDocument from 'pdfkit';
import type { BreakdownLine, ReportModel, RunLine, TestLine } from '../domain/model';
import { Canvas, COLOR, CONTENT_WIDTH, MARGIN, PAGE } from './canvas';
import { passRateChart, resultsChart, shareBar } from './charts';
import { fontFiles, FONT_BOLD, FONT_REGULAR } from './fonts';
import { dateTime, day, duration, int, pct, plural, shortDateTime } from './format';
import { table, type Column } from './table';

export async function renderReport(model: ReportModel): Promise<Buffer> {
  const fonts = fontFiles();
  const doc = new PDFDocument({
    size: 'A4',
    margins: { top: 0, bottom: 0, left: 0, right: 0 },
    bufferPages: true,
    autoFirstPage: true,
    lang: 'en',
    displayTitle: true,
    info: {
      Title: `Test report: ${model.project.name}, ${model.period.fromDate} to ${model.period.untilDate}`,
      Author: 'Assay',
      Subject: `Automated test results of ${model.project.name} over ${plural(model.period.days, 'day')}`,
      Keywords: 'test report, pass rate, flaky tests, failing tests',
      Creator: 'Assay reports service',
      CreationDate: model.generatedAt,
    },
  });
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  doc.registerFont(FONT_REGULAR, fonts.regular);
  doc.registerFont(FONT_BOLD, fonts.bold);

  const c = new Canvas(doc);
  cover(c, model);
  trends(c, model);
  runsSection(c, model.runs, model.totals.runs.total);
  failing(c, model.topFailing);
  flaky(c, model.topFlaky);
  slowest(c, model.slowest);
  breakdown(c, 'By environment', 'Environment', model.byEnvironment);
  breakdown(c, 'By branch', 'Branch', model.byBranch);
  pageFurniture(c, model);
  doc.end();
  return done;
}

function filterLine(m: ReportModel): string {
  const parts: string[] = [];
  if (m.filters.branch) parts.push(`Branch: ${m.filters.branch}`);
  if (m.filters.environment) parts.push(`Environment: ${m.filters.environment}`);
  if (m.filters.tags.length > 0) parts.push(`Tags: ${m.filters.tags.join(', ')}`);
  return parts.length > 0 ? parts.join(' · ') : 'All branches, environments and tags';
}

function rateColor(rate: number, ran: number): string {
  if (ran === 0) return COLOR.muted;
  if (rate >= 95) return COLOR.passed;
  if (rate >= 80) return COLOR.flaky;
  return COLOR.failed;
}

function cover(c: Canvas, m: ReportModel): void {
  const { totals } = m;
  const s = totals.stats;
  const ranCount = s.executions - s.skipped;
  c.rect(0, 0, PAGE.width, 7, COLOR.accent);
  let y = 44;
  c.text('ASSAY · TEST REPORT', MARGIN.left, y, { size: 8.5, bold: true, color: COLOR.accent, characterSpacing: 0.5 });
  y += 18;
  c.text(m.project.name, MARGIN.left, y, { size: 24, bold: true, width: CONTENT_WIDTH });
  y += 34;
  c.text(`${day(m.period.fromDate)} – ${day(m.period.untilDate)}`, MARGIN.left, y, { size: 13 });
  y += 19;
  c.text(`${plural(m.period.days, 'day')} (UTC) · ${filterLine(m)}`, MARGIN.left, y, { size: 9, color: COLOR.muted, width: CONTENT_WIDTH });
  y += 14;
  const folded = m.lastFoldedAt ? `results folded up to ${dateTime(m.lastFoldedAt)}` : 'no finished run folded yet';
  c.text(`Generated ${dateTime(m.generatedAt)} · ${folded}`, MARGIN.left, y, { size: 7.5, color: COLOR.faint, width: CONTENT_WIDTH });
  y += 22;

  // Headline figures, two rows of four tiles.
  const tiles: { label: string; value: string; sub: string; color?: string }[] = [
    {
      label: 'Pass rate',
      value: pct(s.passRate, 2),
      sub: `${int(s.passed)} of ${int(ranCount)} results that ran`,
      color: rateColor(s.passRate, ranCount),
    },
    { label: 'Runs', value: int(totals.runs.total), sub: `${int(totals.runs.passed)} passed · ${int(totals.runs.failed)} failed` },
    { label: 'Test results', value: int(s.executions), sub: `${plural(totals.tests, 'test')} in ${plural(totals.specFiles, 'spec file')}` },
    { label: 'Failed', value: int(s.failed), sub: `failure rate ${pct(s.failureRate)}`, color: s.failed > 0 ? COLOR.failed : undefined },
    { label: 'Flaky', value: int(s.flaky), sub: `flaky rate ${pct(s.flakyRate)}`, color: s.flaky > 0 ? COLOR.flaky : undefined },
    { label: 'Skipped', value: int(s.skipped), sub: `${pct(s.executions > 0 ? (s.skipped / s.executions) * 100 : 0)} of results` },
    { label: 'Average duration', value: duration(s.avgDurationMs), sub: 'per test result that ran' },
    {
      label: 'p95 duration',
      value: duration(totals.durations.p95),
      sub: `p50 ${duration(totals.durations.p50)} · max ${duration(totals.durations.max)}`,
    },
  ];
  const gap = 8;
  const tw = (CONTENT_WIDTH - 3 * gap) / 4;
  const th = 58;
  tiles.forEach((t, i) => {
    const x = MARGIN.left + (i % 4) * (tw + gap);
    const ty = y + Math.floor(i / 4) * (th + gap);
    c.rect(x, ty, tw, th, COLOR.band, 5);
    c.text(t.label.toUpperCase(), x + 9, ty + 8, { size: 6.5, bold: true, color: COLOR.muted, width: tw - 18, characterSpacing: 0.4 });
    c.text(t.value, x + 9, ty + 20, { size: 17, bold: true, color: t.color ?? COLOR.text, width: tw - 18 });
    c.text(t.sub, x + 9, ty + 43, { size: 6.5, color: COLOR.muted, width: tw - 18 });
  });
  y += 2 * th + gap + 16;

  // The same figures as a sentence, for a reader who copies them into an e-mail.
  const r = totals.runs;
  const summary =
    `${plural(r.total, 'run')} in this period: ${int(r.passed)} passed, ${int(r.failed)} failed, ${int(r.interrupted)} interrupted, ` +
    `${int(r.incomplete)} incomplete. ${plural(s.executions, 'test result')} of ${plural(totals.tests, 'test')}: ` +
    `${int(s.passed)} passed, ${int(s.failed)} failed, ${int(s.flaky)} flaky, ${int(s.skipped)} skipped; ` +
    `pass rate ${pct(s.passRate, 2)}.`;
  y += c.paragraph(summary, MARGIN.left, y, CONTENT_WIDTH, { size: 9 }) + 12;

  c.text('RUNS BY STATUS', MARGIN.left, y, { size: 6.5, bold: true, color: COLOR.muted, characterSpacing: 0.4 });
  y += 12;
  y += shareBar(c, MARGIN.left, y, CONTENT_WIDTH, [
    { label: 'Passed', value: r.passed, color: COLOR.passed },
    { label: 'Failed', value: r.failed, color: COLOR.failed },
    { label: 'Interrupted', value: r.interrupted, color: COLOR.interrupted },
    { label: 'Incomplete', value: r.incomplete, color: COLOR.incomplete },
  ]);
  c.y = y + 4;
}

function trends(c: Canvas, m: ReportModel): void {
  c.section(
    'Pass rate by day',
    'Passed results over the results that ran (skipped ones left out), per UTC day; gaps are days when no test ran.',
    156,
  );
  passRateChart(c, { x: MARGIN.left, y: c.y, w: CONTENT_WIDTH, h: 150 }, m.trend);
  c.y += 156;
  c.section('Test results by day', undefined, 156);
  resultsChart(c, { x: MARGIN.left, y: c.y, w: CONTENT_WIDTH, h: 150 }, m.trend);
  c.y += 156;
}

const STATUS_COLOR: Record<string, string> = {
  passed: COLOR.passed,
  failed: COLOR.failed,
  interrupted: COLOR.interrupted,
  incomplete: COLOR.incomplete,
  running: COLOR.accent,
};

function runsSection(c: Canvas, runs: RunLine[], total: number): void {
  const caption =
    runs.length < total
      ? `The latest ${int(runs.length)} of ${plural(total, 'run')} in the period, newest first; times in UTC.`
      : `${plural(runs.length, 'run')} in the period, newest first; times in UTC.`;
  c.section('Runs', caption);
  const columns: Column<RunLine>[] = [
    { header: 'Run', width: 34, cell: (r) => ({ text: `#${r.counter}`, bold: true }) },
    { header: 'Started', width: 60, cell: (r) => shortDateTime(r.startTime) },
    { header: 'Status', width: 52, cell: (r) => ({ text: r.status, color: STATUS_COLOR[r.status] ?? COLOR.text }) },
    { header: 'Branch', cell: (r) => ({ text: r.branch || '–', sub: r.commit ? r.commit.slice(0, 10) : undefined }) },
    { header: 'Environment', width: 62, cell: (r) => r.environment || '–' },
    { header: 'Tests', width: 32, align: 'right', cell: (r) => int(r.total) },
    { header: 'Passed', width: 36, align: 'right', cell: (r) => int(r.passed) },
    { header: 'Failed', width: 34, align: 'right', cell: (r) => ({ text: int(r.failed), color: r.failed > 0 ? COLOR.failed : undefined }) },
    { header: 'Flaky', width: 31, align: 'right', cell: (r) => ({ text: int(r.flaky), color: r.flaky > 0 ? COLOR.flaky : undefined }) },
    { header: 'Skipped', width: 38, align: 'right', cell: (r) => int(r.skipped) },
    { header: 'Duration', width: 50, align: 'right', cell: (r) => duration(r.durationMs) },
  ];
  table(c, columns, runs, { empty: 'No run started in this period.' });
}

const testCell = (t: TestLine) => ({ text: t.title, sub: [t.file, t.projectName].filter(Boolean).join(' · ') || undefined });

function failing(c: Canvas, tests: TestLine[]): void {
  c.section('Failing tests', 'Tests with the most failed results (failed, timed out or interrupted) in the period.');
  table(
    c,
    [
      { header: 'Test', cell: testCell },
      { header: 'Failures', width: 50, align: 'right', cell: (t) => ({ text: int(t.stats.failed), color: COLOR.failed, bold: true }) },
      { header: 'Results', width: 46, align: 'right', cell: (t) => int(t.stats.executions) },
      { header: 'Failure rate', width: 62, align: 'right', cell: (t) => pct(t.stats.failureRate) },
      { header: 'Last failed', width: 66, align: 'right', cell: (t) => shortDateTime(t.lastFailedAt) },
    ],
    tests,
    { empty: 'No test failed in this period.' },
  );
}

function flaky(c: Canvas, tests: TestLine[]): void {
  c.section('Flaky tests', 'Tests that passed only on a retry, most flaky results first.');
  table(
    c,
    [
      { header: 'Test', cell: testCell },
      { header: 'Flaky', width: 46, align: 'right', cell: (t) => ({ text: int(t.stats.flaky), color: COLOR.flaky, bold: true }) },
      { header: 'Results', width: 46, align: 'right', cell: (t) => int(t.stats.executions) },
      { header: 'Flaky rate', width: 56, align: 'right', cell: (t) => pct(t.stats.flakyRate) },
      { header: 'Last flaky', width: 66, align: 'right', cell: (t) => shortDateTime(t.lastFlakyAt) },
    ],
    tests,
    { empty: 'No flaky test in this period.' },
  );
}

function slowest(c: Canvas, tests: TestLine[]): void {
  c.section('Slowest tests', 'Highest 95th-percentile duration of the results that ran.');
  const max = Math.max(1, ...tests.map((t) => t.durations.p95));
  table(
    c,
    [
      { header: 'Test', cell: testCell },
      { header: 'p95', width: 52, align: 'right', cell: (t) => ({ text: duration(t.durations.p95), bold: true }) },
      { header: 'Average', width: 52, align: 'right', cell: (t) => duration(t.stats.avgDurationMs) },
      { header: 'Results', width: 44, align: 'right', cell: (t) => int(t.stats.executions) },
      { header: '', width: 80, cell: (t) => ({ text: '', bar: { fraction: t.durations.p95 / max, color: COLOR.accent } }) },
    ],
    tests,
    { empty: 'No test ran in this period.' },
  );
}

function breakdown(c: Canvas, title: string, header: string, rows: BreakdownLine[]): void {
  c.section(title, 'Runs and results per value, most runs first; the bar shows the pass rate.');
  table(
    c,
    [
      { header, cell: (b) => ({ text: b.name || '(none)', color: b.name ? undefined : COLOR.muted }) },
      { header: 'Runs', width: 40, align: 'right', cell: (b) => int(b.runs) },
      { header: 'Results', width: 46, align: 'right', cell: (b) => int(b.stats.executions) },
      { header: 'Failed', width: 40, align: 'right', cell: (b) => int(b.stats.failed) },
      { header: 'Flaky', width: 36, align: 'right', cell: (b) => int(b.stats.flaky) },
      { header: 'Pass rate', width: 50, align: 'right', cell: (b) => ({ text: pct(b.stats.passRate), bold: true }) },
      {
        header: '',
        width: 76,
        cell: (b) => ({
          text: '',
          bar: { fraction: b.stats.passRate / 100, color: rateColor(b.stats.passRate, b.stats.executions - b.stats.skipped) },
        }),
      },
    ],
    rows,
    { empty: 'No run in this period.' },
  );
}

/** Header (after the cover) and footer of every page, once the page count is known. */
function pageFurniture(c: Canvas, m: ReportModel): void {
  const range = c.doc.bufferedPageRange();
  const period = `${day(m.period.fromDate)} – ${day(m.period.untilDate)}`;
  for (let i = range.start; i < range.start + range.count; i++) {
    c.doc.switchToPage(i);
    const n = i - range.start + 1;
    if (n > 1) {
      c.text(`Test report · ${m.project.name}`, MARGIN.left, 26, { size: 7.5, color: COLOR.muted, width: CONTENT_WIDTH / 2 });
      c.text(period, MARGIN.left + CONTENT_WIDTH / 2, 26, { size: 7.5, color: COLOR.muted, width: CONTENT_WIDTH / 2, align: 'right' });
      c.line(MARGIN.left, 39, PAGE.width - MARGIN.right, 39, COLOR.grid, 0.6);
    }
    const fy = PAGE.height - 36;
    c.line(MARGIN.left, fy - 6, PAGE.width - MARGIN.right, fy - 6, COLOR.grid, 0.6);
    c.text(`Assay · ${m.project.name} · ${period}`, MARGIN.left, fy, { size: 7, color: COLOR.faint, width: CONTENT_WIDTH * 0.7 });
    c.text(`Page ${n} of ${range.count}`, MARGIN.left + CONTENT_WIDTH * 0.7, fy, {
      size: 7,
      color: COLOR.faint,
      width: CONTENT_WIDTH * 0.3,
      align: 'right',
    });
  }
}
