/** Tables that break across pages (the header row repeats on each page they continue on). */
import { COLOR, CONTENT_WIDTH, MARGIN, type Canvas } from './canvas';
import { cellBar } from './charts';

export interface Cell {
  text: string;
  /** A second, muted line under the text (e.g. the spec file of a test). */
  sub?: string;
  color?: string;
  bold?: boolean;
  /** Draw a small bar (0–1) instead of text. */
  bar?: { fraction: number; color: string };
}

export interface Column<R> {
  header: string;
  /** Points; one column may leave it out and take the rest of the width. */
  width?: number;
  align?: 'left' | 'right' | 'center';
  cell(row: R): Cell | string;
}

const HEADER_H = 17;
const PAD = 3;

export function table<R>(c: Canvas, columns: Column<R>[], rows: R[], opts: { empty: string }): void {
  if (rows.length === 0) {
    c.ensure(20);
    c.text(opts.empty, MARGIN.left, c.y + 2, { size: 8.5, color: COLOR.muted });
    c.y += 20;
    return;
  }
  const fixed = columns.reduce((s, col) => s + (col.width ?? 0), 0);
  const flexible = columns.filter((col) => col.width === undefined).length;
  const widths = columns.map((col) => col.width ?? Math.max(40, (CONTENT_WIDTH - fixed) / Math.max(1, flexible)));
  const xs: number[] = [];
  widths.reduce((x, w) => (xs.push(x), x + w), MARGIN.left);
  const cells = rows.map((r) => columns.map((col) => normal(col.cell(r))));
  const twoLines = cells.some((row) => row.some((cell) => cell.sub));
  const rowH = twoLines ? 25 : 16;

  const header = () => {
    c.rect(MARGIN.left, c.y, CONTENT_WIDTH, HEADER_H, COLOR.band);
    columns.forEach((col, i) => {
      c.text(col.header.toUpperCase(), xs[i]! + PAD, c.y + 5, {
        size: 6.2,
        bold: true,
        color: COLOR.muted,
        width: widths[i]! - 2 * PAD,
        align: col.align ?? 'left',
        characterSpacing: 0.1,
      });
    });
    c.y += HEADER_H;
  };

  c.ensure(HEADER_H + rowH);
  header();
  cells.forEach((row, r) => {
    if (c.y + rowH > c.bottom) {
      c.newPage();
      header();
    }
    if (r % 2 === 1) c.rect(MARGIN.left, c.y, CONTENT_WIDTH, rowH, '#fafbfc');
    row.forEach((cell, i) => {
      const x = xs[i]! + PAD;
      const w = widths[i]! - 2 * PAD;
      const top = c.y + (twoLines ? 4 : 4);
      if (cell.bar) {
        cellBar(c, x, c.y + rowH / 2 - 3, w, cell.bar.fraction, cell.bar.color);
        return;
      }
      c.text(cell.text, x, top, {
        size: 8,
        color: cell.color ?? COLOR.text,
        bold: cell.bold,
        width: w,
        align: columns[i]!.align ?? 'left',
      });
      if (cell.sub) c.text(cell.sub, x, top + 11, { size: 6.5, color: COLOR.muted, width: w, align: columns[i]!.align ?? 'left' });
    });
    c.y += rowH;
    c.line(MARGIN.left, c.y, MARGIN.left + CONTENT_WIDTH, c.y, COLOR.grid, 0.4);
  });
  c.y += 6;
}

function normal(cell: Cell | string): Cell {
  return typeof cell === 'string' ? { text: cell } : cell;
}
