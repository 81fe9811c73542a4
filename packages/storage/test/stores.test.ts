/**
 * One contract, both adapters: the filesystem in a temp folder and S3 against a real versitygw started by the
 * harness. Bytes round-trip with their SHA-256, ranges read the right slice, an oversized put leaves nothing,
 * deletes remove (and tolerate missing keys), and keys that could escape the root are refused.
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { ListMultipartUploadsCommand, S3Client } from '@aws-sdk/client-s3';
import { startS3Server, type S3Server } from '@assay/testkit';
import { FilesystemStore, ObjectTooLarge, type ObjectStore } from '../src';
import { S3Store } from '../src/s3';

jest.setTimeout(120000);

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
async function bytes(r: Readable): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of r) parts.push(c as Buffer);
  return Buffer.concat(parts);
}
/** A body that arrives in small chunks, as from a socket. */
const chunked = (b: Buffer, size = 64 * 1024) =>
  Readable.from(
    (function* () {
      for (let i = 0; i < b.length; i += size) yield b.subarray(i, i + size);
    })(),
  );

let s3: S3Server;
const fsRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-fs-store-'));
const stores: Record<string, () => ObjectStore> = {};

beforeAll(async () => {
  s3 = await startS3Server();
  stores.s3 = () =>
    new S3Store({
      endpoint: s3.endpoint,
      bucket: s3.bucket,
      region: s3.region,
      accessKeyId: s3.accessKeyId,
      secretAccessKey: s3.secretAccessKey,
      forcePathStyle: true,
    });
});
afterAll(async () => {
  await s3?.stop();
  fs.rmSync(fsRoot, { recursive: true, force: true });
});
stores.filesystem = () => new FilesystemStore(fsRoot);

describe.each(['filesystem', 's3'])('%s store', (kind) => {
  const store = () => stores[kind]!();

  it('is ready, and stores a multi-part object byte for byte with its SHA-256', async () => {
    expect(await store().ready()).toBe(true);
    const data = randomBytes(20 * 1024 * 1024 + 12345); // more than two S3 parts
    const put = await store().put('projects/p1/artifacts/a1', chunked(data), { contentType: 'video/webm', maxBytes: 64 * 1024 * 1024 });
    expect(put).toEqual({ size: data.length, sha256: sha(data) });
    const got = await store().get('projects/p1/artifacts/a1');
    expect(got!.size).toBe(data.length);
    expect(sha(await bytes(got!.body))).toBe(sha(data));
  });

  it('stores objects of exactly two parts and of no bytes', async () => {
    for (const [key, data] of [
      ['projects/p1/artifacts/two', randomBytes(10 * 1024 * 1024)],
      ['projects/p1/artifacts/empty', Buffer.alloc(0)],
    ] as const) {
      const put = await store().put(key, chunked(data), { contentType: 'application/octet-stream', maxBytes: 64 * 1024 * 1024 });
      expect(put).toEqual({ size: data.length, sha256: sha(data) });
      const got = await store().get(key);
      expect(sha(await bytes(got!.body))).toBe(sha(data));
    }
  });

  it('reads a byte range and reports the whole size', async () => {
    const data = Buffer.from('0123456789abcdefghij');
    await store().put('projects/p1/artifacts/range', chunked(data, 3), { contentType: 'text/plain', maxBytes: 100 });
    const got = await store().get('projects/p1/artifacts/range', { start: 5, end: 9 });
    expect(got!.size).toBe(20);
    expect(await text(got!.body)).toBe('56789');
  });

  it('refuses an object over its limit and leaves nothing behind', async () => {
    const data = randomBytes(9 * 1024 * 1024);
    await expect(
      store().put('projects/p1/artifacts/big', chunked(data), { contentType: 'video/webm', maxBytes: 8 * 1024 * 1024 }),
    ).rejects.toBeInstanceOf(ObjectTooLarge);
    expect(await store().get('projects/p1/artifacts/big')).toBeNull();
    if (kind === 'filesystem')
      expect(fs.readdirSync(path.join(fsRoot, 'projects', 'p1', 'artifacts')).filter((f) => f.includes('.part-'))).toEqual([]);
    else {
      // Its first part was stored before the limit was passed: the multipart upload is aborted, not left open.
      const client = new S3Client({
        endpoint: s3.endpoint,
        region: s3.region,
        forcePathStyle: true,
        credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
      });
      const open = await client.send(new ListMultipartUploadsCommand({ Bucket: s3.bucket }));
      expect(open.Uploads ?? []).toEqual([]);
    }
  });

  it('answers null for a missing object and deletes objects (missing ones too)', async () => {
    expect(await store().get('projects/p1/artifacts/none')).toBeNull();
    await store().put('projects/p1/artifacts/d1', chunked(Buffer.from('x')), { contentType: 'text/plain', maxBytes: 10 });
    await store().delete(['projects/p1/artifacts/d1', 'projects/p1/artifacts/never']);
    expect(await store().get('projects/p1/artifacts/d1')).toBeNull();
  });

  it('refuses keys that could leave the root', async () => {
    for (const key of ['../etc/passwd', 'a/../../b', '/abs', 'a//b', '']) {
      await expect(store().get(key)).rejects.toThrow(/invalid object key/);
    }
  });
});

it('an S3 store whose bucket does not exist is not ready', async () => {
  const st = new S3Store({
    endpoint: s3.endpoint,
    bucket: 'no-such-bucket',
    region: s3.region,
    accessKeyId: s3.accessKeyId,
    secretAccessKey: s3.secretAccessKey,
    forcePathStyle: true,
  });
  expect(await st.ready()).toBe(false);
});
