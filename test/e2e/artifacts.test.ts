/**
 * Artifacts end to end, with both storage adapters: the shared test system stores them on the filesystem, a
 * private system in a real S3-compatible server (versitygw, started by the harness). A real Playwright run in
 * Chromium (screenshot, video and trace on) is uploaded through the ingestion API and by the real `tdpw` CLI
 * with its upload flags; every attachment is then listed by the reads and downloads byte-identical (SHA-256),
 * with the headers that make serving it safe. Limits (per file, per run), expiry and project scoping are
 * checked on the way.
 */
import { execFile } from 'node:child_process';
import { createHash, createHmac, hkdfSync } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import {
  adminCli,
  Api,
  Admin,
  startPrivateSystem,
  startS3Server,
  testAdmin,
  testApi,
  testSystem,
  type PrivateSystem,
  type S3Server,
  type Tenant,
} from '@assay/testkit';
import { realBrowserRun, statsFromReport, type BrowserRun } from './support/playwright';

jest.setTimeout(240000);
const run = promisify(execFile);
const REPO = path.resolve(__dirname, '..', '..');
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** The admin CLI against the private (S3) system. */
const cli = (...args: string[]) => adminCli(priv.system, args);

/**
 * Bytes of the files under a folder (what the S3 server really holds on disk). Counted while the sweeper deletes:
 * an entry gone between the listing and its look counts as nothing.
 */
function folderBytes(dir: string): number {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw err;
  }
  return entries.reduce(
    (n, e) =>
      n +
      (e.isDirectory() ? folderBytes(path.join(dir, e.name)) : (fs.statSync(path.join(dir, e.name), { throwIfNoEntry: false })?.size ?? 0)),
    0,
  );
}

interface Target {
  name: string;
  /** Where the store keeps a project's objects as files (the filesystem adapter's folder, versitygw's bucket folder). */
  objectsDir: (projectId: string) => string;
  gatewayUrl: string;
  admin: () => Admin;
  api: (token?: string) => Api;
  runsCredential: () => string;
}

let s3: S3Server;
let priv: PrivateSystem;
let pw: BrowserRun;

const SMALL_RUN_LIMIT = 1536 * 1024;
// Above Playwright's HTML report page (~0.5 MB), which tdpw uploads as one file.
const SMALL_FILE_LIMIT = 1024 * 1024;

beforeAll(async () => {
  [pw, s3] = await Promise.all([realBrowserRun(), startS3Server()]);
  priv = await startPrivateSystem({
    name: 'artifacts-s3',
    envFor: {
      runs: {
        ...s3.env,
        ARTIFACT_MAX_RUN_BYTES: String(SMALL_RUN_LIMIT),
        ARTIFACT_MAX_FILE_BYTES: String(SMALL_FILE_LIMIT),
        ARTIFACT_SWEEP_INTERVAL_MS: '300',
      },
      gateway: { ARTIFACT_MAX_FILE_BYTES: String(SMALL_FILE_LIMIT) },
    },
  });
});
afterAll(async () => {
  await priv?.stop();
  await s3?.stop();
});

const targets: Target[] = [
  {
    name: 'filesystem storage',
    objectsDir: (p) => path.join(testSystem().logDir, 'artifacts', 'projects', p, 'artifacts'),
    gatewayUrl: '',
    admin: () => testAdmin(),
    api: (t) => testApi(t),
    runsCredential: () => testSystem().credentials.runs!,
  },
  {
    name: 'S3 storage (versitygw)',
    objectsDir: (p) => path.join(s3.dir, s3.bucket, 'projects', p, 'artifacts'),
    gatewayUrl: '',
    admin: () => priv.admin,
    api: (t) => priv.api(t),
    runsCredential: () => priv.system.credentials.runs!,
  },
];

async function fetchBytes(url: string, init?: RequestInit) {
  const res = await fetch(url, init);
  return { res, body: Buffer.from(await res.arrayBuffer()) };
}

/** Ingests the real run's JSON report into the project; answers the run id. */
async function ingestRun(api: Api, projectId: string): Promise<string> {
  const res = await api.request('POST', `/api/v1/ingest/${projectId}/playwright`, {
    rawBody: fs.readFileSync(pw.jsonPath),
    headers: { 'content-type': 'application/json' },
  });
  expect(res.status).toBe(201);
  return res.body.data.runId as string;
}

/** Uploads one attachment's file through the ingestion API. */
function uploadAttachment(
  api: Api,
  projectId: string,
  runId: string,
  a: BrowserRun['attachments'][number],
  body: Buffer | string,
  extra: Record<string, string> = {},
) {
  const q = new URLSearchParams({ file: a.file, projectName: a.projectName, retry: String(a.retry), name: a.name, path: a.path, ...extra });
  for (const t of a.titlePath) q.append('titlePath', t);
  return api.request('POST', `/api/v1/ingest/${projectId}/runs/${runId}/artifacts?${q}`, {
    rawBody: typeof body === 'string' ? body : body,
    headers: { 'content-type': 'application/octet-stream' },
  });
}

/**
 * What `tdpw upload --upload-html` does, by hand: an upload container, `files` PUT into it, then a report whose one
 * attachment names one of them (which links the upload, and its other files, to the run). Answers the run id.
 */
