/** Collects every invalid field of a request, then fails once with all of them (400 VALIDATION_ERROR). */
import { validation, type Violation } from '@assay/errors';

export class Violations {
  readonly list: Violation[] = [];

  add(path: string, message: string): void {
    this.list.push({ path, message });
  }

  get empty(): boolean {
    return this.list.length === 0;
  }

  /** Throws VALIDATION_ERROR naming the first violation and listing all of them in `details`. */
  throwIfAny(): void {
    const first = this.list[0];
    if (first) throw validation(`${first.path}: ${first.message}`, this.list);
  }
}

/** Fails at once with one violation. */
export function invalid(path: string, message: string): never {
  throw validation(`${path}: ${message}`, [{ path, message }]);
}

/** Checks a required, non-blank name of at most `max` characters. */
export function checkName(name: string, max: number, path: string, v: Violations): void {
  if (name.trim().length === 0) v.add(path, 'must not be empty');
  else if ([...name].length > max) v.add(path, `must be at most ${max} characters`);
}

/** Checks a string of at most `max` characters (counted as code points, like JSON Schema's maxLength). */
export function checkLength(value: string | undefined, max: number, path: string, v: Violations): void {
  if (value !== undefined && [...value].length > max) v.add(path, `must be at most ${max} characters`);
}
