/**
 * `callerOf` keeps the headers it has matched (internal-auth.ts): the answers must stay those of the caller list
 * asked, whichever header was seen first and whichever list saw it.
 */
import { callerOf, formatCallers, parseCallers } from '../../src';

const A = 'credential-a-of-at-least-32-characters';
const B = 'credential-b-of-at-least-32-characters';

describe('callerOf', () => {
  it('names the caller of a listed credential every time, and refuses others, also after a match', () => {
    const callers = parseCallers(formatCallers({ gateway: A }));
    expect(callerOf(`Bearer ${A}`, callers)).toBe('gateway');
    expect(callerOf(`Bearer ${A}`, callers)).toBe('gateway');
    expect(callerOf(`Bearer ${B}`, callers)).toBeUndefined();
    expect(callerOf(`Bearer ${B}`, callers)).toBeUndefined();
    expect(callerOf(A, callers)).toBeUndefined();
    expect(callerOf(undefined, callers)).toBeUndefined();
  });

  it('answers each caller list for itself: a credential one list names is unknown to another', () => {
    const first = parseCallers(formatCallers({ gateway: A }));
    const second = parseCallers(formatCallers({ runs: B }));
    expect(callerOf(`Bearer ${A}`, first)).toBe('gateway');
    expect(callerOf(`Bearer ${A}`, second)).toBeUndefined();
    expect(callerOf(`Bearer ${B}`, second)).toBe('runs');
    expect(callerOf(`Bearer ${B}`, first)).toBeUndefined();
    const renamed = parseCallers(formatCallers({ webhooks: A }));
    expect(callerOf(`Bearer ${A}`, renamed)).toBe('webhooks');
  });
});
