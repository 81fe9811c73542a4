import { runMain } from '@assay/service-kit';
import { loadWebhooksConfig } from './config';
import { webhooksService } from './service';

runMain(() => webhooksService(loadWebhooksConfig()));