async function uploadReportFolder(api: Api, uploadKey: string, files: Record<string, { type: string; body: Buffer }>): Promise<string> {
  const container = await api.request('POST', '/api/storage/token', { body: {}, headers: { 'x-api-key': uploadKey }, authorization: null });
  expect(container.status).toBe(200);
  const d = container.body.data;
  for (const [file, { type, body }] of Object.entries({ ...files, 'json/attachments/shot.png': files['html/data/a.png']! })) {
    const res = await fetch(`${d.containerUrl}/${d.blobPath}/${file}?${d.sasToken}`, {
      method: 'PUT',
      headers: { 'x-ms-blob-type': 'BlockBlob', 'content-type': type },
      body: new Uint8Array(body),
    });
    expect(res.status).toBe(201);
  }
  const report = JSON.parse(JSON.stringify(pw.json));
  const walk = (suite: any) => {
    for (const spec of suite.specs ?? []) for (const t of spec.tests) for (const r of t.results) r.attachments = [];
    for (const child of suite.suites ?? []) walk(child);
  };
  for (const suite of report.suites) walk(suite);
  report.suites[0].suites[0].specs[0].tests[0].results[0].attachments = [
    { name: 'screenshot', contentType: 'image/png', path: `${d.containerUrl}/${d.blobPath}/json/attachments/shot.png` },
  ];
  const posted = await api.request('POST', '/api/reports/playwright', {
    rawBody: JSON.stringify(report),
    headers: { 'content-type': 'application/json', 'x-api-key': uploadKey },
    authorization: null,
  });
  expect(posted.body.success).toBe(true);
  return posted.body.data.testRunId as string;
}

/** A GET whose path goes out exactly as written (fetch would resolve `..` and `.` first). */
function rawGet(url: string, rawPath: string): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = http.get({ host: hostname, port, path: rawPath }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
  });
}

/** The served HTML minus the storage script the report URL puts after its doctype (everything else as stored). */
function withoutStorageShim(served: Buffer): Buffer {
  const start = served.indexOf('<script>/* Assay: in-memory Web Storage');
  expect(start).toBeGreaterThanOrEqual(0);
  const end = served.indexOf('</script>', start) + '</script>'.length;
  return Buffer.concat([served.subarray(0, start), served.subarray(end)]);
}

/** Every attachment of the run as the test-case detail lists it, by its path in the report. */
async function listedAttachments(api: Api, projectId: string, runId: string) {
  const cases = (await api.get(`/api/v1/public/${projectId}/test-runs/${runId}/test-cases?limit=100`)).body.data;
  const out = new Map<string, any>();
  for (const c of cases) {
    const detail = (await api.get(`/api/v1/public/${projectId}/test-cases/${c.id ?? c.caseId}`)).body.data;
    for (const a of detail.overview.attachments) out.set(a.path, { ...a, caseId: detail.id });
  }
  return out;
}

