/**
 * A finished run's stored files: the HTML report its uploader sent (opened in a new tab from its signed folder
 * URL, where its relative links load too and it runs sandboxed in an opaque origin) and the other run-level
 * files, with what the run stores in all.
 * Nothing shows for a run that stored nothing.
 */
import { formatBytes } from '../../../ui/format';
import { useRunArtifacts } from '../data';

interface StoredFile {
  id: string;
  path: string;
  fileName: string;
  size: number;
  url: string;
}

const FILES_SHOWN = 20;

export function RunArtifacts({ projectId, runId, finished }: { projectId: string; runId: string; finished: boolean }) {
  const read = useRunArtifacts(projectId, runId, finished);
  const artifacts = read.data?.data.artifacts;
  if (!artifacts || (artifacts.storedBytes === 0 && !artifacts.htmlReport)) return null;
  const files = artifacts.files as unknown as StoredFile[];
  return (
    <section aria-labelledby="artifacts-title">
      <h2 id="artifacts-title">Stored files</h2>
      <p>
        {artifacts.htmlReport ? (
          <>
            <a className="button" href={artifacts.htmlReport} target="_blank" rel="noopener noreferrer">
              Open the HTML report
            </a>{' '}
          </>
        ) : null}
        <span className="muted">{formatBytes(artifacts.storedBytes)} stored for this run</span>
      </p>
      {files.length > 0 ? (
        <ul aria-label="Run files">
          {files.slice(0, FILES_SHOWN).map((f) => (
            <li key={f.id}>
              <a href={f.url} target="_blank" rel="noopener noreferrer" className="mono">
                {f.path}
              </a>{' '}
              <span className="muted">({formatBytes(f.size)})</span>
            </li>
          ))}
          {files.length > FILES_SHOWN ? <li className="muted">and {files.length - FILES_SHOWN} more</li> : null}
        </ul>
      ) : null}
    </section>
  );
}
