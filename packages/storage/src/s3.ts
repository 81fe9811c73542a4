/**
 * Objects in a bucket of any S3-compatible store (AWS S3, versitygw, MinIO, SeaweedFS, Ceph RGW...). A put is
 * a streamed multipart upload (lib-storage: 8 MiB parts, two in flight, so at most ~16 MiB per upload in
 * memory whatever the object's size); a put that fails or grows past its limit is aborted, which removes its
 * parts. Checksums are only sent where the API requires them: several S3-compatible servers refuse the
 * SDK's newer default trailers.
 */
import { PassThrough, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  CreateBucketCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadBucketCommand,
  NoSuchKey,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { checkKey, meter, type ByteRange, type ObjectRead, type ObjectStore, type PutOptions, type StoredObject } from './store';

export interface S3Settings {
  /** Empty for AWS itself (the region picks the endpoint). */
  endpoint: string;
  bucket: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  forcePathStyle: boolean;
}

const PART_SIZE = 8 * 1024 * 1024;

export class S3Store implements ObjectStore {
  readonly kind = 's3' as const;
  private readonly client: S3Client;

  constructor(private readonly s: S3Settings) {
    this.client = new S3Client({
      endpoint: s.endpoint || undefined,
      region: s.region,
      forcePathStyle: s.forcePathStyle,
      credentials: s.accessKeyId ? { accessKeyId: s.accessKeyId, secretAccessKey: s.secretAccessKey } : undefined,
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      maxAttempts: 3,
    });
  }

  async ready(): Promise<boolean> {
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: this.s.bucket }));
      return true;
    } catch {
      return false;
    }
  }

  async put(key: string, body: Readable, opts: PutOptions): Promise<StoredObject> {
    const m = meter(opts.maxBytes);
    const pass = new PassThrough();
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.s.bucket, Key: checkKey(key), Body: pass, ContentType: opts.contentType },
      partSize: PART_SIZE,
      queueSize: 2,
      leavePartsOnError: false,
    });
    const feeding = pipeline(body, m, pass);
    // A failing body (or the limit) aborts the upload; a failing upload stops the body.
    const fed = feeding.catch(async (err: unknown) => {
      await upload.abort().catch(() => undefined);
      throw err;
    });
    try {
      await Promise.all([fed, upload.done()]);
    } catch (err) {
      body.destroy();
      pass.destroy();
      // The body's own error (e.g. ObjectTooLarge) says more than the abort it caused.
      throw await fed.then(
        () => err,
        (bodyErr: unknown) => bodyErr,
      );
    }
    return m.result();
  }

  async get(key: string, range?: ByteRange): Promise<ObjectRead | null> {
    try {
      const res = await this.client.send(
        new GetObjectCommand({ Bucket: this.s.bucket, Key: checkKey(key), Range: range ? `bytes=${range.start}-${range.end}` : undefined }),
      );
      // With a range, the whole size is the part after the slash of Content-Range.
      const size = res.ContentRange ? Number(res.ContentRange.split('/')[1]) : Number(res.ContentLength ?? 0);
      return { body: res.Body as Readable, size };
    } catch (err) {
      if (err instanceof NoSuchKey || (err instanceof S3ServiceException && err.$metadata.httpStatusCode === 404)) return null;
      throw err;
    }
  }

  async delete(keys: string[]): Promise<void> {
    for (let i = 0; i < keys.length; i += 1000) {
      const batch = keys.slice(i, i + 1000).map((k) => ({ Key: checkKey(k) }));
      const res = await this.client.send(new DeleteObjectsCommand({ Bucket: this.s.bucket, Delete: { Objects: batch, Quiet: true } }));
      const failed = (res.Errors ?? []).filter((e) => e.Code !== 'NoSuchKey');
      if (failed.length > 0) throw new Error(`could not delete ${failed.length} objects (${failed[0]!.Code}: ${failed[0]!.Message})`);
    }
  }

  async create(): Promise<void> {
    if (await this.ready()) return;
    await this.client.send(new CreateBucketCommand({ Bucket: this.s.bucket }));
  }
}
