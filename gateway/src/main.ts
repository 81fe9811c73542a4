import { ConfigError } from '@assay/config';
import { loadGatewayConfig } from './config';
import { startGateway } from './server';

async function main(): Promise<void> {
  const config = loadGatewayConfig();
  // Signals are handled from the first moment: a SIGTERM while starting waits for the start, then drains.
  const started = startGateway(config);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    const timer = setTimeout(() => process.exit(1), config.SHUTDOWN_GRACE_MS + 2000);
    timer.unref();
    void started.then((gateway) => {
      gateway.logger.info({ signal }, 'shutdown requested');
      gateway.close().then(
        () => process.exit(0),
        () => process.exit(1),
      );
    });
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
  await started;
}

main().catch((err) => {
  process.stderr.write(
    err instanceof ConfigError
      ? `${err.message}\n`
      : `failed to start: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
  );
  process.exit(1);
});
