/**
 * The last step of a dual (ESM + CommonJS) package build: tsc writes both trees, this marks each one's module
 * format with a one-line package.json, so Node (and TypeScript reading the .d.ts next to them) takes
 * dist/esm/*.js as ES modules and dist/cjs/*.js as CommonJS whatever the package's own `type` says.
 *
 *   node ../../scripts/lib/dual-package.mjs        (run in the package folder, after both tsc builds)
 */
import fs from 'node:fs';
import path from 'node:path';

for (const [dir, type] of [
  ['dist/esm', 'module'],
  ['dist/cjs', 'commonjs'],
]) {
  if (!fs.existsSync(path.join(dir, 'index.js'))) {
    process.stderr.write(`dual-package: ${path.resolve(dir)}/index.js is missing (build it first)\n`);
    process.exit(1);
  }
  fs.writeFileSync(path.join(dir, 'package.json'), `${JSON.stringify({ type }, null, 2)}\n`);
}
