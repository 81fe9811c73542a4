/**
 * The pieces of the HTML report's folder URL that need no system: its signature (artifacts/urls.ts) — its own
 * key, the run and the expiry, never interchangeable with a single artifact's — the paths below it that can be
 * a report's files, and the storage script put after an HTML file's doctype, whatever chunks it arrives in.
 */
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { insertAfterDoctype, REPORT_STORAGE_SHIM, reportBlobPath } from '../../src/artifacts/artifacts';
import { ArtifactUrls } from '../../src/artifacts/urls';

const RUN = 'a'.repeat(24);
const OTHER = 'b'.repeat(24);
const NOW = new Date('2026-03-01T12:00:00Z');
const urls = new ArtifactUrls('c'.repeat(32), 'https://assay.example.com/', 3600);

/** The `{expires}.{signature}` segment of a report URL. */
const tokenOf = (url: string) => /\/html\/[0-9a-f]{24}\/([^/]+)\/index\.html$/.exec(url)![1]!;

describe('HTML report URLs', () => {
  it('sign the run until the rounded expiry; any change of run, expiry, signature or key is invalid', () => {
    const { url, expiresAt } = urls.htmlReport(RUN, NOW);
    expect(url).toMatch(new RegExp(`^https://assay\\.example\\.com/api/v1/artifacts/html/${RUN}/\\d+\\.[\\w-]{43}/index\\.html$`));
    expect(expiresAt.getTime()).toBeGreaterThanOrEqual(NOW.getTime() + 3600_000);
    expect(expiresAt.getTime() % 300_000).toBe(0);
    const token = tokenOf(url);
    const [expires, signature] = token.split('.') as [string, string];
    expect(urls.verifyHtmlReport(RUN, token, NOW)).toBe('ok');
    expect(urls.verifyHtmlReport(RUN, token, new Date(expiresAt.getTime() - 1))).toBe('ok');
    expect(urls.verifyHtmlReport(RUN, token, expiresAt)).toBe('expired');
    expect(urls.verifyHtmlReport(OTHER, token, NOW)).toBe('invalid');
    expect(urls.verifyHtmlReport(RUN, `${Number(expires) + 300}.${signature}`, NOW)).toBe('invalid');
    expect(urls.verifyHtmlReport(RUN, `${expires}.${signature.slice(0, -1)}${signature.endsWith('A') ? 'B' : 'A'}`, NOW)).toBe('invalid');
    for (const bad of ['', '.', expires, `${expires}.`, `.${signature}`, `x${expires}.${signature}`, `${expires}.${signature}.x`])
      expect([bad, urls.verifyHtmlReport(RUN, bad, NOW)]).toEqual([bad, 'invalid']);
    expect(new ArtifactUrls('d'.repeat(32), 'https://assay.example.com', 3600).verifyHtmlReport(RUN, token, NOW)).toBe('invalid');
  });

  it('never accept a single artifact signature for a report, nor the other way round', () => {
    const single = new URL(urls.download(RUN, NOW).url);
    const expires = single.searchParams.get('expires')!;
    const signature = single.searchParams.get('signature')!;
    expect(urls.verify(RUN, expires, signature, NOW)).toBe('ok');
    expect(urls.verifyHtmlReport(RUN, `${expires}.${signature}`, NOW)).toBe('invalid');
    const [reportExpires, reportSignature] = tokenOf(urls.htmlReport(RUN, NOW).url).split('.');
    expect(urls.verify(RUN, reportExpires, reportSignature, NOW)).toBe('invalid');
  });
});

describe("paths below a report's folder", () => {
  it('are files a blob could be stored as under html/; nothing else', () => {
    expect(reportBlobPath('index.html')).toBe('html/index.html');
    expect(reportBlobPath('data/0123abcd.png')).toBe('html/data/0123abcd.png');
    expect(reportBlobPath('a/b_c/d-e.f.webm')).toBe('html/a/b_c/d-e.f.webm');
    for (const bad of [
      '',
      '/',
      '../x',
      'data/../index.html',
      './index.html',
      'data/.',
      '.hidden',
      'a//b',
      'a/',
      '%2e%2e/x',
      'a b',
      'a\\b',
      'ä.png',
      'x'.repeat(201),
    ])
      expect([bad, reportBlobPath(bad)]).toEqual([bad, null]);
    expect(reportBlobPath(Array.from({ length: 16 }, () => 'd').join('/'))).toBeNull();
  });
});

describe('the storage script of an HTML report', () => {
  const served = (chunks: (string | Buffer)[]) =>
    buffer(insertAfterDoctype(Readable.from(chunks.map((c) => (typeof c === 'string' ? Buffer.from(c) : c))), REPORT_STORAGE_SHIM));
  const shim = REPORT_STORAGE_SHIM.toString();

  it('goes right after the doctype (after a BOM, blanks and comments too), whatever the chunks', async () => {
    expect((await served(['<!DOCTYPE html>\n<html><script>x</script>'])).toString()).toBe(
      `<!DOCTYPE html>${shim}\n<html><script>x</script>`,
    );
    expect((await served(['\n\n<!-- c --><!doctype HTML>', '<h1>a</h1>'])).toString()).toBe(
      `\n\n<!-- c --><!doctype HTML>${shim}<h1>a</h1>`,
    );
    const bom = Buffer.from([0xef, 0xbb, 0xbf]);
    expect((await served([bom, '<!doctype html>x'])).equals(Buffer.concat([bom, Buffer.from(`<!doctype html>${shim}x`)]))).toBe(true);
    // One byte at a time, and a large file: the rest streams through unchanged.
    const big = `<!doctype html>${'é'.repeat(100_000)}`;
    expect((await served([...Buffer.from(big)].map((b) => Buffer.from([b])))).toString()).toBe(
      `<!doctype html>${shim}${'é'.repeat(100_000)}`,
    );
  });

  it('goes first without a doctype (or an empty file), which leaves the page as it was: no doctype, quirks mode', async () => {
    expect((await served(['<h1>report</h1>'])).toString()).toBe(`${shim}<h1>report</h1>`);
    expect((await served(['<h1>a</h1><!doctype html>'])).toString()).toBe(`${shim}<h1>a</h1><!doctype html>`);
    expect((await served([])).toString()).toBe(shim);
  });

  it('ends the stream with the error of the stored object', async () => {
    const failing = new Readable({
      read() {
        this.destroy(new Error('storage went away'));
      },
    });
    await expect(buffer(insertAfterDoctype(failing, REPORT_STORAGE_SHIM))).rejects.toThrow('storage went away');
  });
});
