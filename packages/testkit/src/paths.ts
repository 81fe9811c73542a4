import path from 'node:path';

/** Repository root (this file is packages/testkit/{src,dist}/paths.*). */
export const REPO_ROOT = path.resolve(__dirname, '..', '..', '..');
export const INFRA_SCRIPT = path.join(REPO_ROOT, 'scripts', 'infra', 'infra.sh');
