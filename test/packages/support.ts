/**
 * What the package tests share: `npm pack` of a built workspace, and a TypeScript check of a consumer's source from
 * ESM and CommonJS in a project that installed the tarballs.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

export const run = promisify(execFile);
export const ROOT = path.resolve(__dirname, '..', '..');
const TSC = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

export interface PackEntry {
  filename: string;
  files: { path: string }[];
  dependencies?: Record<string, string>;
}

export const npm = async (cwd: string, args: string[]) => (await run('npm', args, { cwd, maxBuffer: 16 * 1024 * 1024 })).stdout;

/** The workspace at `dir` packed into `dest` (it must have been built: both module formats). */
export async function pack(dir: string, dest: string): Promise<PackEntry> {
  for (const built of ['dist/cjs/index.js', 'dist/esm/index.js', 'dist/cjs/package.json', 'dist/esm/package.json'])
    if (!fs.existsSync(path.join(dir, built))) throw new Error(`${dir}/${built} is missing: run \`npm run build\` first`);
  const [entry] = JSON.parse(await npm(dir, ['pack', '--pack-destination', dest, '--json', '--loglevel=error'])) as PackEntry[];
  return entry!;
}

/** Type-checks `source` as types.mts and types.cts in `project` (strict, nodenext); rejects with tsc's output. */
export function typeCheck(project: string, source: string) {
  fs.writeFileSync(path.join(project, 'types.mts'), source);
  fs.writeFileSync(path.join(project, 'types.cts'), source);
  fs.writeFileSync(
    path.join(project, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        module: 'nodenext',
        moduleResolution: 'nodenext',
        target: 'es2022',
        lib: ['es2022', 'dom'],
        types: [],
        noEmit: true,
        skipLibCheck: true,
      },
      files: ['types.mts', 'types.cts'],
    }),
  );
  return run(process.execPath, [TSC, '-p', 'tsconfig.json'], { cwd: project });
}
