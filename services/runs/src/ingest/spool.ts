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
import { pipeline } from 'node:stream/promises';
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

/**
 * What the spool file's stream holds ahead of the disk at most: the body keeps arriving while earlier chunks are
 * written, and the chunks that queue meanwhile go in one writev. Awaiting each 64 KiB write before reading on took
 * 8–19 ms of the 10–29 ms a 7.5 MiB body took to spool; without it the bench's 10,000-test upload took 0.273–0.289 s
 * against 0.291–0.347 (`make up`, medians of four sets each), the runs service's CPU about 30 ms less.
 */
const WRITE_AHEAD_BYTES = 4 * 1024 * 1024;

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
  /** The body's chunks as Buffers, counted against the limit (413 above it). */
  const counted = (async function* () {
    for await (const raw of source) {
      const chunk = typeof raw === 'string' ? Buffer.from(raw) : raw;
      size += chunk.length;
      if (size > opts.limit) throw new AppError('PAYLOAD_TOO_LARGE', `Reports are limited to ${opts.limit} bytes`);
      yield chunk;
    }
  })();
  try {
    // In memory up to SPOOL_MEMORY_BYTES; the chunk that goes beyond starts the file.
    let next = await counted.next();
    for (; !next.done && size <= SPOOL_MEMORY_BYTES; next = await counted.next()) memory.push(next.value);
    if (!next.done) {
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
      const first = next.value;
      await pipeline(
        async function* () {
          yield* memory.splice(0);
          yield first;
          yield* counted;
        },
        file.handle.createWriteStream({ highWaterMark: WRITE_AHEAD_BYTES }),
      );
    }
  } catch (err) {
    // Stops reading the body (a refusal answers before it has all arrived).
    await counted.return(undefined).catch(() => undefined);
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
