/**
 * The dependency check of `make test` (knip, configured in knip.jsonc): every workspace declares exactly what it
 * imports. It passes on the repository, and it fails on a copy in which one workspace imports a package it does
 * not declare (@assay/config without @sinclair/typebox, the bug that once shipped images unable to start) and on
 * one that declares a package it never imports.
 */
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from '@assay/testkit';

const run = promisify(execFile);
const KNIP = path.join(REPO_ROOT, 'node_modules', '.bin', 'knip');
jest.setTimeout(120_000);

async function knip(cwd: string): Promise<{ code: number; out: string }> {
  return run(KNIP, ['--no-config-hints', '--no-progress'], { cwd, env: { ...process.env, NO_COLOR: '1' } }).then(
    (r) => ({ code: 0, out: r.stdout + r.stderr }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, out: e.stdout + e.stderr }),
  );
}

/** The repository's tracked and new (not ignored) files in a temporary folder, sharing its node_modules. */
function copyOfRepo(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-deps-'));
  const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard'], { cwd: REPO_ROOT, encoding: 'utf8' })
    .split('\n')
    .filter((f) => f && fs.existsSync(path.join(REPO_ROOT, f)));
  for (const f of files) {
    fs.mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    fs.copyFileSync(path.join(REPO_ROOT, f), path.join(dir, f));
  }
  fs.symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  return dir;
}

function editManifest(dir: string, workspace: string, edit: (pkg: any) => void): void {
  const file = path.join(dir, workspace, 'package.json');
  const pkg = JSON.parse(fs.readFileSync(file, 'utf8'));
  edit(pkg);
  fs.writeFileSync(file, JSON.stringify(pkg, null, 2));
}

describe('dependency check (knip)', () => {
  it('passes on the repository', async () => {
    const result = await knip(REPO_ROOT);
    expect(result).toEqual({ code: 0, out: '' });
  });

  it('fails on an imported package that the workspace does not declare, naming the package and the file', async () => {
    const dir = copyOfRepo();
    try {
      editManifest(dir, 'packages/config', (pkg) => delete pkg.dependencies['@sinclair/typebox']);
      const result = await knip(dir);
      expect(result.code).not.toBe(0);
      expect(result.out).toMatch(/Unlisted dependencies[\s\S]*@sinclair\/typebox\s+packages\/config\/src\/index\.ts/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('fails on a declared package that nothing imports', async () => {
    const dir = copyOfRepo();
    try {
      editManifest(dir, 'services/manual-testing', (pkg) => (pkg.dependencies['left-pad'] = '1.3.0'));
      const result = await knip(dir);
      expect(result.code).not.toBe(0);
      expect(result.out).toMatch(/Unused dependencies[\s\S]*left-pad\s+services\/manual-testing\/package\.json/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
