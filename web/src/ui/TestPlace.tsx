import { Breakable } from './Breakable';

/**
 * Where a test lives: its spec file, then its Playwright project when it has one. The same title and file in two
 * projects are two tests, so every page that names a test beside its title says both.
 */
export function TestPlace({ file, projectName }: { file: string; projectName?: string }) {
  return (
    <>
      <span className="mono">
        <Breakable text={file} />
      </span>
      {projectName ? ` · ${projectName}` : null}
    </>
  );
}
