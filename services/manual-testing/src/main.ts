import { runMain } from '@assay/service-kit';
import { loadManualTestingConfig } from './config';
import { manualTestingService } from './service';

runMain(() => manualTestingService(loadManualTestingConfig()));
