/**
 * Charts as vector graphics (pdfkit paths, lines and rectangles; no raster image): the pass-rate trend by
 * day, results by day as stacked bars, and a stacked bar of runs by status. Every label is real text.
 */
import type { DayLine } from '../domain/model';
import { COLOR, type Canvas } from './canvas';
import { int, pct, shortDay } from './format';

export interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

/** A round upper bound and step for an axis from 0 to `max` with about `ticks` steps. */
export function niceScale(max: number, ticks = 4): { top: number; step: number } {
  if (!(max > 0)) return { top: ticks, step: 1 };
  const raw = max / ticks;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * magnitude).find((s) => s >= raw) ?? 10 * magnitude;
  const rounded = Math.max(1, step);
  const intStep = Number.isInteger(rounded) ? rounded : Math.ceil(rounded);
  return { top: Math.ceil(max / intStep) * intStep, step: intStep };
}

/** Labels of the x axis: at most about `max` of them, always the last day. */
function labelDays(n: number, max: number): Set<number> {
  const step = Math.max(1, Math.ceil(n / max));
  const out = new Set<number>();
  for (let i = 0; i < n; i += step) out.add(i);
  // The last day is labelled too, unless that would crowd the previous label.
  if (n > 1 && (n - 1) % step !== 0 && (n - 1) % step >= step / 2) out.add(n - 1);
  return out;
}

interface Plot {
  px: number;
  py: number;
  pw: number;
  ph: number;
  xOf(i: number): number;
}

function plotArea(c: Canvas, box: Box, n: number, yLabels: { value: number; label: string }[], yMax: number): Plot {
  const px = box.x + 40;
  const py = box.y + 8;
  const pw = box.w - 40 - 6;
  const ph = box.h - 8 - 24;
  for (const { value, label } of yLabels) {
    const gy = py + ph - (value / yMax) * ph;
    c.line(px, gy, px + pw, gy, value === 0 ? COLOR.faint : COLOR.grid, value === 0 ? 0.8 : 0.5);
    c.text(label, box.x, gy - 4, { size: 7, color: COLOR.muted, width: 34, align: 'right' });
  }
  const band = pw / Math.max(1, n);
  const xOf = (i: number) => px + (i + 0.5) * band;
  const labelled = labelDays(n, Math.max(2, Math.floor(pw / 46)));
  for (let i = 0; i < n; i++) {
    if (!labelled.has(i)) continue;
    c.line(xOf(i), py + ph, xOf(i), py + ph + 3, COLOR.faint, 0.6);
  }
  return { px, py, pw, ph, xOf };
}

function dayLabels(c: Canvas, plot: Plot, days: DayLine[]): void {
  const labelled = labelDays(days.length, Math.max(2, Math.floor(plot.pw / 46)));
  days.forEach((d, i) => {
    if (labelled.has(i))
      c.text(shortDay(d.date), plot.xOf(i) - 23, plot.py + plot.ph + 6, { size: 7, color: COLOR.muted, width: 46, align: 'center' });
  });
}

const ran = (d: DayLine) => d.stats.executions - d.stats.skipped;

