/**
 * Artifacts in the browser: a real browser session is recorded here (a screenshot, a video through Debian's
 * ffmpeg, a Playwright trace), reported as one failing test and its files uploaded through the ingestion API;
 * the test-result page then shows the screenshot, plays the video, and opens the trace in Playwright's trace
 * viewer served by Assay, which lists the session's actions. An uploaded HTML file runs, if at all, in an opaque
 * origin: it cannot read the app's storage nor call the API as the signed-in user. An uploaded HTML report opens
 * from its signed folder URL: its relative links (an image under data/) load, and its script is just as confined.
 */
import fs from 'node:fs';
import path from 'node:path';
import { testAdmin, testApi } from '@assay/testkit';
import { api, expect, expectAccessible, test } from './support/fixtures';
import { FILE, reportWithFiles } from './support/ingest';

// The session below records its own trace (the runner's would already be tracing its contexts).
test.use({ trace: 'off' });

test('a result shows its screenshot, plays its video and opens its trace in the trace viewer', async ({
  page,
  browser,
  tenant,
  signIn,
}, testInfo) => {
  const t = await tenant('owner');
  // A real browser session, recorded as a CI run would record it.
  const dir = testInfo.outputPath('session');
  const session = await browser.newContext({
    viewport: { width: 640, height: 360 },
    recordVideo: { dir, size: { width: 640, height: 360 } },
  });
  await session.tracing.start({ screenshots: true, snapshots: true });
  const shop = await session.newPage();
  await shop.setContent('<title>Shop</title><h1>Checkout</h1><button onclick="this.textContent = \'Pay\'">Pay now</button>');
  await shop.getByRole('button', { name: 'Pay now' }).click();
  const screenshot = path.join(dir, 'test-failed-1.png');
  await shop.screenshot({ path: screenshot });
  const trace = path.join(dir, 'trace.zip');
  await session.tracing.stop({ path: trace });
  const video = await shop.video()!.path();
  await session.close();

  const { runId, caseId } = await reportWithFiles(t, [
    { name: 'screenshot', contentType: 'image/png', path: screenshot },
    { name: 'video', contentType: 'video/webm', path: video },
    { name: 'trace', contentType: 'application/zip', path: trace },
  ]);

  await signIn(page, t.userId);
  await page.goto(`/projects/${t.projectId}/runs/${runId}/test-cases/${caseId}`);
  const attachments = page.getByRole('region', { name: 'Attachments' });
  // The screenshot shows: the image decoded from its signed URL.
  const img = attachments.getByRole('img', { name: 'screenshot, attempt 1' });
  await expect(img).toBeVisible();
  await expect.poll(() => img.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth)).toBe(640);
  // The video plays.
  const player = attachments.locator('video');
  await expect(player).toBeVisible();
  await expect.poll(() => player.evaluate((v: HTMLVideoElement) => v.readyState)).toBeGreaterThanOrEqual(1);
  await player.evaluate((v: HTMLVideoElement) => {
    v.muted = true;
    return v.play();
  });
  await expect.poll(() => player.evaluate((v: HTMLVideoElement) => v.error === null && (v.currentTime > 0 || v.ended))).toBe(true);
  await expectAccessible(page);

  // The signed-in session downloads it by the authenticated route too (CONTRACT §10: session-authorised); a
  // session of another organization does not.
  const stored = (await api(t.token).get(`/${t.projectId}/test-cases/${caseId}`)).body.data.overview.attachments[0].artifact;
  const own = await page.request.get(`/api/v1/public/${t.projectId}/artifacts/${stored.id}`);
  expect([own.status(), own.headers()['x-content-type-options']]).toEqual([200, 'nosniff']);
  expect((await own.body()).length).toBe(stored.size);
  const stranger = await tenant('owner');
  const otherContext = await browser.newContext();
  const otherPage = await otherContext.newPage();
  await signIn(otherPage, stranger.userId);
  expect((await otherPage.request.get(`/api/v1/public/${t.projectId}/artifacts/${stored.id}`)).status()).toBe(404);
  await otherContext.close();

  // One click opens the trace in Playwright's trace viewer, which shows the session's actions.
  const [viewer] = await Promise.all([
    page.waitForEvent('popup'),
    attachments.getByRole('link', { name: 'Open trace (attempt 1)' }).click(),
  ]);
  await expect(viewer).toHaveURL(/\/trace\/index\.html\?trace=/);
  await expect(viewer.getByText(/Click/).first()).toBeVisible({ timeout: 30_000 });
  await expect(viewer.getByText(/Pay now/).first()).toBeVisible();
});

test('an uploaded HTML file cannot run script on the app origin', async ({ page, tenant, signIn }, testInfo) => {
  const t = await tenant('owner');
  const file = testInfo.outputPath('report.html');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  // What a malicious report would try: read the app's storage and cookies, call the API as the signed-in user.
  fs.writeFileSync(
    file,
    `<!doctype html><title>pending</title><script>
      const out = [];
      try { out.push('storage:' + localStorage.length); } catch (e) { out.push('storage:blocked'); }
      try { out.push('cookie:' + document.cookie); } catch (e) { out.push('cookie:blocked'); }
      fetch('/api/v1/app/me', { credentials: 'include' }).then((r) => r.text()).then(
        (b) => { document.title = out.concat('api:' + b.slice(0, 40)).join(' '); },
        () => { document.title = out.concat('api:blocked').join(' '); });
    </script>`,
  );
  const { caseId } = await reportWithFiles(t, [{ name: 'report', contentType: 'text/html', path: file }]);
  await signIn(page, t.userId);
  const detail = await api(t.token).get(`/${t.projectId}/test-cases/${caseId}`);
  const url = detail.body.data.overview.attachments[0].artifact.url as string;
  const res = await page.goto(url);
  expect(res!.headers()['content-security-policy']).toMatch(/^sandbox allow-scripts/);
  expect(res!.headers()['x-content-type-options']).toBe('nosniff');
  // The document is in an opaque origin: none of the app's storage, cookies or authenticated API.
  expect(await page.evaluate(() => self.origin)).toBe('null');
  await expect(page).toHaveTitle(/api:/);
  expect(await page.title()).toBe('storage:blocked cookie:blocked api:blocked');
});

