/**
 * Objects as files under one folder (the default of `make up`). A put writes a temporary file next to its
 * target and renames it when the whole body has arrived, so a reader never sees half an object and a failed
 * or oversized upload leaves nothing.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import { checkKey, meter, type ByteRange, type ObjectRead, type ObjectStore, type PutOptions, type StoredObject } from './store';

export class FilesystemStore implements ObjectStore {
  readonly kind = 'filesystem' as const;

  constructor(private readonly root: string) {}

  private file(key: string): string {
    return path.join(this.root, ...checkKey(key).split('/'));
  }

  async ready(): Promise<boolean> {
    try {
      await fs.promises.mkdir(this.root, { recursive: true, mode: 0o700 });
      await fs.promises.access(this.root, fs.constants.W_OK);
      return true;
    } catch {
      return false;
    }
  }

  async create(): Promise<void> {
    await fs.promises.mkdir(this.root, { recursive: true, mode: 0o700 });
  }

  async put(key: string, body: Readable, opts: PutOptions): Promise<StoredObject> {
    const target = this.file(key);
    await fs.promises.mkdir(path.dirname(target), { recursive: true, mode: 0o700 });
    const tmp = `${target}.part-${randomBytes(6).toString('hex')}`;
    const m = meter(opts.maxBytes);
    try {
      await pipeline(body, m, fs.createWriteStream(tmp, { mode: 0o600 }));
      await fs.promises.rename(tmp, target);
    } catch (err) {
      await fs.promises.rm(tmp, { force: true });
      throw err;
    }
    return m.result();
  }

  async get(key: string, range?: ByteRange): Promise<ObjectRead | null> {
    const file = this.file(key);
    let handle: fs.promises.FileHandle;
    try {
      handle = await fs.promises.open(file, 'r');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
    const { size } = await handle.stat();
    // The stream owns the handle: a concurrent delete cannot cut a download short.
    const body = handle.createReadStream(range ? { start: range.start, end: range.end } : {});
    return { body, size };
  }

  async delete(keys: string[]): Promise<void> {
    for (const key of keys) await fs.promises.rm(this.file(key), { force: true });
  }
}
