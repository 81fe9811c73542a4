// Reads a PDF with Mozilla's PDF.js (pdfjs-dist, ESM only, hence a separate node process) and prints JSON:
// {pages, info, text: [one string per page], fonts: [{name, loadedName, type, embedded}]}.
// Usage: node inspect-pdf.mjs file.pdf
import fs from 'node:fs';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';

const data = new Uint8Array(fs.readFileSync(process.argv[2]));
const doc = await getDocument({ data, disableFontFace: true, fontExtraProperties: true, isEvalSupported: false, verbosity: 0 }).promise;
const meta = await doc.getMetadata();
const text = [];
const fonts = new Map();
for (let i = 1; i <= doc.numPages; i++) {
  const page = await doc.getPage(i);
  const content = await page.getTextContent();
  text.push(content.items.map((item) => ('str' in item ? item.str : '')).join('\n'));
  // Loading the operator list makes PDF.js load (and describe) every font the page uses.
  await page.getOperatorList();
  for (const loadedName of Object.keys(content.styles)) {
    if (fonts.has(loadedName)) continue;
    const font = page.commonObjs.has(loadedName) ? page.commonObjs.get(loadedName) : undefined;
    fonts.set(loadedName, {
      loadedName,
      name: font?.name ?? null,
      type: font?.type ?? null,
      subtype: font?.subtype ?? null,
      embedded: font ? !font.missingFile : false,
    });
  }
}
process.stdout.write(JSON.stringify({ pages: doc.numPages, info: meta.info, text, fonts: [...fonts.values()] }));
await doc.destroy();
