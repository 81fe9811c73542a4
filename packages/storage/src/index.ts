export * from './store';
export { FilesystemStore } from './filesystem';
export { S3Store, type S3Settings } from './s3';
import { FilesystemStore } from './filesystem';
import { S3Store, type S3Settings } from './s3';
import type { ObjectStore } from './store';

export type StorageSettings = { kind: 'filesystem'; dir: string } | ({ kind: 's3' } & S3Settings);

/** The adapter the settings name. */
export function createObjectStore(s: StorageSettings): ObjectStore {
  return s.kind === 's3' ? new S3Store(s) : new FilesystemStore(s.dir);
}
