import { runMain } from '@assay/service-kit';
import { loadRunsConfig } from './config';
import { runsService } from './service';

runMain(() => runsService(loadRunsConfig()));
