/**
 * An ingestion body is read whole before any database work starts: a slow upload then never holds a database
 * connection or a lock while it trickles in. Up to SPOOL_MEMORY_BYTES it stays in memory; beyond, it goes to a
 * private temp file (INGEST_SPOOL_DIR), never into the heap, and is read back as a stream by the parser. At most
 * INGEST_MAX_LARGE_UPLOADS bodies per process are on disk at once (bounding the disk and the parsing work); one
 * more is refused with 503 and Retry-After.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '@assay/errors';

/** Bodies up to this size stay in memory (every result batch of a reporter; small reports). */
export const SPOOL_MEMORY_BYTES = 1024 * 1024;
const RETRY_AFTER_SECONDS = 5;

/** A counting semaphore: `tryTake` refuses at once when none is free, `take` waits for one. */
export class Slots {
  private free: number;
  private readonly waiting: (() => void)[] = [];

  constructor(size: number) {
    this.free = size;
  }

  tryTake(): boolean {
    if (this.free === 0) return false;
    this.free--;
    return true;
  }

  async take(): Promise<void> {
    if (this.tryTake()) return;
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.free++;
  }
}

/** Bytes as they come: a request stream, a file stream, or chunks already in memory. */
export type Chunks = AsyncIterable<Buffer | string> | Iterable<Buffer | string>;

export interface SpooledBody {
  size: number;
  /** Whether the body went to disk (over SPOOL_MEMORY_BYTES). */
  large: boolean;
  /** The bytes from the start, as a stream of chunks. */
  chunks(): Chunks;
  /** The whole body as UTF-8 text. */
  text(): Promise<string>;
  /** Removes the temp file and frees its slot (always call it). */
  dispose(): Promise<void>;
}

export interface SpoolOptions {
  /** Largest body accepted (413 above). */
  limit: number;
  dir: string;
  /** Bodies on disk at once, shared by the process. */
  diskSlots: Slots;
}

export async function spoolBody(source: Chunks, opts: SpoolOptions): Promise<SpooledBody> {
  const memory: Buffer[] = [];
  let size = 0;
  let file: { path: string; handle: fsp.FileHandle } | undefined;
  const dispose = async () => {
    if (!file) return;
    const f = file;
    file = undefined;
    await f.handle.close().catch(() => undefined);
    await fsp.rm(f.path, { force: true });
    opts.diskSlots.release();
  };
  try {
    for await (const raw of source) {
      const chunk = typeof raw === 'string' ? Buffer.from(raw) : raw;
      size += chunk.length;
      if (size > opts.limit) throw new AppError('PAYLOAD_TOO_LARGE', `Reports are limited to ${opts.limit} bytes`);
      if (!file && size <= SPOOL_MEMORY_BYTES) {
        memory.push(chunk);
        continue;
      }
      if (!file) {
        if (!opts.diskSlots.tryTake())
          throw new AppError('SERVICE_UNAVAILABLE', 'Too many large uploads are being processed; retry shortly', {
            headers: { 'retry-after': String(RETRY_AFTER_SECONDS) },
          });
        const p = path.join(opts.dir, `assay-ingest-${randomBytes(12).toString('hex')}.body`);
        try {
          file = { path: p, handle: await fsp.open(p, 'wx', 0o600) };
        } catch (err) {
          opts.diskSlots.release();
          throw err;
        }
        for (const m of memory.splice(0)) await file.handle.write(m);
      }
      await file.handle.write(chunk);
    }
  } catch (err) {
    await dispose();
    throw err;
  }
  const onDisk = file?.path;
  return {
    size,
    large: onDisk !== undefined,
    chunks: () => (onDisk ? fs.createReadStream(onDisk, { highWaterMark: 64 * 1024 }) : memory),
    text: async () => (onDisk ? fsp.readFile(onDisk, 'utf8') : Buffer.concat(memory).toString('utf8')),
    dispose,
  };
}
