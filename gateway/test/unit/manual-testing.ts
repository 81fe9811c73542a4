/**
 * What the manual-testing route tests share: the gateway with an in-memory manual-testing service for a test
 * file (calls cleared before each test), the family's base URL, a fixed time, and the two checks every family
 * makes: a refusal before any call, and writes refused to viewers and project api keys.
 */
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { ServiceImpl } from '@connectrpc/connect';
import type { LightMyRequestResponse } from 'fastify';
import type { ManualTestingService } from '@assay/proto/assay/manualtesting/v1/manual_testing_pb';
import { gatewayHarness, type Harness } from './harness';

/** The time of every stubbed record, and how the JSON spells it. */
export const AT_JSON = '2026-01-02T03:04:05.000Z';
export const AT = timestampFromDate(new Date(AT_JSON));

export interface Family {
  h: Harness;
  /** `/api/v1/public/{projectId}/{family}` */
  url: string;
}

type Method = 'GET' | 'POST' | 'PATCH';

/** The gateway for this file's tests, its manual-testing service answering with `stubs`. */
export function familyHarness(
  family: string,
  stubs: Partial<ServiceImpl<typeof ManualTestingService>>,
  env: Record<string, string> = {},
): Family {
  const f = {} as Family;
  beforeAll(async () => {
    f.h = await gatewayHarness({ manualTesting: stubs }, env);
    f.url = `/api/v1/public/${f.h.projectId}/${family}`;
  });
  afterAll(() => f.h.close());
  beforeEach(() => {
    f.h.calls.length = 0;
  });
  return f;
}

export const pathsOf = (res: LightMyRequestResponse): string[] =>
  (res.json() as { error: { details: { path: string }[] } }).error.details.map((d) => d.path);

/** `method url+suffix` answers 400 VALIDATION_ERROR naming `path`, and the service is never called. */
export async function expectRefusedBeforeCall(f: Family, method: Method, suffix: string, payload: object | undefined, path: string) {
  const res = await f.h.request({ method, url: `${f.url}${suffix}`, payload });
  expect(res.statusCode).toBe(400);
  expect(res.json().error.code).toBe('VALIDATION_ERROR');
  expect(pathsOf(res)).toContain(path);
  expect(f.h.calls).toEqual([]);
}

/** Each write answers 403 to a viewer and to a project api key, and the service is never called. */
export async function expectWritesForbidden(f: Family, writes: [Method, string, object][]) {
  for (const as of ['viewer', 'api_key'] as const) {
    for (const [method, suffix, payload] of writes) {
      const res = await f.h.request({ as, method, url: `${f.url}${suffix}`, payload });
      expect([as, method, suffix, res.statusCode]).toEqual([as, method, suffix, 403]);
    }
  }
  expect(f.h.calls).toEqual([]);
}
