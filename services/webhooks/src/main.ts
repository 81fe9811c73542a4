import path from 'node:path';
import { runMain } from '@assay/service-kit';
import { loadWebhooksConfig } from './config';
import { webhooksService } from './service';

runMain(() => webhooksService(loadWebhooksConfig(), path.join(__dirname, '..', 'migrations')));
