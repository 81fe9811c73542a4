import { ConfigError, credentialHash, formatCallers, IntList, IntMap, loadConfig, parseCallers, Port, serviceSettings, Type } from '../src';

describe('loadConfig', () => {
  const Schema = Type.Object({
    PORT: Port(8080),
    NAME: Type.String({ minLength: 1, default: 'assay' }),
    DELAYS: IntList('60,300'),
    LIMITS: IntMap({ reads: 100, writes: 60 }),
  });

  it('applies defaults and converts strings', () => {
    const c = loadConfig(Schema, { PORT: '9090' });
    expect(c).toEqual({ PORT: 9090, NAME: 'assay', DELAYS: [60, 300], LIMITS: { reads: 100, writes: 60 } });
  });

  it('treats an empty variable as unset', () => {
    expect(loadConfig(Schema, { PORT: '' }).PORT).toBe(8080);
  });

  it('parses lists and maps, keeping defaults for keys not given', () => {
    const c = loadConfig(Schema, { DELAYS: '1, 2,3', LIMITS: 'reads=5' });
    expect(c.DELAYS).toEqual([1, 2, 3]);
    expect(c.LIMITS).toEqual({ reads: 5, writes: 60 });
  });

  it('refuses invalid values naming every bad variable', () => {
    let err: unknown;
    try {
      loadConfig(Schema, { PORT: 'abc' });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).message).toContain('PORT');
    expect(() => loadConfig(Schema, { PORT: '70000' })).toThrow(/PORT/);
    // An integer setting is not truncated from a fraction or an exponent.
    for (const port of ['8080.5', '8e3', '0x1f90']) expect(() => loadConfig(Schema, { PORT: port })).toThrow(/PORT: Expected integer/);
    expect(loadConfig(Schema, { PORT: ' 8081 ' }).PORT).toBe(8081);
    expect(() => loadConfig(Schema, { LIMITS: 'bogus=1' })).toThrow(/unknown key "bogus"/);
    expect(() => loadConfig(Schema, { LIMITS: 'reads=0' })).toThrow(/positive integer/);
    expect(() => loadConfig(Schema, { DELAYS: '1,x' })).toThrow(/not a non-negative integer/);
  });

  const CREDENTIAL = 'c'.repeat(32);
  const CALLERS = formatCallers({ gateway: 'g'.repeat(32), admin: 'a'.repeat(32) });

  it('requires settings without a default', () => {
    const S = Type.Object(serviceSettings(1, 2));
    expect(() => loadConfig(S, {})).toThrow(/INTERNAL_AUTH_TOKEN[\s\S]*INTERNAL_CALLERS|INTERNAL_CALLERS[\s\S]*INTERNAL_AUTH_TOKEN/);
    const c = loadConfig(S, { INTERNAL_AUTH_TOKEN: CREDENTIAL, INTERNAL_CALLERS: CALLERS, KAFKA_BROKERS: 'a:1,b:2' });
    expect(c.KAFKA_BROKERS).toEqual(['a:1', 'b:2']);
    expect(c.RPC_PORT).toBe(1);
    expect([...c.INTERNAL_CALLERS.values()].sort()).toEqual(['admin', 'gateway']);
    expect(c.INTERNAL_CALLERS.get(credentialHash('g'.repeat(32)))).toBe('gateway');
  });

  it('accepts two credentials of one caller (rotation without downtime)', () => {
    const callers = parseCallers(`${formatCallers({ gateway: 'o'.repeat(32) })},${formatCallers({ gateway: 'n'.repeat(32) })}`);
    expect(callers.get(credentialHash('o'.repeat(32)))).toBe('gateway');
    expect(callers.get(credentialHash('n'.repeat(32)))).toBe('gateway');
  });

  it('refuses an internal credential under 32 characters and a malformed callers list', () => {
    const S = Type.Object(serviceSettings(1, 2));
    expect(() => loadConfig(S, { INTERNAL_AUTH_TOKEN: 'short', INTERNAL_CALLERS: CALLERS })).toThrow(/INTERNAL_AUTH_TOKEN/);
    expect(() => loadConfig(S, { INTERNAL_AUTH_TOKEN: CREDENTIAL, INTERNAL_CALLERS: 'gateway:nothex' })).toThrow(
      /INTERNAL_CALLERS: entry 1 is not name:sha256hex/,
    );
    // A credential pasted where its hash belongs is never echoed back.
    let message = '';
    try {
      loadConfig(S, { INTERNAL_AUTH_TOKEN: CREDENTIAL, INTERNAL_CALLERS: `gateway:${'s3cret'.repeat(8)}` });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toContain('INTERNAL_CALLERS');
    expect(message).not.toContain('s3cret');
  });
});
