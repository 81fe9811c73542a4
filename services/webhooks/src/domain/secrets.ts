/**
 * Signing secrets: generated here, shown once, stored encrypted.
 *
 * Encryption at rest: AES-256-GCM (node:crypto). The 32-byte key is derived from the `SECRETS_KEY` setting
 * with HKDF-SHA256 (salt `assay`, info `assay/webhooks/signing-secret/v1`), so any long random string works
 * as `SECRETS_KEY` (the chart generates 48 characters). Each value gets a fresh 12-byte IV; the subscription
 * id is bound as additional authenticated data, so a ciphertext copied onto another row does not decrypt.
 * Stored form: `v1.<iv base64url>.<tag base64url>.<ciphertext base64url>`; the `v1` names the key
 * derivation, so a later key rotation can tell old values apart.
 */
import { createCipheriv, createDecipheriv, createSecretKey, hkdfSync, randomBytes, type KeyObject } from 'node:crypto';

const HKDF_SALT = 'assay';
const HKDF_INFO = 'assay/webhooks/signing-secret/v1';

/** `whsec_` + 32 random bytes (base64url). The HMAC key is this whole string's UTF-8 bytes. */
export function generateSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

const TAG_BYTES = 16;

export class SecretBox {
  /**
   * A KeyObject rather than a Buffer: the cipher then does not import the key afresh every time (a decryption per
   * delivery attempt took 6× as long, 16% of the webhooks process's busy CPU in the webhook-fanout profile).
   */
  readonly #key: KeyObject;

  constructor(secretsKey: string) {
    if (secretsKey.length < 32) throw new Error('SECRETS_KEY must be at least 32 characters');
    this.#key = createSecretKey(Buffer.from(hkdfSync('sha256', Buffer.from(secretsKey, 'utf8'), HKDF_SALT, HKDF_INFO, 32)));
  }

  encrypt(plain: string, aad: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(aad, 'utf8'));
    const ct = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ct.toString('base64url')].join('.');
  }

  decrypt(stored: string, aad: string): string {
    const [version, iv, tag, ct] = stored.split('.');
    if (version !== 'v1' || !iv || !tag || ct === undefined) throw new Error('unknown secret format');
    // The tag length is pinned: a shortened tag (forgeable by brute force) is refused, not accepted.
    const authTag = Buffer.from(tag, 'base64url');
    if (authTag.length !== TAG_BYTES) throw new Error('unknown secret format');
    const decipher = createDecipheriv('aes-256-gcm', this.#key, Buffer.from(iv, 'base64url'), { authTagLength: TAG_BYTES });
    decipher.setAAD(Buffer.from(aad, 'utf8'));
    decipher.setAuthTag(authTag);
    return Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]).toString('utf8');
  }
}