describe.each(targets)('artifacts with $name', (target) => {
  let t: Tenant;
  let runId: string;

  beforeAll(async () => {
    t = await target.admin().tenant('owner');
  });

  it('uploads every attachment of a real Playwright run through the ingestion API; the reads list them; downloads are byte-identical', async () => {
    const api = target.api(t.token);
    runId = await ingestRun(api, t.projectId);
    expect(pw.attachments.map((a) => a.name).sort()).toEqual(expect.arrayContaining(['screenshot', 'trace', 'video']));

    for (const a of pw.attachments) {
      const bytes = fs.readFileSync(a.path);
      const res = await uploadAttachment(api, t.projectId, runId, a, bytes);
      expect(res.status).toBe(201);
      expect(res.body.data).toMatchObject({ name: a.name, contentType: a.contentType, size: bytes.length, sha256: sha(bytes) });
    }

    const listed = await listedAttachments(api, t.projectId, runId);
    expect(listed.size).toBe(pw.attachments.length);
    for (const a of pw.attachments) {
      const item = listed.get(a.path);
      expect(item.artifact).toMatchObject({ name: a.name, contentType: a.contentType, sha256: sha(fs.readFileSync(a.path)) });
      // The signed URL needs no token.
      const { res, body } = await fetchBytes(item.artifact.url);
      expect(res.status).toBe(200);
      expect(sha(body)).toBe(sha(fs.readFileSync(a.path)));
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('content-security-policy')).toMatch(/^sandbox/);
      const inline = a.contentType.startsWith('image/') || a.contentType.startsWith('video/');
      expect(res.headers.get('content-disposition')).toMatch(inline ? /^inline; filename="/ : /^attachment; filename="/);
      expect(res.headers.get('content-type')).toBe(a.contentType);
    }

    // The debug bundle names the stored trace and opens it in the app's trace viewer.
    const failing = pw.attachments.find((a) => a.name === 'trace' && a.titlePath.includes('shows the discount'))!;
    const bundle = (await api.get(`/api/v1/public/${t.projectId}/debug-bundle?caseId=${listed.get(failing.path).caseId}`)).body.data;
    expect(bundle.trace.url).toBe(listed.get(failing.path).artifact.url);
    expect(bundle.trace.viewerUrl).toMatch(/\/trace\/index\.html\?trace=/);
    expect(decodeURIComponent(bundle.trace.viewerUrl.split('trace=')[1])).toBe(bundle.trace.url);
    expect(bundle.artifacts.every((a: any) => a.artifact && a.artifact.size > 0)).toBe(true);
    const md = await api.request('GET', `/api/v1/public/${t.projectId}/debug-bundle?caseId=${listed.get(failing.path).caseId}&format=md`);
    expect(md.text).toContain('[Open in the trace viewer](<');

    // The run detail lists them with the stored total.
    const detail = (await api.get(`/api/v1/public/${t.projectId}/test-runs/${runId}?include=artifacts`)).body.data;
    const total = pw.attachments.reduce((n, a) => n + fs.statSync(a.path).size, 0);
    expect(detail.artifacts.storedBytes).toBe(total);
    expect(detail.artifacts.items.filter((i: any) => i.artifact).length).toBe(pw.attachments.length);
  });

  it('replaces an attachment uploaded again: same artifact, new bytes, the run total counts it once', async () => {
    const api = target.api(t.token);
    const shot = pw.attachments.find((a) => a.name === 'screenshot')!;
    const original = fs.readFileSync(shot.path);
    const before = (await api.get(`/api/v1/public/${t.projectId}/test-runs/${runId}?include=artifacts`)).body.data.artifacts.storedBytes;
    const first = (await listedAttachments(api, t.projectId, runId)).get(shot.path).artifact;
    const other = Buffer.concat([original, Buffer.from('-edited')]);
    const again = await uploadAttachment(api, t.projectId, runId, shot, other);
    expect(again.status).toBe(201);
    expect(again.body.data).toMatchObject({ id: first.id, size: other.length, sha256: sha(other) });
    expect(sha((await fetchBytes(again.body.data.url)).body)).toBe(sha(other));
    const after = (await api.get(`/api/v1/public/${t.projectId}/test-runs/${runId}?include=artifacts`)).body.data.artifacts.storedBytes;
    expect(after - before).toBe(other.length - original.length);
    // Back to the original bytes for the tests below; the replaced objects are gone from the store.
    expect((await uploadAttachment(api, t.projectId, runId, shot, original)).body.data.sha256).toBe(sha(original));
    expect(fs.readdirSync(target.objectsDir(t.projectId))).toHaveLength(pw.attachments.length);
  });

  it('serves a byte range (video seeking) and the same bytes to an authenticated caller of the project only', async () => {
    const api = target.api(t.token);
    const video = pw.attachments.find((a) => a.name === 'video')!;
    const bytes = fs.readFileSync(video.path);
    const item = (await listedAttachments(api, t.projectId, runId)).get(video.path);
    const { res, body } = await fetchBytes(item.artifact.url, { headers: { range: 'bytes=10-109' } });
    expect(res.status).toBe(206);
    expect(res.headers.get('content-range')).toBe(`bytes 10-109/${bytes.length}`);
    expect(body.equals(bytes.subarray(10, 110))).toBe(true);
    const beyond = await fetch(item.artifact.url, { headers: { range: `bytes=${bytes.length + 10}-` } });
    expect(beyond.status).toBe(416);

    const authed = await api.request('GET', `/api/v1/public/${t.projectId}/artifacts/${item.artifact.id}`);
    expect(authed.status).toBe(200);
    // Another project's token: not found, whichever project it names.
    const other = await target.admin().tenant('owner');
    const asOther = target.api(other.token);
    expect((await asOther.request('GET', `/api/v1/public/${t.projectId}/artifacts/${item.artifact.id}`)).status).toBe(404);
    expect((await asOther.request('GET', `/api/v1/public/${other.projectId}/artifacts/${item.artifact.id}`)).status).toBe(404);
  });

  it('refuses a tampered or expired download URL', async () => {
    const api = target.api(t.token);
    const shot = pw.attachments.find((a) => a.name === 'screenshot')!;
    const item = (await listedAttachments(api, t.projectId, runId)).get(shot.path);
    const url = new URL(item.artifact.url);
    const later = new URL(url);
    later.searchParams.set('expires', String(Number(url.searchParams.get('expires')) + 3600));
    expect((await fetch(later)).status).toBe(404);
    // Signed exactly as the runs service signs (HKDF of its credential), but an hour ago: expired.
    const key = Buffer.from(hkdfSync('sha256', target.runsCredential(), 'assay-runs', 'artifact download urls v1', 32));
    const expires = Math.floor(Date.now() / 1000) - 3600;
    const signature = createHmac('sha256', key).update(`${item.artifact.id}\n${expires}`).digest('base64url');
    const expired = await fetch(`${url.origin}${url.pathname}?expires=${expires}&signature=${signature}`);
    expect(expired.status).toBe(403);
    expect(((await expired.json()) as { error: { code: string } }).error.code).toBe('FORBIDDEN');
  });

  it('answers 404 for an unknown run, test or attachment, and 400 for a missing name; nothing is stored', async () => {
    const api = target.api(t.token);
    const a = pw.attachments[0]!;
    const before = (await api.get(`/api/v1/public/${t.projectId}/test-runs/${runId}?include=artifacts`)).body.data.artifacts.storedBytes;
    expect((await uploadAttachment(api, t.projectId, '0123456789abcdef01234567', a, 'x')).status).toBe(404);
    expect((await uploadAttachment(api, t.projectId, runId, { ...a, titlePath: ['nope'] }, 'x')).status).toBe(404);
    expect((await uploadAttachment(api, t.projectId, runId, { ...a, name: 'no-such-attachment' }, 'x')).status).toBe(404);
    expect((await uploadAttachment(api, t.projectId, runId, { ...a, retry: 3 }, 'x')).status).toBe(404);
    const q = new URLSearchParams({ file: a.file, titlePath: a.titlePath[0]! });
    const missing = await api.request('POST', `/api/v1/ingest/${t.projectId}/runs/${runId}/artifacts?${q}`, {
      rawBody: 'x',
      headers: { 'content-type': 'image/png' },
    });
    expect(missing.status).toBe(400);
    expect(missing.body.error.code).toBe('VALIDATION_ERROR');
    expect((await api.get(`/api/v1/public/${t.projectId}/test-runs/${runId}?include=artifacts`)).body.data.artifacts.storedBytes).toBe(
      before,
    );
  });

  it('uploads with the real tdpw CLI (--upload-images --upload-videos --upload-traces --upload-files --upload-html): every file linked to its run', async () => {
    const key = await target.admin().apiKey(t.projectId);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-tdpw-art-'));
    fs.copyFileSync(pw.jsonPath, path.join(dir, 'report.json'));
    fs.cpSync(pw.htmlDir, path.join(dir, 'playwright-report'), { recursive: true });
    // With upload flags tdpw insists on git metadata (commit, branch, remote): a repository as in CI.
    const git = (...args: string[]) => run('git', ['-c', 'user.name=CI', '-c', 'user.email=ci@example.com', ...args], { cwd: dir });
    await git('init', '-q', '-b', 'main');
    await git('commit', '-q', '--allow-empty', '-m', 'Checkout discount');
    await git('remote', 'add', 'origin', 'https://github.com/acme/shop.git');
    const gatewayUrl = target.api().baseUrl;
    const env = { PATH: process.env.PATH, HOME: dir, TESTDINO_API_URL: gatewayUrl, CI: '', NO_COLOR: '1' };
    const bin = path.join(REPO, 'node_modules', 'tdpw', 'bin', 'tdpw.js');
    const { stdout } = await run(
      process.execPath,
      [
        bin,
        'upload',
        dir,
        `--token=${key.uploadKey}`,
        '--upload-images',
        '--upload-videos',
        '--upload-traces',
        '--upload-files',
        '--upload-html',
        '--json',
      ],
      { env, cwd: dir },
    );
    const out = JSON.parse(stdout.slice(stdout.indexOf('{')));
    const api = target.api(t.token);
    const runs = (await api.get(`/api/v1/public/${t.projectId}/test-runs`)).body.data;
    const tdpwRun = runs.find((r: any) => JSON.stringify(out).includes(r.id));
    expect(tdpwRun).toBeDefined();
    const cases = (await api.get(`/api/v1/public/${t.projectId}/test-runs/${tdpwRun.id}/test-cases?limit=100`)).body.data;
    const stored: any[] = [];
    for (const c of cases)
      stored.push(...(await api.get(`/api/v1/public/${t.projectId}/test-cases/${c.id}`)).body.data.overview.attachments);
    // Every attachment with a file in the report (screenshots, videos, traces, the error context) was uploaded and linked.
    expect(stored.filter((a) => a.artifact).length).toBe(pw.attachments.length);
    // The HTML report's files are the run's own; its page is served sandboxed (scripts only in an opaque origin).
    const detail = (await api.get(`/api/v1/public/${t.projectId}/test-runs/${tdpwRun.id}?include=artifacts`)).body.data.artifacts;
    expect(detail.files.map((f: any) => f.path)).toContain('html/index.html');
    // The report opens from its folder URL, where its relative links (the screenshots and videos under data/) resolve.
    expect(detail.htmlReport).toMatch(new RegExp(`/api/v1/artifacts/html/${tdpwRun.id}/\\d+\\.[\\w-]{43}/index\\.html$`));
    const page = await fetchBytes(detail.htmlReport);
    expect(page.res.status).toBe(200);
    expect(page.res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.res.headers.get('content-security-policy')).toMatch(/^sandbox allow-scripts /);
    expect(page.res.headers.get('content-security-policy')).not.toMatch(/allow-same-origin/);
    expect(sha(withoutStorageShim(page.body))).toBe(sha(fs.readFileSync(path.join(pw.htmlDir, 'index.html'))));
    const linked = fs.readdirSync(path.join(pw.htmlDir, 'data')).filter((f) => /\.(png|webm)$/.test(f));
    expect(linked.length).toBeGreaterThan(0);
    for (const f of linked) {
      const { res, body } = await fetchBytes(new URL(`data/${f}`, detail.htmlReport).href);
      expect(res.status).toBe(200);
      expect(sha(body)).toBe(sha(fs.readFileSync(path.join(pw.htmlDir, 'data', f))));
    }
    // Each file keeps its own URL as well, which serves the bytes exactly as uploaded.
    const index = detail.files.find((f: any) => f.path === 'html/index.html');
    expect(sha((await fetchBytes(index.url)).body)).toBe(sha(fs.readFileSync(path.join(pw.htmlDir, 'index.html'))));
    const byHash = new Map(pw.attachments.map((a) => [sha(fs.readFileSync(a.path)), a]));
    for (const a of stored) {
      const { res, body } = await fetchBytes(a.artifact.url);
      expect(res.status).toBe(200);
      const original = byHash.get(sha(body));
      expect(original).toBeDefined();
      expect(original!.name).toBe(a.name);
    }
  });

  it("serves an uploaded HTML report's folder by one signed URL: index.html and its relative links; nothing else, not after expiry", async () => {
    const key = await target.admin().apiKey(t.projectId);
    const api = target.api();
    const shot = fs.readFileSync(pw.attachments.find((a) => a.name === 'screenshot')!.path);
    const video = fs.readFileSync(pw.attachments.find((a) => a.name === 'video')!.path);
    const index = Buffer.from('<!DOCTYPE html>\n<title>Report</title><img src="data/a.png"><video src="data/v.webm"></video>\n');
    const runId = await uploadReportFolder(api, key.uploadKey, {
      'html/index.html': { type: 'text/html', body: index },
      'html/data/a.png': { type: 'image/png', body: shot },
      'html/data/v.webm': { type: 'video/webm', body: video },
    });
    const owner = target.api(t.token);
    const artifacts = (await owner.get(`/api/v1/public/${t.projectId}/test-runs/${runId}?include=artifacts`)).body.data.artifacts;
    expect(artifacts.files.map((f: any) => f.path).sort()).toEqual(['html/data/a.png', 'html/data/v.webm', 'html/index.html']);
    const reportUrl = new URL(artifacts.htmlReport);
    expect(reportUrl.pathname).toMatch(new RegExp(`^/api/v1/artifacts/html/${runId}/\\d+\\.[\\w-]{43}/index\\.html$`));
    const folder = reportUrl.href.slice(0, -'index.html'.length);
    const expectReportHeaders = (res: Response) => {
      const csp = res.headers.get('content-security-policy')!;
      expect(csp).toMatch(/^sandbox allow-scripts /);
      expect(csp).not.toMatch(/allow-same-origin/);
      expect(csp).toMatch(/img-src 'self' /);
      expect(csp).toMatch(/script-src 'unsafe-inline'/);
      expect(csp).not.toMatch(/script-src[^;]*'self'/);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('cross-origin-resource-policy')).toBe('cross-origin');
    };

    // index.html: its bytes, with the storage script after the doctype.
    const page = await fetchBytes(reportUrl.href);
    expect(page.res.status).toBe(200);
    expectReportHeaders(page.res);
    expect(page.res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.res.headers.get('content-disposition')).toMatch(/^inline/);
    expect(page.body.subarray(0, '<!DOCTYPE html>'.length).toString()).toBe('<!DOCTYPE html>');
    expect(withoutStorageShim(page.body).equals(index)).toBe(true);
    expect(Number(page.res.headers.get('content-length'))).toBe(page.body.length);
    // Its relative links: byte-identical, inline; a video answers ranges.
    const png = await fetchBytes(new URL('data/a.png', reportUrl).href);
    expect(png.res.status).toBe(200);
    expectReportHeaders(png.res);
    expect(png.res.headers.get('content-type')).toBe('image/png');
    expect(png.res.headers.get('content-disposition')).toMatch(/^inline/);
    expect(png.body.equals(shot)).toBe(true);
    const part = await fetchBytes(new URL('data/v.webm', reportUrl).href, { headers: { range: 'bytes=0-99' } });
    expect(part.res.status).toBe(206);
    expect(part.body.equals(video.subarray(0, 100))).toBe(true);

    // Not a file of the report: 404, whether missing, outside html/ (the upload's own attachment), or reached by
    // `..`, encoded dots or separators, or an empty segment.
    const base = reportUrl.pathname.slice(0, -'index.html'.length);
    expect((await fetch(new URL('data/missing.png', reportUrl))).status).toBe(404);
    expect((await fetch(folder)).status).toBe(404);
    for (const p of [
      '../json/attachments/shot.png',
      'data/../index.html',
      'data/../../../html/x/index.html',
      './index.html',
      '%2e%2e/json/attachments/shot.png',
      '..%2Fjson%2Fattachments%2Fshot.png',
      'data%2Fa.png',
      'data//a.png',
      '%2E%2E/%2E%2E/%2E%2E/%2E%2E/api/v1/artifacts',
      '.htaccess',
    ])
      expect([p, (await rawGet(reportUrl.href, base + p)).status]).toEqual([p, 404]);
    expect((await fetch(new URL('x'.repeat(2100), reportUrl))).status).toBe(400);

    // The signature is the run's: tampered, or another run's, is 404; signed for the past, 403.
    const [, expires, signature] = /\/(\d+)\.([\w-]+)\/index\.html$/.exec(reportUrl.pathname)!;
    const flipped = `${signature!.slice(0, 10)}${signature![10] === 'A' ? 'B' : 'A'}${signature!.slice(11)}`;
    expect((await fetch(reportUrl.href.replace(`.${signature}/`, `.${flipped}/`))).status).toBe(404);
    expect((await fetch(reportUrl.href.replace(`/${expires}.`, `/${Number(expires!) + 300}.`))).status).toBe(404);
    const otherRun = await uploadReportFolder(api, key.uploadKey, {
      'html/index.html': { type: 'text/html', body: Buffer.from('<!doctype html><h1>other</h1>') },
      'html/data/a.png': { type: 'image/png', body: shot },
    });
    const otherUrl = (await owner.get(`/api/v1/public/${t.projectId}/test-runs/${otherRun}?include=artifacts`)).body.data.artifacts
      .htmlReport;
    expect((await fetch(otherUrl)).status).toBe(200);
    expect((await fetch(otherUrl.replace(`/html/${otherRun}/`, `/html/${runId}/`))).status).toBe(404);
    // A single artifact's signature is no report signature, and the report's key is not the artifacts' key.
    const single = new URL(artifacts.files.find((f: any) => f.path === 'html/index.html').url);
    const singleToken = `${single.searchParams.get('expires')}.${single.searchParams.get('signature')}`;
    expect((await fetch(`${reportUrl.origin}/api/v1/artifacts/html/${runId}/${singleToken}/index.html`)).status).toBe(404);
    const reportKey = Buffer.from(hkdfSync('sha256', target.runsCredential(), 'assay-runs', 'html report urls v1', 32));
    const sign = (at: number) => createHmac('sha256', reportKey).update(`html-report\n${runId}\n${at}`).digest('base64url');
    const past = Math.floor(Date.now() / 1000) - 60;
    const expired = await fetch(`${reportUrl.origin}/api/v1/artifacts/html/${runId}/${past}.${sign(past)}/data/a.png`);
    expect(expired.status).toBe(403);
    expect(((await expired.json()) as { error: { code: string } }).error.code).toBe('FORBIDDEN');
    const future = Math.floor(Date.now() / 1000) + 600;
    expect((await fetch(`${reportUrl.origin}/api/v1/artifacts/html/${runId}/${future}.${sign(future)}/data/a.png`)).status).toBe(200);
  });

  it('refuses the compatibility upload without the upload token, with a wrong or reused-elsewhere token, and without x-ms-blob-type', async () => {
    const key = await target.admin().apiKey(t.projectId);
    const api = target.api();
    const token = await api.request('POST', '/api/storage/token', {
      body: {},
      headers: { 'x-api-key': key.uploadKey },
      authorization: null,
    });
    expect(token.status).toBe(200);
    const d = token.body.data;
    expect(d).toMatchObject({ tokenId: expect.any(String), sasToken: expect.stringContaining('sig='), blobPath: `uploads/${d.tokenId}` });
    expect(new Date(d.expiresAt).getTime()).toBeGreaterThan(Date.now());
    const put = (url: string, headers: Record<string, string> = { 'x-ms-blob-type': 'BlockBlob', 'content-type': 'image/png' }) =>
      fetch(url, { method: 'PUT', headers, body: Buffer.from('png bytes') });
    const good = `${d.containerUrl}/${d.blobPath}/json/attachments/a.png?${d.sasToken}`;
    expect((await put(good)).status).toBe(201);
    expect((await put(good.replace(/sig=[^&]+/, 'sig=wrong'))).status).toBe(403);
    expect((await put(`${d.containerUrl}/${d.blobPath}/json/attachments/a.png`)).status).toBe(403);
    expect((await put(good, { 'content-type': 'image/png' })).status).toBe(400);
    expect((await put(`${d.containerUrl}/${d.blobPath}/../x.png?${d.sasToken}`)).status).toBeGreaterThanOrEqual(400);
    // No token without the upload key.
    expect((await api.request('POST', '/api/storage/token', { body: {}, authorization: null })).status).toBe(401);

    // Another project's report naming this upload's blob does not get it.
    const other = await target.admin().tenant('owner');
    const otherKey = await target.admin().apiKey(other.projectId);
    const report = JSON.parse(JSON.stringify(pw.json));
    const firstResult = report.suites[0].suites[0].specs[0].tests[0].results[0];
    firstResult.attachments = [
      { name: 'screenshot', contentType: 'image/png', path: `${d.containerUrl}/${d.blobPath}/json/attachments/a.png` },
    ];
    const posted = await api.request('POST', '/api/reports/playwright', {
      rawBody: JSON.stringify(report),
      headers: { 'content-type': 'application/json', 'x-api-key': otherKey.uploadKey },
      authorization: null,
    });
    expect(posted.body.success).toBe(true);
    const otherApi = target.api(other.token);
    const otherCases = (
      await otherApi.get(`/api/v1/public/${other.projectId}/test-runs/${posted.body.data.testRunId}/test-cases?limit=100`)
    ).body.data;
    const shots = [];
    for (const c of otherCases)
      shots.push(...(await otherApi.get(`/api/v1/public/${other.projectId}/test-cases/${c.id}`)).body.data.overview.attachments);
    expect(shots.find((a: any) => a.path.endsWith('/json/attachments/a.png'))).toMatchObject({ artifact: null });
  });
});

