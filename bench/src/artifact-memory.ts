/**
 * Memory of the processes a large artifact passes through (issue 17): one 500 MB video uploaded through the
 * gateway's ingestion API to the runs service and on to storage (the filesystem, or with BENCH_STORAGE=s3 a real
 * versitygw), then downloaded by its signed URL. Samples the resident set size (VmRSS) of the gateway and of runs
 * every 20 ms and prints idle and peak, the upload and download rates against a local disk copy of the same file
 * measured in the same run, and checks the download's SHA-256.
 *
 *   make bench BENCH=artifact-memory      (BENCH_ARTIFACT_MB=N for another size, BENCH_STORAGE=s3)
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { Admin, Api, startS3Server } from '@assay/testkit';
import { benchSystem } from './lib';
import { rssOf, withPeaks } from './memory';
import { addFigure } from './summary';

const mb = (bytes: number) => `${(bytes / 1e6).toFixed(0)} MB`;

/** A file of `bytes` (a repeated pseudo-random 1 MiB block) and its SHA-256. */
async function bigFile(bytes: number): Promise<{ file: string; sha256: string }> {
  const file = path.join(os.tmpdir(), `assay-bench-video-${process.pid}.webm`);
  const block = Buffer.alloc(1024 * 1024);
  for (let i = 0; i < block.length; i++) block[i] = (i * 2654435761) >>> 24;
  const hash = createHash('sha256');
  const out = fs.createWriteStream(file);
  for (let left = bytes; left > 0; left -= block.length) {
    const chunk = block.subarray(0, Math.min(block.length, left));
    hash.update(chunk);
    if (!out.write(chunk)) await new Promise<void>((r) => out.once('drain', () => r()));
  }
  await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
  return { file, sha256: hash.digest('hex') };
}

export async function run(): Promise<void> {
  const bytes = Number(process.env.BENCH_ARTIFACT_MB ?? 500) * 1e6;
  const s3 = process.env.BENCH_STORAGE === 's3' ? await startS3Server() : undefined;
  const limits = { ARTIFACT_MAX_FILE_BYTES: String(2 * 1024 ** 3) };
  const bench = await benchSystem({
    gateway: { RATE_LIMITS: 'reads=1000000,writes=1000000,ip=1000000,ingest=1000000', ...limits },
    runs: { ...s3?.env, ...limits },
  });
  const { file, sha256 } = await bigFile(bytes);
  try {
    const admin = new Admin(bench.system.adminUrl, bench.system.internalToken);
    const t = await admin.tenant('owner');
    const api = new Api(bench.system.gatewayUrl, t.token);
    const playwrightReport = {
      suites: [
        {
          title: 'video.spec.ts',
          file: 'video.spec.ts',
          specs: [
            {
              title: 'records a long video',
              file: 'video.spec.ts',
              tests: [
                {
                  projectName: 'chromium',
                  status: 'expected',
                  results: [
                    { retry: 0, status: 'passed', duration: 1, attachments: [{ name: 'video', contentType: 'video/webm', path: file }] },
                  ],
                },
              ],
            },
          ],
        },
      ],
    };
    const ingested = await api.request('POST', `/api/v1/ingest/${t.projectId}/playwright`, {
      rawBody: JSON.stringify(playwrightReport),
      headers: { 'content-type': 'application/json' },
    });
    const runId = ingested.body.data.runId as string;
    const q = new URLSearchParams({ file: 'video.spec.ts', titlePath: 'records a long video', projectName: 'chromium', name: 'video' });
    const pid = (n: string) => bench.system.processes.get(n)!.child.pid!;
    const pids = { gateway: pid('gateway'), runs: pid('runs') };
    // Measured from a settled process, as a deployment's is between requests: every process gives its startup's
    // and setup's memory back after a few idle seconds (service-kit memory.ts, releaseWhenIdle).
    await new Promise((r) => setTimeout(r, 12_000));
    const idle = { gateway: rssOf(pids.gateway), runs: rssOf(pids.runs) };
    console.log(`file: ${mb(bytes)}; storage: ${s3 ? 's3 (versitygw)' : 'filesystem'}`);
    console.log(`idle RSS: gateway ${mb(idle.gateway)}, runs ${mb(idle.runs)}`);

    const copyStart = Date.now();
    await fs.promises.copyFile(file, `${file}.copy`);
    const copySeconds = (Date.now() - copyStart) / 1000;
    await fs.promises.rm(`${file}.copy`, { force: true });

    let answer: { status: number; body: { data: { sha256: string; url: string } } } | undefined;
    const upStart = Date.now();
    const { peaks: upPeaks } = await withPeaks(pids, async () => {
      const res = await fetch(`${bench.system.gatewayUrl}/api/v1/ingest/${t.projectId}/runs/${runId}/artifacts?${q}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${t.token}`, 'content-type': 'video/webm', 'content-length': String(bytes) },
        body: Readable.toWeb(fs.createReadStream(file)) as ReadableStream,
        duplex: 'half',
      } as RequestInit);
      answer = { status: res.status, body: (await res.json()) as never };
    });
    const upSeconds = (Date.now() - upStart) / 1000;
    if (answer?.status !== 201) throw new Error(`upload failed: ${JSON.stringify(answer)}`);
    console.log(
      `upload: ${upSeconds.toFixed(1)} s (${(bytes / 1e6 / upSeconds).toFixed(0)} MB/s; local disk copy ${(bytes / 1e6 / copySeconds).toFixed(0)} MB/s, ratio ${(copySeconds / upSeconds).toFixed(2)})`,
    );
    console.log(
      `peak RSS during the upload: gateway ${mb(upPeaks.gateway)} (+${mb(upPeaks.gateway - idle.gateway)}), runs ${mb(upPeaks.runs)} (+${mb(upPeaks.runs - idle.runs)}); budget 150 MB`,
    );
    (['gateway', 'runs'] as const).forEach((name) =>
      addFigure({
        bench: 'artifact-memory',
        figure: `${name}: peak RSS, a ${mb(bytes)} upload (${s3 ? 'S3' : 'filesystem'}; idle)`,
        assay: `${mb(upPeaks[name])} (${mb(idle[name])})`,
        goal: '< 150 MB',
        met: upPeaks[name] < 150e6,
      }),
    );
    console.log(`stored SHA-256 ${answer.body.data.sha256 === sha256 ? 'matches' : 'DIFFERS FROM'} the file's`);

    const hash = createHash('sha256');
    const downStart = Date.now();
    const { peaks: downPeaks } = await withPeaks(pids, async () => {
      const res = await fetch(answer!.body.data.url);
      for await (const chunk of Readable.fromWeb(res.body as never)) hash.update(chunk as Buffer);
    });
    const downSeconds = (Date.now() - downStart) / 1000;
    console.log(
      `download: ${downSeconds.toFixed(1)} s (${(bytes / 1e6 / downSeconds).toFixed(0)} MB/s); peak RSS gateway ${mb(downPeaks.gateway)}, runs ${mb(downPeaks.runs)}; SHA-256 ${hash.digest('hex') === sha256 ? 'matches' : 'DIFFERS'}`,
    );
  } finally {
    await fs.promises.rm(file, { force: true });
    await bench.close();
    await s3?.stop();
  }
}
