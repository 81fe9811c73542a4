import { Code, ConnectError } from '@connectrpc/connect';
import { AppError, ERROR_TABLE, fromConnectError, MAX_ERROR_TEXT, MAX_VIOLATIONS, Reasons, toConnectError, toEnvelope } from '../src';

describe('the error table', () => {
  it('has a row for every reason', () => {
    for (const r of Reasons) expect(ERROR_TABLE[r]).toBeDefined();
  });

  it.each(Reasons.filter((r) => r !== 'INTERNAL_ERROR'))('%s survives the RPC boundary with its message and details', (reason) => {
    const original = new AppError(reason, `msg for ${reason}`, { details: [{ path: 'body.name', message: 'too long' }] });
    const ce = toConnectError(original);
    expect(ce.code).toBe(ERROR_TABLE[reason].connect);
    const back = fromConnectError(ce);
    expect(back.reason).toBe(reason);
    expect(back.httpStatus).toBe(ERROR_TABLE[reason].http);
    expect(back.message).toBe(`msg for ${reason}`);
    expect(back.details).toEqual([{ path: 'body.name', message: 'too long' }]);
  });

  it('turns an unexpected error into INTERNAL_ERROR without leaking its text', () => {
    const ce = toConnectError(new Error('duplicate key value violates unique constraint "users_pkey" on host db-1.internal'));
    expect(ce.code).toBe(Code.Internal);
    expect(ce.message).not.toMatch(/duplicate|db-1/);
    const env = toEnvelope(fromConnectError(ce));
    expect(env).toEqual({ success: false, error: { code: 'INTERNAL_ERROR', message: 'Internal server error' } });
  });

  it('maps a transport failure to SERVICE_UNAVAILABLE with Retry-After and no host in the message', () => {
    const err = fromConnectError(new ConnectError('connect ECONNREFUSED 10.0.0.7:7201', Code.Unavailable));
    expect(err.reason).toBe('SERVICE_UNAVAILABLE');
    expect(err.message).not.toContain('10.0.0.7');
    expect(err.headers).toEqual({ 'Retry-After': '5' });
  });

  it('maps a call the service dropped mid-way (it died: ECONNRESET, reported as aborted) to SERVICE_UNAVAILABLE too', () => {
    const err = fromConnectError(new ConnectError('read ECONNRESET', Code.Aborted));
    expect([err.reason, err.message, err.headers]).toEqual([
      'SERVICE_UNAVAILABLE',
      'A service is temporarily unavailable; retry later',
      { 'Retry-After': '5' },
    ]);
  });
});

describe('errors across RPC stay within the trailer limit', () => {
  it('keeps at most MAX_VIOLATIONS violations (and says how many more) and cuts long texts, so a huge 400 stays a 400', () => {
    const details = Array.from({ length: 2000 }, (_, i) => ({ path: `body.steps.${i}.action`, message: 'x'.repeat(5000) }));
    const back = fromConnectError(toConnectError(new AppError('VALIDATION_ERROR', 'y'.repeat(70000), { details })));
    expect(back.reason).toBe('VALIDATION_ERROR');
    expect(back.message).toHaveLength(MAX_ERROR_TEXT);
    expect(back.details).toHaveLength(MAX_VIOLATIONS + 1);
    expect(back.details![0]).toEqual({ path: 'body.steps.0.action', message: `${'x'.repeat(MAX_ERROR_TEXT - 1)}…` });
    expect(back.details![MAX_VIOLATIONS]).toEqual({ path: '', message: `${2000 - MAX_VIOLATIONS} more problems not listed` });
  });
});
