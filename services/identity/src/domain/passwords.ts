/**
 * Passwords of web app accounts: argon2id (the `argon2` library's defaults: 64 MiB, 3 passes, 4 lanes — about
 * 100 ms here), never stored or logged in clear. A sign-in with an unknown e-mail verifies against a fixed
 * dummy hash, so both failures take the same time and say the same thing (no user enumeration).
 */
import argon2 from 'argon2';
import { validation } from '@assay/errors';
import { characterCount } from '@assay/contracts/common/text';

export const MIN_PASSWORD_LENGTH = 12;
export const MAX_PASSWORD_LENGTH = 256;

let dummy: Promise<string> | undefined;

export function checkNewPassword(password: string): string {
  const length = characterCount(password);
  if (length < MIN_PASSWORD_LENGTH || length > MAX_PASSWORD_LENGTH) {
    throw validation(`the password must be ${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters`, [
      { path: 'body.password', message: `must be ${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters` },
    ]);
  }
  return password;
}

export const hashPassword = (password: string) => argon2.hash(password, { type: argon2.argon2id });

/** True when `password` matches `hash`; with no hash (unknown user, no password yet) false, in the same time. */
export async function verifyPassword(hash: string | null, password: string): Promise<boolean> {
  if (password.length === 0 || characterCount(password) > MAX_PASSWORD_LENGTH) return false;
  if (!hash) {
    dummy ??= hashPassword('an account that does not exist');
    await argon2.verify(await dummy, password);
    return false;
  }
  try {
    return await argon2.verify(hash, password);
  } catch {
    return false;
  }
}
