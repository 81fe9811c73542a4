/**
 * Drawing primitives over a pdfkit document: the page geometry, the palette, one-line text that always fits
 * its box (cut with an ellipsis), and a cursor that starts a new page when a block would not fit. pdfkit's
 * own flowing layout is not used (its page margins are zero), so it never adds a page by itself.
 */
import { FONT_BOLD, FONT_REGULAR } from './fonts';

export const PAGE = { width: 595.28, height: 841.89 }; // A4, points
export const MARGIN = { left: 44, right: 44, top: 58, bottom: 56 };
export const CONTENT_WIDTH = PAGE.width - MARGIN.left - MARGIN.right;

export const COLOR = {
  text: '#1f2933',
  muted: '#616e7c',
  faint: '#9aa5b1',
  grid: '#e4e7eb',
  band: '#f3f5f8',
  accent: '#2f6fde',
  passed: '#2f9e5b',
  failed: '#d64545',
  flaky: '#e09b0b',
  skipped: '#a7b1bc',
  interrupted: '#8e5bd0',
  incomplete: '#7b8794',
} as const;

export interface TextStyle {
  size?: number;
  bold?: boolean;
  color?: string;
  /** Box width: the text is cut with an ellipsis to fit it. Default: up to the right margin. */
  width?: number;
  align?: 'left' | 'right' | 'center';
  characterSpacing?: number;
}

export class Canvas {
  /** Top of the next block on the current page. */
  y = MARGIN.top;

  constructor(readonly doc: PDFKit.PDFDocument) {}

  get bottom(): number {
    return PAGE.height - MARGIN.bottom;
  }

  newPage(): void {
    this.doc.addPage();
    this.y = MARGIN.top;
  }

  /** Starts a new page unless `height` points still fit below the cursor. */
  ensure(height: number): void {
    if (this.y + height > this.bottom) this.newPage();
  }

  private setFont(style: TextStyle): void {
    this.doc
      .font(style.bold ? FONT_BOLD : FONT_REGULAR)
      .fontSize(style.size ?? 9)
      .fillColor(style.color ?? COLOR.text);
  }

  /** `text` cut to fit `width` at the current font, with `…` when cut. */
  fit(text: string, width: number, characterSpacing = 0): string {
    const clean = text.replace(/\s+/g, ' ').trim();
    const w = (s: string) => this.doc.widthOfString(s, { characterSpacing });
    if (w(clean) <= width) return clean;
    let lo = 0;
    let hi = clean.length;
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      if (w(`${clean.slice(0, mid).trimEnd()}…`) <= width) lo = mid;
      else hi = mid - 1;
    }
    return `${clean.slice(0, lo).trimEnd()}…`;
  }

  /** One line of text whose top is at `y`. */
  text(text: string, x: number, y: number, style: TextStyle = {}): void {
    this.setFont(style);
    const width = style.width ?? PAGE.width - MARGIN.right - x;
    const cs = style.characterSpacing ?? 0;
    const line = this.fit(text, width, cs);
    this.doc.text(line, x, y, { width, align: style.align ?? 'left', lineBreak: false, characterSpacing: cs });
  }

  /** Width of `text` in `style`. */
  measure(text: string, style: TextStyle = {}): number {
    this.setFont(style);
    return this.doc.widthOfString(text, { characterSpacing: style.characterSpacing ?? 0 });
  }

  /** Height of `text` wrapped to `width` (for paragraphs). */
  paragraph(text: string, x: number, y: number, width: number, style: TextStyle = {}): number {
    this.setFont(style);
    const height = this.doc.heightOfString(text, { width, lineGap: 2 });
    this.doc.text(text, x, y, { width, lineGap: 2, align: style.align ?? 'left' });
    return height;
  }

  rect(x: number, y: number, w: number, h: number, color: string, radius = 0): void {
    if (w <= 0 || h <= 0) return;
    if (radius > 0) this.doc.roundedRect(x, y, w, h, Math.min(radius, w / 2, h / 2)).fill(color);
    else this.doc.rect(x, y, w, h).fill(color);
  }

  line(x1: number, y1: number, x2: number, y2: number, color: string = COLOR.grid, width = 0.6): void {
    this.doc.save().moveTo(x1, y1).lineTo(x2, y2).lineWidth(width).strokeColor(color).stroke().restore();
  }

  /** A section heading with a rule under it; keeps at least `keep` points of the section on its page. */
  section(title: string, caption?: string, keep = 90): void {
    this.ensure(34 + (caption ? 14 : 0) + keep);
    this.y += 10;
    this.text(title, MARGIN.left, this.y, { size: 13, bold: true });
    this.y += 19;
    this.line(MARGIN.left, this.y, PAGE.width - MARGIN.right, this.y, COLOR.grid, 0.8);
    this.y += 7;
    if (caption) {
      this.text(caption, MARGIN.left, this.y, { size: 8, color: COLOR.muted, width: CONTENT_WIDTH });
      this.y += 14;
    }
  }

  /** A small colour key: `■ label`. Returns the x after it. */
  legendItem(x: number, y: number, color: string, label: string): number {
    this.rect(x, y + 1.5, 7, 7, color, 1.5);
    this.text(label, x + 10, y, { size: 7.5, color: COLOR.muted, width: 200 });
    return x + 10 + this.measure(label, { size: 7.5 }) + 12;
  }
}
