/** Collects every invalid field of a request, then fails once with all of them (400 VALIDATION_ERROR). */
import { validation, type Violation } from '@assay/errors';
import type { EnumMap } from '@assay/contracts/common/enums';
import { characterCount } from '@assay/contracts/common/text';

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
  else if (characterCount(name) > max) v.add(path, `must be at most ${max} characters`);
}

/** Checks a string of at most `max` characters (counted as code points, like JSON Schema's maxLength). */
export function checkLength(value: string | undefined, max: number, path: string, v: Violations): void {
  if (value !== undefined && characterCount(value) > max) v.add(path, `must be at most ${max} characters`);
}

/** The message of a value outside a closed set whose display forms are accepted too. */
const oneOf = (names: readonly string[]) => `must be one of ${names.join(', ')} (display forms such as "Not set" are accepted)`;

/** The JSON name of a proto enum value; a violation at `path` (and undefined) when it is UNSPECIFIED or unknown. */
export function enumName<S extends string, E extends number>(
  map: EnumMap<S, E>,
  value: E,
  path: string,
  v: Violations,
  message = oneOf(map.names),
): S | undefined {
  if (value !== 0 && map.names.some((n) => map.toProto(n) === value)) return map.fromProto(value);
  v.add(path, message);
  return undefined;
}
