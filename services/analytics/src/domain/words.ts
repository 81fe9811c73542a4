/** `['a', 'b', 'c']` → `a, b or c` (how the service's validation messages list the allowed values). */
export const either = (values: readonly (string | number)[]): string =>
  values.length > 1 ? `${values.slice(0, -1).join(', ')} or ${values.at(-1)}` : values.join('');