/** Pass rate (0–100 %) per day as a line with points; days where no test ran leave a gap. */
export function passRateChart(c: Canvas, box: Box, days: DayLine[]): void {
  const doc = c.doc;
  const plot = plotArea(
    c,
    box,
    days.length,
    [0, 25, 50, 75, 100].map((v) => ({ value: v, label: `${v}%` })),
    100,
  );
  const yOf = (rate: number) => plot.py + plot.ph - (Math.max(0, Math.min(100, rate)) / 100) * plot.ph;
  dayLabels(c, plot, days);

  // Runs of consecutive days with results: each is one line (and a light area under it).
  const segments: { x: number; y: number }[][] = [];
  let current: { x: number; y: number }[] = [];
  days.forEach((d, i) => {
    if (ran(d) > 0) current.push({ x: plot.xOf(i), y: yOf(d.stats.passRate) });
    else if (current.length > 0) {
      segments.push(current);
      current = [];
    }
  });
  if (current.length > 0) segments.push(current);

  if (segments.length === 0) {
    c.text('No test ran in this period.', plot.px, plot.py + plot.ph / 2 - 5, {
      size: 9,
      color: COLOR.muted,
      width: plot.pw,
      align: 'center',
    });
    return;
  }
  const base = plot.py + plot.ph;
  for (const seg of segments) {
    if (seg.length > 1) {
      doc.save();
      doc.moveTo(seg[0]!.x, base);
      for (const p of seg) doc.lineTo(p.x, p.y);
      doc
        .lineTo(seg[seg.length - 1]!.x, base)
        .closePath()
        .fillOpacity(0.1)
        .fill(COLOR.accent);
      doc.restore();
      doc.save();
      doc.moveTo(seg[0]!.x, seg[0]!.y);
      for (const p of seg.slice(1)) doc.lineTo(p.x, p.y);
      doc.lineWidth(1.6).lineJoin('round').strokeColor(COLOR.accent).stroke();
      doc.restore();
    }
    for (const p of seg) doc.save().circle(p.x, p.y, 2.2).fill(COLOR.accent).restore();
  }
  // Values above the points when there is room for them.
  if (days.length <= 16) {
    days.forEach((d, i) => {
      if (ran(d) === 0) return;
      const y = yOf(d.stats.passRate);
      c.text(pct(d.stats.passRate, 1), plot.xOf(i) - 22, Math.max(box.y, y - 12), {
        size: 6.5,
        color: COLOR.text,
        width: 44,
        align: 'center',
      });
    });
  }
}

const SERIES = [
  { key: 'passed', label: 'Passed', color: COLOR.passed },
  { key: 'flaky', label: 'Flaky', color: COLOR.flaky },
  { key: 'failed', label: 'Failed', color: COLOR.failed },
  { key: 'skipped', label: 'Skipped', color: COLOR.skipped },
] as const;

/** Results per day, stacked by outcome (passed, flaky, failed, skipped), with a legend. */
export function resultsChart(c: Canvas, box: Box, days: DayLine[]): void {
  const max = Math.max(0, ...days.map((d) => d.stats.executions));
  const { top, step } = niceScale(max);
  const ticks: { value: number; label: string }[] = [];
  for (let v = 0; v <= top; v += step) ticks.push({ value: v, label: int(v) });
  const legendH = 14;
  const plot = plotArea(c, { ...box, y: box.y + legendH, h: box.h - legendH }, days.length, ticks, top);
  let lx = plot.px;
  for (const s of SERIES) lx = c.legendItem(lx, box.y, s.color, s.label);
  dayLabels(c, plot, days);
  const band = plot.pw / Math.max(1, days.length);
  const bw = Math.max(1, Math.min(22, band * 0.68));
  days.forEach((d, i) => {
    let y = plot.py + plot.ph;
    for (const s of SERIES) {
      const h = (d.stats[s.key] / top) * plot.ph;
      if (h <= 0) continue;
      y -= h;
      c.rect(plot.xOf(i) - bw / 2, y, bw, h, s.color);
    }
  });
  if (max === 0)
    c.text('No test results in this period.', plot.px, plot.py + plot.ph / 2 - 5, {
      size: 9,
      color: COLOR.muted,
      width: plot.pw,
      align: 'center',
    });
}

/** One horizontal bar split by share, with a legend of counts under it. Returns the height used. */
export function shareBar(c: Canvas, x: number, y: number, w: number, parts: { label: string; value: number; color: string }[]): number {
  const total = parts.reduce((s, p) => s + p.value, 0);
  if (total === 0) {
    c.rect(x, y, w, 12, COLOR.grid, 3);
  } else {
    let cx = x;
    for (const p of parts) {
      const pw = (p.value / total) * w;
      c.rect(cx, y, pw, 12, p.color);
      cx += pw;
    }
  }
  let lx = x;
  for (const p of parts) lx = c.legendItem(lx, y + 17, p.color, `${p.label} ${int(p.value)}`);
  return 30;
}

/** A small bar in a table cell: `fraction` (0–1) of `w` filled. */
export function cellBar(c: Canvas, x: number, y: number, w: number, fraction: number, color: string): void {
  c.rect(x, y, w, 6, COLOR.grid, 2);
  c.rect(x, y, Math.max(0, Math.min(1, fraction)) * w, 6, color, 2);
}
