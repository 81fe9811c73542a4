/** Checks of the contract's value sets on what callers send (the gateway validated them first; other callers too). */
import { validation } from '@assay/errors';
import type { EnumMap } from '@assay/contracts/common/enums';

/** The JSON spelling of a proto enum value a caller sent; 400 at `path` for UNSPECIFIED or a value the contract lacks. */
export function enumValue<S extends string, E extends number>(map: EnumMap<S, E>, value: E, path: string): S {
  const name = map.names.find((n) => map.toProto(n) === value);
  if (value === 0 || name === undefined)
    throw validation(`${path} must be one of ${map.names.join(', ')}`, [{ path, message: `must be one of ${map.names.join(', ')}` }]);
  return name;
}
