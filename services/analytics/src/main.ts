import { runMain } from '@assay/service-kit';
import { loadAnalyticsConfig } from './config';
import { analyticsService } from './service';

runMain(() => analyticsService(loadAnalyticsConfig()));
