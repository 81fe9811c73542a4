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
