/**
 * The report's fonts: DejaVu Sans (regular and bold) from the `dejavu-fonts-ttf` npm package, embedded in
 * every PDF (as subsets, with a ToUnicode map, so text is selectable and searchable and renders the same
 * everywhere). DejaVu covers Latin, Greek, Cyrillic and the punctuation Playwright titles use (`›`).
 * Licence: Bitstream Vera / DejaVu (free to use, embed and redistribute), shipped with the package and
 * copied to services/reports/fonts/LICENSE-DejaVu.txt.
 */
import fs from 'node:fs';
import path from 'node:path';

export const FONT_REGULAR = 'DejaVuSans';
export const FONT_BOLD = 'DejaVuSans-Bold';

export interface FontFiles {
  regular: Buffer;
  bold: Buffer;
}

let cached: FontFiles | undefined;

/** Read once per process (about 1.4 MB); pdfkit embeds only the glyphs a report uses. */
export function fontFiles(): FontFiles {
  if (!cached) {
    const dir = path.join(path.dirname(require.resolve('dejavu-fonts-ttf/package.json')), 'ttf');
    cached = {
      regular: fs.readFileSync(path.join(dir, 'DejaVuSans.ttf')),
      bold: fs.readFileSync(path.join(dir, 'DejaVuSans-Bold.ttf')),
    };
  }
  return cached;
}
