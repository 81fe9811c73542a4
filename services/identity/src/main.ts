import { runMain } from '@assay/service-kit';
import { loadIdentityConfig } from './config';
import { identityService } from './service';

runMain(() => identityService(loadIdentityConfig()));
