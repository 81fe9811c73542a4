/**
 * Signed, short-lived download URLs. The keys are derived (HKDF) from this service's own credential, so no other
 * process can mint a link and no new secret needs deploying; rotating the credential ends every outstanding link
 * (they live an hour by default anyway). Expiry is rounded up to five minutes so that a page read twice lists
 * the same URLs (the browser's cache).
 *
 *   - One artifact: `/api/v1/artifacts/{id}?expires=<unix s>&signature=<HMAC-SHA256>`.
 *   - A run's uploaded HTML report, a folder: `/api/v1/artifacts/html/{runId}/{expires}.{signature}/{path}`.
 *     The signature covers the run and the expiry, not a file, so every path below it (`index.html`,
 *     `data/<sha1>.png`, …) is served: the report's relative links resolve to signed URLs by themselves. Its key
 *     comes from another HKDF `info` and its message has its own prefix, so neither kind of signature is ever
 *     valid as the other (an artifact id and a run id are both 24 hex characters).
 */
import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';

export const DOWNLOAD_PATH = '/api/v1/artifacts';
/** Under DOWNLOAD_PATH: the folder of a run's HTML report. */
export const HTML_REPORT_SEGMENT = 'html';
const ROUND_S = 300;
const EXPIRES = /^\d{1,12}$/;

export type Verdict = 'ok' | 'expired' | 'invalid';

export class ArtifactUrls {
  private readonly key: Buffer;
  private readonly reportKey: Buffer;
  private readonly base: string;

  constructor(
    credential: string,
    publicUrl: string,
    private readonly ttlSeconds: number,
  ) {
    this.key = Buffer.from(hkdfSync('sha256', credential, 'assay-runs', 'artifact download urls v1', 32));
    this.reportKey = Buffer.from(hkdfSync('sha256', credential, 'assay-runs', 'html report urls v1', 32));
    this.base = publicUrl.replace(/\/+$/, '');
  }

  private sign(artifactId: string, expires: number): string {
    return createHmac('sha256', this.key).update(`${artifactId}\n${expires}`).digest('base64url');
  }

  private signReport(runId: string, expires: number): string {
    return createHmac('sha256', this.reportKey).update(`html-report\n${runId}\n${expires}`).digest('base64url');
  }

  private expiry(now: Date): number {
    return Math.ceil((now.getTime() / 1000 + this.ttlSeconds) / ROUND_S) * ROUND_S;
  }

  /** The URL of an artifact, valid until `expiresAt`. */
  download(artifactId: string, now: Date): { url: string; expiresAt: Date } {
    const expires = this.expiry(now);
    const url = `${this.base}${DOWNLOAD_PATH}/${artifactId}?expires=${expires}&signature=${this.sign(artifactId, expires)}`;
    return { url, expiresAt: new Date(expires * 1000) };
  }

  verify(artifactId: string, expires: string | undefined, signature: string | undefined, now: Date): Verdict {
    if (!expires || !signature || !EXPIRES.test(expires)) return 'invalid';
    return check(this.sign(artifactId, Number(expires)), signature, Number(expires), now);
  }

  /** The URL of a run's HTML report (its `index.html`; any path below the signed folder is served). */
  htmlReport(runId: string, now: Date): { url: string; expiresAt: Date } {
    const expires = this.expiry(now);
    const url = `${this.base}${DOWNLOAD_PATH}/${HTML_REPORT_SEGMENT}/${runId}/${expires}.${this.signReport(runId, expires)}/index.html`;
    return { url, expiresAt: new Date(expires * 1000) };
  }

  /** Checks the `{expires}.{signature}` segment of a report URL for the run. */
  verifyHtmlReport(runId: string, token: string, now: Date): Verdict {
    const dot = token.indexOf('.');
    const expires = token.slice(0, dot);
    if (dot < 0 || !EXPIRES.test(expires)) return 'invalid';
    return check(this.signReport(runId, Number(expires)), token.slice(dot + 1), Number(expires), now);
  }
}

function check(want: string, given: string, expires: number, now: Date): Verdict {
  const a = Buffer.from(want);
  const b = Buffer.from(given);
  if (a.length !== b.length || !timingSafeEqual(a, b)) return 'invalid';
  return expires * 1000 <= now.getTime() ? 'expired' : 'ok';
}
