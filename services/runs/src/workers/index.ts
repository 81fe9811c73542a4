import type { Worker } from '@assay/service-kit';
import type { Wiring } from '../wiring';
import { outboxRelay } from './outbox-relay';
import { sweeper } from './sweeper';
import { linker } from './linker';
import { artifactSweeper } from './artifact-sweeper';

/**
 * Stopped in reverse: the artifact sweeper, the linker, the sweeper, the relay (it publishes what it holds), then
 * the broker client.
 */
export function workers(w: Wiring): Worker[] {
  const relay = outboxRelay({ pool: w.pool, bus: w.bus, logger: w.logger, pollMs: w.config.OUTBOX_POLL_INTERVAL_MS, clock: w.clock });
  w.onEvents(() => relay.kick());
  const link = linker(w);
  w.onLinks(() => link.kick());
  const busCloser = { name: 'kafka-client', start: async () => undefined, stop: () => w.bus.close() };
  return [busCloser, relay, sweeper(w), link, artifactSweeper(w)];
}
