/**
 * Reads a generated PDF back with a PDF library (Mozilla's PDF.js, `pdfjs-dist`): the text of every page as a
 * reader's PDF viewer extracts it, the fonts it uses and whether each is embedded, and the document info. PDF.js
 * is ESM-only, so it runs in a child node process (`inspect-pdf.mjs`).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface PdfFont {
  loadedName: string;
  /** e.g. `CZZZZZ+DejaVuSans-Bold` (a subset prefix and the PostScript name). */
  name: string | null;
  type: string | null;
  subtype: string | null;
  embedded: boolean;
}

export interface InspectedPdf {
  pages: number;
  info: Record<string, unknown>;
  /** Text items of each page, one per line. */
  text: string[];
  /** Every page's text, joined. */
  all: string;
  fonts: PdfFont[];
}

export async function inspectPdf(pdf: Buffer): Promise<InspectedPdf> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-pdf-'));
  const file = path.join(dir, 'report.pdf');
  fs.writeFileSync(file, pdf);
  try {
    const { stdout } = await run(process.execPath, [path.join(__dirname, 'inspect-pdf.mjs'), file], { maxBuffer: 64 * 1024 * 1024 });
    const parsed = JSON.parse(stdout) as Omit<InspectedPdf, 'all'>;
    return { ...parsed, all: parsed.text.join('\n') };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The font objects of the file itself: every `/FontDescriptor` and whether it carries an embedded font program
 * (`/FontFile`, `/FontFile2` for TrueType, `/FontFile3`). pdfkit writes object dictionaries uncompressed.
 */
export function fontDescriptors(pdf: Buffer): { fontName: string; embedded: boolean }[] {
  const text = pdf.toString('latin1');
  const out: { fontName: string; embedded: boolean }[] = [];
  for (const m of text.matchAll(/<<[^<>]*\/Type \/FontDescriptor[^]*?>>/g)) {
    const dict = m[0];
    out.push({ fontName: /\/FontName \/([^\s/>]+)/.exec(dict)?.[1] ?? '', embedded: /\/FontFile[23]? \d+ 0 R/.test(dict) });
  }
  return out;
}
