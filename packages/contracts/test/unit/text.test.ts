/** `characterCount`: characters as the API's limits count them (code points), whatever their UTF-16 length. */
import { characterCount } from '../../src/common/text';

describe('characterCount', () => {
  it('counts an emoji as one character, a combining mark as its own, and plain text as its length', () => {
    expect(characterCount('')).toBe(0);
    expect(characterCount('Pay by card')).toBe(11);
    expect(['🔑'.length, characterCount('🔑🔑')]).toEqual([2, 2]);
    expect(characterCount('e\u0301')).toBe(2);
    expect(characterCount('שלום')).toBe(4);
  });
});
