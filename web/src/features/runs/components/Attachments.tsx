/**
 * A result's attachments with their stored bytes: the trace opens in the trace viewer with one click (where the
 * browser can run it), screenshots
 * show inline, videos play in the page, everything downloads. Links are the signed URLs the API lists (valid for
 * an hour; the page reads them again when it is revisited). An attachment whose bytes were never uploaded shows
 * the path its reporter gave.
 */
import type { paths } from '@assay/client';
import { Breakable } from '../../../ui/Breakable';
import { formatBytes } from '../../../ui/format';
import { Empty } from '../../../ui/states';

type Detail = paths['/api/v1/public/{projectId}/test-cases/{caseId}']['get']['responses']['200']['content']['application/json']['data'];
type Attachment = Detail['overview']['attachments'][number];
interface Trace {
  retry: number;
  viewerUrl?: string | null;
}

const attempt = (retry: number) => `attempt ${retry + 1}`;

export function Attachments({ attachments, trace }: { attachments: Attachment[]; trace?: Trace | null }) {
  if (attachments.length === 0) return <Empty>The reporter listed no attachments.</Empty>;
  const stored = attachments.filter((a) => a.artifact);
  const images = stored.filter((a) => a.artifact!.contentType.startsWith('image/') && a.artifact!.contentType !== 'image/svg+xml');
  const videos = stored.filter((a) => a.artifact!.contentType.startsWith('video/'));
  return (
    <>
      {trace?.viewerUrl && window.isSecureContext ? (
        <p>
          <a className="button" href={trace.viewerUrl} target="_blank" rel="noopener noreferrer">
            Open trace ({attempt(trace.retry)})
          </a>
        </p>
      ) : trace?.viewerUrl ? (
        // The viewer runs in a service worker, which a browser registers on https and localhost only.
        <p className="callout">
          The trace viewer needs this app over https (or at localhost). Download the trace below and open it with{' '}
          <code>npx playwright show-trace</code>.
        </p>
      ) : null}
      {images.length + videos.length > 0 ? (
        <div className="media-grid">
          {images.map((a) => (
            <figure key={a.artifact!.id}>
              <a href={a.artifact!.url} target="_blank" rel="noopener noreferrer">
                <img src={a.artifact!.url} alt={`${a.name}, ${attempt(a.retry)}`} loading="lazy" />
              </a>
              <figcaption>
                {a.name}, {attempt(a.retry)}
              </figcaption>
            </figure>
          ))}
          {videos.map((a) => (
            <figure key={a.artifact!.id}>
              {/* eslint-disable-next-line jsx-a11y/media-has-caption -- a silent screen recording: nothing to caption */}
              <video src={a.artifact!.url} controls preload="metadata" aria-label={`${a.name}, ${attempt(a.retry)}`} />
              <figcaption>
                {a.name}, {attempt(a.retry)}
              </figcaption>
            </figure>
          ))}
        </div>
      ) : null}
      <div className="table-scroll">
        <table className="table">
          <caption className="visually-hidden">Attachments</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Type</th>
              <th scope="col">Attempt</th>
              <th scope="col">File</th>
            </tr>
          </thead>
          <tbody>
            {attachments.map((a, i) => (
              <tr key={i}>
                <td>{a.name}</td>
                <td className="mono">
                  <Breakable text={a.contentType} />
                </td>
                <td>{a.retry + 1}</td>
                <td className="mono">
                  {a.artifact ? (
                    <a href={a.artifact.url} download={a.artifact.fileName}>
                      <Breakable text={a.artifact.fileName} /> ({formatBytes(a.artifact.size)})
                    </a>
                  ) : a.path ? (
                    <Breakable text={a.path} />
                  ) : a.size !== undefined ? (
                    `inline, ${a.size} bytes`
                  ) : (
                    '—'
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}