describe('artifact limits (S3 system: 1 MiB per file, 1.5 MiB per run)', () => {
  it('answers 413 over the per-file limit (declared or streamed) and over the per-run limit, storing nothing', async () => {
    const t = await priv.admin.tenant('owner');
    const api = priv.api(t.token);
    const runId = await ingestRun(api, t.projectId);
    const shots = pw.attachments.filter((a) => a.name === 'screenshot');
    const big = Buffer.alloc(SMALL_FILE_LIMIT + 1, 1);
    const declared = await uploadAttachment(api, t.projectId, runId, shots[0]!, big);
    expect(declared.status).toBe(413);
    expect(declared.body.error.code).toBe('PAYLOAD_TOO_LARGE');
    // Streamed without a length: refused once the bytes pass the limit.
    const q = new URLSearchParams({ file: shots[0]!.file, name: 'screenshot', path: shots[0]!.path, projectName: shots[0]!.projectName });
    for (const p of shots[0]!.titlePath) q.append('titlePath', p);
    const chunked = await fetch(`${priv.system.gatewayUrl}/api/v1/ingest/${t.projectId}/runs/${runId}/artifacts?${q}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.token}`, 'content-type': 'image/png' },
      body: new ReadableStream({
        start(c) {
          for (let i = 0; i < 20; i++) c.enqueue(new Uint8Array(64 * 1024));
          c.close();
        },
      }),
      duplex: 'half',
    } as RequestInit);
    expect(chunked.status).toBe(413);
    // Per run: two files of 800 KiB fit under 1 MiB each but not under 1.5 MiB together.
    const half = Buffer.alloc(800 * 1024, 2);
    expect((await uploadAttachment(api, t.projectId, runId, shots[0]!, half)).status).toBe(201);
    const over = await uploadAttachment(api, t.projectId, runId, shots[1]!, Buffer.alloc(801 * 1024, 3));
    expect(over.status).toBe(413);
    expect(over.body.error.message).toMatch(/artifacts of a run|allowance/);
    const detail = (await api.get(`/api/v1/public/${t.projectId}/test-runs/${runId}?include=artifacts`)).body.data;
    expect(detail.artifacts.storedBytes).toBe(half.length);
    // Nothing of the refused uploads is left in the bucket: one object only.
    const objects = fs.readdirSync(path.join(s3.dir, s3.bucket, 'projects', t.projectId, 'artifacts'));
    expect(objects).toHaveLength(1);
  });
});

