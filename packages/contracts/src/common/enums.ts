/**
 * A closed value set between its JSON spelling and its proto enum, declared once as pairs. `toProto` of an
 * unknown spelling gives the enum's 0 (UNSPECIFIED), which services refuse; `fromProto` of an unknown value
 * throws (a service answered something the contract does not have: a bug, not bad input).
 */
export interface EnumMap<S extends string, E extends number> {
  names: readonly S[];
  toProto(name: S): E;
  fromProto(value: E): S;
}

export function enumMap<S extends string, E extends number>(pairs: readonly (readonly [S, E])[]): EnumMap<S, E> {
  const byName = new Map<string, E>(pairs);
  const byValue = new Map<number, S>(pairs.map(([s, e]) => [e, s]));
  return {
    names: pairs.map(([s]) => s),
    toProto: (name) => byName.get(name) ?? (0 as E),
    fromProto: (value) => {
      const name = byValue.get(value);
      if (name === undefined) throw new Error(`no JSON spelling for enum value ${value}`);
      return name;
    },
  };
}

/**
 * The map of a value set whose proto enum names every value as the spec spells it, in UPPER_SNAKE (`timedOut` ↔
 * `TIMED_OUT`, `passed` ↔ `PASSED`): the pairs follow from the value set, so it is written once. A value the
 * enum lacks fails when the module loads.
 */
export function enumOf<S extends string, E extends number>(values: readonly S[], protoEnum: Record<string, E | string>): EnumMap<S, E> {
  return enumMap<S, E>(
    values.map((value) => {
      const name = value.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase();
      const number = protoEnum[name];
      if (typeof number !== 'number') throw new Error(`the proto enum has no ${name} for "${value}"`);
      return [value, number] as const;
    }),
  );
}
