import path from 'node:path';
import { runMain } from '@assay/service-kit';
import { loadManualTestingConfig } from './config';
import { routes } from './routes';

runMain(() => ({
  name: 'manual-testing',
  config: loadManualTestingConfig(),
  db: { schema: 'manual_testing', migrationsDir: path.join(__dirname, '..', 'migrations') },
  routes,
}));
