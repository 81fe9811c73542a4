/**
 * A real S3-compatible server for tests: versitygw (built by scripts/infra/s3.sh into .cache/bin) serving a
 * private temp folder on a free loopback port, with its own keys and one bucket. Never an in-process fake.
 */
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from './paths';
import { freePort, waitForPort } from './ports';

const run = promisify(execFile);

export interface S3Server {
  endpoint: string;
  bucket: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** The folder behind the bucket (objects are files under `<dir>/<bucket>/`). */
  dir: string;
  /** The runs service's settings that point at it. */
  env: Record<string, string>;
  stop(): Promise<void>;
}

/** Builds versitygw when missing (cached) and returns its path. */
export async function versitygwBinary(): Promise<string> {
  const { stdout } = await run('bash', [path.join(REPO_ROOT, 'scripts', 'infra', 's3.sh'), 'install'], { maxBuffer: 16 * 1024 * 1024 });
  return stdout.trim();
}

export async function startS3Server(opts: { bucket?: string } = {}): Promise<S3Server> {
  const bin = await versitygwBinary();
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-s3-'));
  const dir = path.join(home, 'data');
  const meta = path.join(home, 'meta');
  const bucket = opts.bucket ?? 'assay-artifacts';
  // versitygw's posix backend: every folder under the root is a bucket; object metadata in a sidecar folder.
  fs.mkdirSync(path.join(dir, bucket), { recursive: true });
  fs.mkdirSync(meta);
  const port = await freePort();
  const accessKeyId = `assay${randomBytes(6).toString('hex')}`;
  const secretAccessKey = randomBytes(24).toString('hex');
  const log = fs.openSync(path.join(home, 'versitygw.log'), 'a');
  const child = spawn(
    bin,
    ['--port', `127.0.0.1:${port}`, '--access', accessKeyId, '--secret', secretAccessKey, 'posix', '--sidecar', meta, dir],
    {
      stdio: ['ignore', log, log],
    },
  );
  fs.closeSync(log);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    await waitForPort(port, '127.0.0.1', 20000);
  } catch (err) {
    child.kill('SIGKILL');
    throw new Error(`versitygw did not start: ${fs.readFileSync(path.join(home, 'versitygw.log'), 'utf8').slice(-2000)}`, { cause: err });
  }
  const endpoint = `http://127.0.0.1:${port}`;
  const region = 'us-east-1';
  return {
    endpoint,
    bucket,
    region,
    accessKeyId,
    secretAccessKey,
    dir,
    env: {
      ARTIFACT_STORAGE: 's3',
      S3_ENDPOINT: endpoint,
      S3_BUCKET: bucket,
      S3_REGION: region,
      S3_ACCESS_KEY_ID: accessKeyId,
      S3_SECRET_ACCESS_KEY: secretAccessKey,
      S3_FORCE_PATH_STYLE: 'true',
    },
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
      fs.rmSync(home, { recursive: true, force: true });
    },
  };
}
