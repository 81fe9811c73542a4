/**
 * Signed, short-lived download URLs: `/api/v1/artifacts/{id}?expires=<unix s>&signature=<HMAC-SHA256>`. The key
 * is derived (HKDF) from this service's own credential, so no other process can mint a link and no new secret
 * needs deploying; rotating the credential ends every outstanding link (they live an hour by default anyway).
 * Expiry is rounded up to five minutes so that a page read twice lists the same URLs (the browser's cache).
 */
import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';

export const DOWNLOAD_PATH = '/api/v1/artifacts';
const ROUND_S = 300;

export type Verdict = 'ok' | 'expired' | 'invalid';

export class ArtifactUrls {
  private readonly key: Buffer;
  private readonly base: string;

  constructor(
    credential: string,
    publicUrl: string,
    private readonly ttlSeconds: number,
  ) {
    this.key = Buffer.from(hkdfSync('sha256', credential, 'assay-runs', 'artifact download urls v1', 32));
    this.base = publicUrl.replace(/\/+$/, '');
  }

  private sign(artifactId: string, expires: number): string {
    return createHmac('sha256', this.key).update(`${artifactId}\n${expires}`).digest('base64url');
  }

  /** The URL of an artifact, valid until `expiresAt`. */
  download(artifactId: string, now: Date): { url: string; expiresAt: Date } {
    const expires = Math.ceil((now.getTime() / 1000 + this.ttlSeconds) / ROUND_S) * ROUND_S;
    const url = `${this.base}${DOWNLOAD_PATH}/${artifactId}?expires=${expires}&signature=${this.sign(artifactId, expires)}`;
    return { url, expiresAt: new Date(expires * 1000) };
  }

  verify(artifactId: string, expires: string | undefined, signature: string | undefined, now: Date): Verdict {
    if (!expires || !signature || !/^\d{1,12}$/.test(expires)) return 'invalid';
    const want = Buffer.from(this.sign(artifactId, Number(expires)));
    const got = Buffer.from(signature);
    if (want.length !== got.length || !timingSafeEqual(want, got)) return 'invalid';
    return Number(expires) * 1000 <= now.getTime() ? 'expired' : 'ok';
  }
}
