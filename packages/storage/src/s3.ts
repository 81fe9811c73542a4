/**
 * Objects in a bucket of any S3-compatible store (AWS S3, versitygw, MinIO, SeaweedFS, Ceph RGW...). A put
 * streams: an object smaller than one part is one PutObject; a larger one a multipart upload (5 MiB parts) whose
 * parts are filled into at most three buffers reused from part to part (up to three in flight), so an upload holds
 * 15 MiB whatever the object's size and makes no large garbage. (lib-storage concatenated each part into a new
 * buffer that outlived the young generation: storing a 500 MB video grew runs by 45–74 MB.) A put that fails
 * or grows past its limit is aborted, which removes its parts. Checksums are only sent where the API requires
 * them: several S3-compatible servers refuse the SDK's newer default trailers.
 */
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadBucketCommand,
  NoSuchKey,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
  UploadPartCommand,
  type CompletedPart,
} from '@aws-sdk/client-s3';
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

/** S3's smallest part (but the last). */
const PART_SIZE = 5 * 1024 * 1024;
/** Buffers per upload: parts in flight, and the one filling (which waits once all are in flight). */
const PART_BUFFERS = 3;

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
    const target = { Bucket: this.s.bucket, Key: checkKey(key) };
    const m = meter(opts.maxBytes);
    const upload = new PartUploads(this.client, target, opts.contentType);
    try {
      await pipeline(body, m, async (source: AsyncIterable<Buffer>) => {
        let part = await upload.buffer();
        let filled = 0;
        for await (const chunk of source) {
          for (let at = 0; at < chunk.length;) {
            const n = chunk.copy(part, filled, at);
            at += n;
            filled += n;
            if (filled === PART_SIZE) {
              await upload.send(part, filled);
              part = await upload.buffer();
              filled = 0;
            }
          }
        }
        await upload.finish(part, filled);
      });
    } catch (err) {
      await upload.abort();
      body.destroy();
      throw err;
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

/** One object's upload: its part buffers, the parts in flight, and the multipart upload once one part is full. */
class PartUploads {
  private uploadId: string | undefined;
  private readonly free: Buffer[] = [];
  private allocated = 0;
  private parts = 0;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly done: CompletedPart[] = [];
  private failed: unknown;

  constructor(
    private readonly client: S3Client,
    private readonly target: { Bucket: string; Key: string },
    private readonly contentType: string,
  ) {}

  /** A part buffer: a free one, a new one while fewer than PART_BUFFERS exist, else the next one freed. */
  async buffer(): Promise<Buffer> {
    for (;;) {
      if (this.failed) throw this.failed;
      const free = this.free.pop();
      if (free) return free;
      // allocUnsafe: pages are only touched as bytes arrive, so a small object costs what it holds.
      if (this.allocated < PART_BUFFERS) return (this.allocated++, Buffer.allocUnsafe(PART_SIZE));
      await Promise.race(this.inFlight);
    }
  }

  /** Starts uploading a full part; its buffer is free again once the part is stored. */
  async send(part: Buffer, length: number): Promise<void> {
    this.uploadId ??= (
      await this.client.send(new CreateMultipartUploadCommand({ ...this.target, ContentType: this.contentType }))
    ).UploadId;
    const PartNumber = ++this.parts;
    const sent = this.client
      .send(
        new UploadPartCommand({
          ...this.target,
          UploadId: this.uploadId,
          PartNumber,
          Body: part.subarray(0, length),
          ContentLength: length,
        }),
      )
      .then((res) => void this.done.push({ PartNumber, ETag: res.ETag }))
      .catch((err: unknown) => void (this.failed ??= err))
      .finally(() => {
        this.inFlight.delete(sent);
        this.free.push(part);
      });
    this.inFlight.add(sent);
  }

  /** The rest of the object: one PutObject if no part was full, else its last part and the completion. */
  async finish(part: Buffer, length: number): Promise<void> {
    if (this.uploadId === undefined) {
      await this.client.send(
        new PutObjectCommand({ ...this.target, ContentType: this.contentType, Body: part.subarray(0, length), ContentLength: length }),
      );
      return;
    }
    if (length > 0) await this.send(part, length);
    await Promise.all(this.inFlight);
    if (this.failed) throw this.failed;
    const Parts = this.done.sort((a, b) => a.PartNumber! - b.PartNumber!);
    await this.client.send(new CompleteMultipartUploadCommand({ ...this.target, UploadId: this.uploadId, MultipartUpload: { Parts } }));
  }

  /** Removes the parts stored so far (after a failure; best effort, the error that caused it is the answer). */
  async abort(): Promise<void> {
    await Promise.allSettled(this.inFlight);
    if (this.uploadId === undefined) return;
    await this.client.send(new AbortMultipartUploadCommand({ ...this.target, UploadId: this.uploadId })).catch(() => undefined);
  }
}
