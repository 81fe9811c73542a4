import { ConfigError } from '@assay/config';
import { loadGatewayConfig } from './config';
import { createLogger } from '@assay/logger';
import { migrate } from '@assay/db';
import { IDENTITY_SCHEMA, MIGRATIONS_DIR, startGateway } from './server';

async function main(): Promise<void> {
  const config = loadGatewayConfig();
  if (process.argv[2] === 'migrate') {
    await migrate({
      databaseUrl: config.DATABASE_URL,
      schema: IDENTITY_SCHEMA,
      dir: MIGRATIONS_DIR,
      logger: createLogger('gateway', config.LOG_LEVEL),
    });
    return;
  }
  const gateway = await startGateway(config);
  const stop = (signal: string) => {
    gateway.logger.info({ signal }, 'shutdown requested');
    const timer = setTimeout(() => process.exit(1), config.SHUTDOWN_GRACE_MS + 2000);
    timer.unref();
    gateway.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}

main().catch((err) => {
  process.stderr.write(
    err instanceof ConfigError
      ? `${err.message}\n`
      : `failed to start: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
  );
  process.exit(1);
});