describe('artifact retention (S3 system, sweeper every 300 ms)', () => {
  it('shows storage in the CLI and the usage endpoint; a shorter retention expires old artifacts and the sweeper frees their space', async () => {
    const t = await priv.admin.tenant('owner');
    const api = priv.api(t.token);
    const runId = await ingestRun(api, t.projectId);
    for (const a of pw.attachments) expect((await uploadAttachment(api, t.projectId, runId, a, fs.readFileSync(a.path))).status).toBe(201);
    const total = pw.attachments.reduce((n, a) => n + fs.statSync(a.path).size, 0);
    const projectDir = path.join(s3.dir, s3.bucket, 'projects', t.projectId);
    const onDiskBefore = folderBytes(projectDir);
    expect(onDiskBefore).toBe(total);

    const listed = await cli('project:artifacts', '--project', t.projectId);
    expect([listed.code, listed.json]).toEqual([
      0,
      { projectId: t.projectId, retentionDays: 30, bytes: total, count: pw.attachments.length },
    ]);
    expect((await api.get(`/api/v1/public/${t.projectId}/usage`)).body.data.artifacts).toEqual({
      bytes: total,
      count: pw.attachments.length,
      retentionDays: 30,
    });
    const shot = (await listedAttachments(api, t.projectId, runId)).get(pw.attachments[0]!.path).artifact;

    // The artifacts were stored two days ago (as far as the database knows); a one-day retention expires them.
    const db = new pg.Client({ connectionString: priv.system.infra.DATABASE_URL });
    await db.connect();
    try {
      await db.query(`UPDATE runs.artifacts SET created_at = now() - interval '2 days' WHERE project_id = $1`, [t.projectId]);
    } finally {
      await db.end();
    }
    const set = await cli('project:set-artifact-retention', '--project', t.projectId, '--days', '1');
    expect(set.code).toBe(0);
    expect(set.json.retentionDays).toBe(1);
    const deadline = Date.now() + 20000;
    while (folderBytes(projectDir) > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    // Gone from the store (the bucket's folder on disk holds nothing of the project), from the reads and from usage.
    expect(folderBytes(projectDir)).toBe(0);
    expect((await fetch(shot.url)).status).toBe(404);
    expect((await api.get(`/api/v1/public/${t.projectId}/usage`)).body.data.artifacts).toEqual({ bytes: 0, count: 0, retentionDays: 1 });
    const item = (await listedAttachments(api, t.projectId, runId)).get(pw.attachments[0]!.path);
    expect(item.artifact).toBeNull();
    process.stdout.write(`[artifacts] retention sweep freed ${onDiskBefore} bytes on the S3 server's disk\n`);

    expect((await cli('project:set-artifact-retention', '--project', t.projectId, '--days', '0')).code).not.toBe(0);
  });
});

describe('deleting a run (S3 system, sweeper every 300 ms)', () => {
  it('assay run:delete removes the run and its results from the reads, its artifacts at once from downloads and then from the store; another run keeps its own', async () => {
    const t = await priv.admin.tenant('owner');
    const api = priv.api(t.token);
    const [doomed, kept] = [await ingestRun(api, t.projectId), await ingestRun(api, t.projectId)];
    for (const runId of [doomed, kept])
      for (const a of pw.attachments)
        expect((await uploadAttachment(api, t.projectId, runId, a, fs.readFileSync(a.path))).status).toBe(201);
    const total = pw.attachments.reduce((n, a) => n + fs.statSync(a.path).size, 0);
    const projectDir = path.join(s3.dir, s3.bucket, 'projects', t.projectId);
    expect(folderBytes(projectDir)).toBe(2 * total);
    const doomedShot = (await listedAttachments(api, t.projectId, doomed)).get(pw.attachments[0]!.path).artifact;
    const keptShot = (await listedAttachments(api, t.projectId, kept)).get(pw.attachments[0]!.path).artifact;
    const firstCase = (await api.get(`/api/v1/public/${t.projectId}/test-runs/${doomed}/test-cases?limit=100`)).body.data[0];
    const caseId = firstCase.id ?? firstCase.caseId;

    expect((await api.get(`/api/v1/public/${t.projectId}/test-runs?limit=50`)).body.pagination.total).toBe(2);
    const del = await cli('run:delete', '--project', t.projectId, '--run', doomed);
    expect(del.code).toBe(0);
    expect(del.json).toMatchObject({ runId: doomed, results: statsFromReport(pw.json).total, artifacts: pw.attachments.length });
    // The analytics read model was refolded with the one run left.
    expect(del.json.analytics.runs).toBe(1);

    // Gone from the reads at once: the run, its test case, its artifacts' URLs.
    expect((await api.get(`/api/v1/public/${t.projectId}/test-runs/${doomed}`)).status).toBe(404);
    expect((await api.get(`/api/v1/public/${t.projectId}/test-cases/${caseId}`)).status).toBe(404);
    expect((await fetch(doomedShot.url)).status).toBe(404);
    const list = (await api.get(`/api/v1/public/${t.projectId}/test-runs?limit=50`)).body;
    expect(list.data.map((r: any) => r.id)).toEqual([kept]);
    // The page's total too, without a filter (the project's kept count) and with one (counted).
    expect(list.pagination.total).toBe(1);
    const sameStatus = await api.get(`/api/v1/public/${t.projectId}/test-runs?limit=50&status=${list.data[0].status}`);
    expect(sameStatus.body.pagination.total).toBe(1);
    // Ingesting into the deleted run is a 404, not a resurrection.
    const late = await api.request('POST', `/api/v1/ingest/${t.projectId}/runs/${doomed}/finish`, { body: {} });
    expect(late.status).toBe(404);

    // The sweeper deletes the objects: the store keeps exactly the other run's.
    const deadline = Date.now() + 20000;
    while (folderBytes(projectDir) > total && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    expect(folderBytes(projectDir)).toBe(total);
    expect((await api.get(`/api/v1/public/${t.projectId}/usage`)).body.data.artifacts).toMatchObject({
      bytes: total,
      count: pw.attachments.length,
    });
    const keptRes = await fetch(keptShot.url);
    expect(keptRes.status).toBe(200);
    expect(sha(Buffer.from(await keptRes.arrayBuffer()))).toBe(sha(fs.readFileSync(pw.attachments[0]!.path)));

    // A run the project does not have: exit 3 (not found), nothing deleted.
    const again = await cli('run:delete', '--project', t.projectId, '--run', doomed);
    expect(again).toMatchObject({ code: 3, json: { error: { code: 'NOT_FOUND' } } });
    const other = await priv.admin.tenant('owner');
    expect((await cli('run:delete', '--project', other.projectId, '--run', kept)).code).toBe(3);
    expect((await api.get(`/api/v1/public/${t.projectId}/test-runs/${kept}`)).status).toBe(200);
  });
});

describe("Playwright's trace viewer at /trace/", () => {
  it('serves the viewer under its own CSP; a missing file is 404 and a write 405', async () => {
    const api = testApi();
    const at = (p: string) => `${testSystem().gatewayUrl}${p}`;
    const page = await api.request('GET', at('/trace/index.html'), { authorization: null });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.text).toContain('Playwright Trace Viewer');
    expect(page.headers.get('content-security-policy')).toMatch(/script-src 'self'(;|$)/);
    expect((await api.request('GET', at('/trace/sw.bundle.js'), { authorization: null })).status).toBe(200);
    const missing = await api.request('GET', at('/trace/no-such-file.js'), { authorization: null });
    expect([missing.status, missing.body.error?.code]).toEqual([404, 'NOT_FOUND']);
    expect((await api.request('GET', at('/assets/no-such-file.js'), { authorization: null })).status).toBe(404);
    expect((await api.request('POST', at('/trace/index.html'), { authorization: null, body: {} })).status).toBe(405);
  });
});
