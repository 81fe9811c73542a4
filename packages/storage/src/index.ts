export * from './store';
export { FilesystemStore } from './filesystem';
export type { S3Settings, S3Store } from './s3';
import { FilesystemStore } from './filesystem';
import type { S3Settings, S3Store } from './s3';
import type { ByteRange, ObjectStore, PutOptions } from './store';
import type { Readable } from 'node:stream';

export type StorageSettings = { kind: 'filesystem'; dir: string } | ({ kind: 's3' } & S3Settings);

/**
 * The S3 adapter, loaded on first use: the AWS SDK costs a process about 33 MB of memory, which a
 * filesystem installation (`make up`) never needs to pay.
 */
class LazyS3Store implements ObjectStore {
  readonly kind = 's3' as const;
  private loaded: Promise<S3Store> | undefined;

  constructor(private readonly settings: S3Settings) {}

  private store(): Promise<S3Store> {
    this.loaded ??= import('./s3.js').then((m) => new m.S3Store(this.settings));
    return this.loaded;
  }

  async ready() {
    return (await this.store()).ready();
  }
  async create() {
    return (await this.store()).create();
  }
  async put(key: string, body: Readable, opts: PutOptions) {
    return (await this.store()).put(key, body, opts);
  }
  async get(key: string, range?: ByteRange) {
    return (await this.store()).get(key, range);
  }
  async delete(keys: string[]) {
    return (await this.store()).delete(keys);
  }
}

/** The adapter the settings name. */
export function createObjectStore(s: StorageSettings): ObjectStore {
  return s.kind === 's3' ? new LazyS3Store(s) : new FilesystemStore(s.dir);
}
