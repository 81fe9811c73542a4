/**
 * Retention: artifacts whose `expires_at` has passed (the project's retention, a compatibility
 * upload no report claimed) lose their object first, then their row, so a crash in between leaves a row that
 * the next pass deletes again, never an object nobody can find. Expired compatibility uploads go too.
 */
import { Loop, type Worker } from '@assay/service-kit';
import type { Wiring } from '../wiring';
import { deleteArtifactRows, deleteExpiredUploads, expiredArtifacts } from '../store/artifacts';
import { UPLOAD_TTL_MS } from '../artifacts/artifacts';

const BATCH = 200;

/** One pass: answers how many artifacts it deleted (BATCH means there may be more). */
export async function sweepArtifactsOnce(w: Wiring): Promise<number> {
  const now = w.clock();
  const expired = await expiredArtifacts(w.pool, now, BATCH);
  if (expired.length > 0) {
    await w.artifacts.store.delete(expired.map((a) => a.storageKey));
    await deleteArtifactRows(
      w.pool,
      expired.map((a) => a.id),
    );
    w.logger.info({ deleted: expired.length }, 'expired artifacts deleted');
  }
  await deleteExpiredUploads(w.pool, new Date(now.getTime() - UPLOAD_TTL_MS));
  return expired.length;
}

/**
 * The sweeper, after a check of the storage at start: a folder is created; a missing bucket is created only
 * with S3_CREATE_BUCKET, else reported (uploads then answer 500 until it exists; reads keep working).
 */
export function artifactSweeper(w: Wiring): Worker {
  const loop = new Loop(
    'artifact-sweeper',
    async () => (await sweepArtifactsOnce(w)) === BATCH,
    w.config.ARTIFACT_SWEEP_INTERVAL_MS,
    w.logger,
  );
  const store = w.artifacts.store;
  return {
    name: loop.name,
    async start() {
      if (store.kind === 'filesystem' || (!(await store.ready()) && w.config.S3_CREATE_BUCKET))
        await store.create().catch((err: unknown) => w.logger.error({ err }, 'could not create the artifact storage'));
      if (!(await store.ready())) w.logger.error({ storage: store.kind }, 'artifact storage is not usable: uploads will fail until it is');
      await loop.start();
    },
    stop: () => loop.stop(),
  };
}
