/**
 * What the manual-testing handler tests share: the service wired on a schema of its own with an in-memory
 * organization directory (the members lookup of `wire`'s overrides) and a fixed clock, the callers, and the
 * shape of a refused call.
 */
import { randomBytes } from 'node:crypto';
import { ConnectError } from '@connectrpc/connect';
import { fromConnectError } from '@assay/errors';
import { ManualTestingService } from '@assay/proto/assay/manualtesting/v1/manual_testing_pb';
import { formatCallers } from '@assay/service-kit';
import { as, inMemoryClient, principal, testContext, testSchema, type TestSchema } from '@assay/testkit';
import { loadManualTestingConfig } from '../../src/config';
import type { Members } from '../../src/domain/members';
import { routes } from '../../src/routes';
import { MIGRATIONS_DIR } from '../../src/service';
import type { UserSnapshot } from '../../src/store/common';
import { wire } from '../../src/wiring';

/** The clock of every handler test: closing and lifecycle stamps read this time. */
export const NOW = new Date('2026-03-04T05:06:07.000Z');

export const ORG = principal().orgId;
export const ALICE: UserSnapshot = { id: '1'.repeat(24), name: 'Alice', email: 'alice@example.test' };
export const BOB: UserSnapshot = { id: '2'.repeat(24), name: 'Bob', email: 'bob@example.test' };

export const owner = as(principal('owner'));
export const member = as(principal('member'));
export const viewer = as(principal('viewer'));
export const apiKey = as(principal(null, { tokenType: 'api_key', userId: null, userName: null, userEmail: null }));

/** The callers a write refuses: a viewer and a project api key (FORBIDDEN). */
export const READ_ONLY = [
  ['a viewer', viewer],
  ['an api key', apiKey],
] as const;

/** An organization directory of ALICE and BOB, by id or e-mail (any letter case), and what it was asked. */
export function directory(): Members & { asked: string[][] } {
  const people = [ALICE, BOB];
  const asked: string[][] = [];
  return {
    asked,
    async resolve(orgId, refs) {
      asked.push(refs);
      const found = (ref: string) => people.find((p) => p.id === ref || p.email === ref.toLowerCase());
      return new Map(refs.map((ref) => [ref, orgId === ORG ? found(ref) : undefined]));
    },
  };
}

export interface HandlerSuite {
  db: TestSchema;
  client: ReturnType<typeof inMemoryClient<typeof ManualTestingService>>;
  members: ReturnType<typeof directory>;
}

/** The service on a schema of its own, wired with the in-memory directory and the fixed clock. */
export async function handlerSuite(label: string): Promise<HandlerSuite> {
  const db = await testSchema(MIGRATIONS_DIR, label);
  const config = loadManualTestingConfig({
    INTERNAL_AUTH_TOKEN: 'x'.repeat(32),
    INTERNAL_CALLERS: formatCallers({ gateway: 'g'.repeat(32) }),
    LOG_LEVEL: 'silent',
  });
  const members = directory();
  const w = wire(testContext('manual-testing', config, db.pool), { members, clock: () => NOW });
  return { db, client: inMemoryClient(ManualTestingService, (router) => routes(router, w)), members };
}

/** A new project id: each test works in a project of its own. */
export const newProject = () => randomBytes(12).toString('hex');

/** How a call was refused: its Connect code, the reason, and the violations' paths and messages. */
export async function failure(call: Promise<unknown>) {
  try {
    await call;
  } catch (err) {
    const ce = ConnectError.from(err);
    const e = fromConnectError(ce);
    const details = e.details ?? [];
    return { code: ce.code, reason: e.reason, paths: details.map((d) => d.path), messages: details.map((d) => d.message) };
  }
  throw new Error('the call succeeded');
}
