/** Checks of admin input (the CLI validates too; the service is the one that must). */
import { validation } from '@assay/errors';
import { ID_PATTERN } from '@assay/db';
import { characterCount } from '@assay/contracts/common/text';

export function requireText(value: string, field: string, max = 255): string {
  const v = value.trim();
  if (v.length === 0) throw validation(`${field} is required (1-${max} characters)`, [{ path: field, message: 'required' }]);
  if (characterCount(v) > max)
    throw validation(`${field} must be at most ${max} characters`, [{ path: field, message: `must be at most ${max} characters` }]);
  return v;
}

export function requireId(value: string, field: string): string {
  if (!ID_PATTERN.test(value)) throw validation(`${field} is not a valid id`, [{ path: field, message: 'invalid id' }]);
  return value;
}

export function requireEmail(value: string): string {
  const email = requireText(value, 'email', 320);
  if (!/^[^\s@]+@[^\s@]+$/.test(email)) throw validation('email is not an e-mail address', [{ path: 'email', message: 'invalid' }]);
  return email;
}
