import { runMain } from '@assay/service-kit';
import { loadReportsConfig } from './config';
import { reportsService } from './service';

runMain(() => reportsService(loadReportsConfig()));
