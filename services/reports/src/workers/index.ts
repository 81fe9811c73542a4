import type { Worker } from '@assay/service-kit';
import type { Wiring } from '../wiring';
import { Generator } from './generator';
import { retentionSweeper } from './sweeper';

/** Stopped in reverse: the sweeper first, then the generator finishes the reports in hand. */
export function workers(w: Wiring): Worker[] {
  const generator = new Generator(w);
  w.onWake(() => generator.wake());
  return [generator, retentionSweeper(w)];
}