test("a finished run's page opens the HTML report its uploader sent, sandboxed, with the files it links", async ({
  page,
  tenant,
  signIn,
}) => {
  const t = await tenant('owner');
  // A screenshot for the report to show from its data/ folder, as Playwright's report does.
  await page.setContent('<h1 style="margin:40px">Checkout</h1>');
  const screenshot = await page.screenshot({ clip: { x: 0, y: 0, width: 320, height: 120 } });
  // The compatibility flow `tdpw upload --upload-html` uses: an upload container, the files PUT into it, then the
  // report naming one of them (which links the upload, and its other files, to the run).
  const key = await testAdmin().apiKey(t.projectId);
  const anonymous = testApi();
  const container = await anonymous.request('POST', '/api/storage/token', {
    body: {},
    headers: { 'x-api-key': key.uploadKey },
    authorization: null,
  });
  expect(container.status, container.text).toBe(200);
  const d = container.body.data;
  const put = async (file: string, contentType: string, body: string | Buffer) => {
    const res = await fetch(`${d.containerUrl}/${d.blobPath}/${file}?${d.sasToken}`, {
      method: 'PUT',
      headers: { 'x-ms-blob-type': 'BlockBlob', 'content-type': contentType },
      body: typeof body === 'string' ? body : new Uint8Array(body),
    });
    expect(res.status).toBe(201);
  };
  // Its script tries what a malicious report would: the app's storage and cookies, the API as the signed-in user.
  await put(
    'html/index.html',
    'text/html',
    `<!doctype html><title>Playwright Test Report</title><h1>42 passed</h1><img src="data/shot.png" alt="Checkout screenshot">
    <script>
      const out = [];
      try { out.push('storage:' + (localStorage.getItem('assay-marker') ?? 'none')); } catch (e) { out.push('storage:blocked'); }
      try { out.push('cookie:' + document.cookie); } catch (e) { out.push('cookie:blocked'); }
      fetch('/api/v1/app/me', { credentials: 'include' }).then((r) => r.text()).then(
        (b) => { document.body.dataset.probe = out.concat('api:' + b.slice(0, 40)).join(' '); },
        () => { document.body.dataset.probe = out.concat('api:blocked').join(' '); });
    </script>`,
  );
  await put('html/data/shot.png', 'image/png', screenshot);
  await put('json/attachments/shot.png', 'image/png', screenshot);
  const report = {
    config: { rootDir: '/ci/shop' },
    suites: [
      {
        title: FILE,
        file: FILE,
        specs: [
          {
            title: 'pays',
            file: FILE,
            ok: true,
            tags: [],
            tests: [
              {
                projectName: 'chromium',
                expectedStatus: 'passed',
                status: 'expected',
                annotations: [],
                results: [
                  {
                    retry: 0,
                    status: 'passed',
                    duration: 900,
                    startTime: new Date().toISOString(),
                    errors: [],
                    steps: [],
                    stdout: [],
                    stderr: [],
                    attachments: [
                      { name: 'screenshot', contentType: 'image/png', path: `${d.containerUrl}/${d.blobPath}/json/attachments/shot.png` },
                    ],
                  },
                ],
              },
            ],
          },
        ],
        suites: [],
      },
    ],
    stats: { startTime: new Date().toISOString(), duration: 1000 },
    errors: [],
  };
  const posted = await anonymous.request('POST', '/api/reports/playwright', {
    rawBody: JSON.stringify(report),
    headers: { 'content-type': 'application/json', 'x-api-key': key.uploadKey },
    authorization: null,
  });
  expect(posted.body.success, posted.text).toBe(true);

  await signIn(page, t.userId);
  await page.goto(`/projects/${t.projectId}/runs/${posted.body.data.testRunId}`);
  // Something of the app's own for the report to look for.
  await page.evaluate(() => localStorage.setItem('assay-marker', 'the app origin'));
  const stored = page.getByRole('region', { name: 'Stored files' });
  await expect(stored.getByRole('list', { name: 'Run files' }).getByRole('link', { name: 'html/index.html' })).toBeVisible();
  await expectAccessible(page);
  const [reportPage] = await Promise.all([page.waitForEvent('popup'), stored.getByRole('link', { name: 'Open the HTML report' }).click()]);
  await expect(reportPage).toHaveURL(/\/api\/v1\/artifacts\/html\/[0-9a-f]{24}\/\d+\.[\w-]+\/index\.html$/);
  await expect(reportPage.getByRole('heading', { name: '42 passed' })).toBeVisible();
  // Its relative link loads: the image decoded from data/shot.png under the same signed folder.
  const img = reportPage.getByRole('img', { name: 'Checkout screenshot' });
  await expect.poll(() => img.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth)).toBe(320);
  // Its own opaque origin: never the app's. Its storage is its own, empty (in memory); cookies and the API are out of reach.
  expect(await reportPage.evaluate(() => self.origin)).toBe('null');
  await expect(reportPage.locator('body')).toHaveAttribute('data-probe', /api:/);
  expect(await reportPage.locator('body').getAttribute('data-probe')).toBe('storage:none cookie:blocked api:blocked');
});
