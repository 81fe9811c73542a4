/**
 * A page whose items a service already rendered as the public JSON (`GET test-runs`: ListRuns with `json`): the
 * envelope is written around the service's bytes instead of decoding every item from protobuf, building it again
 * and serialising it (a fifth of the gateway's CPU on that read, issue 19). The service builds the items with the
 * contract's type; the e2e tests and schemathesis check the answers against the route's response schema.
 */
import type { FastifyReply } from 'fastify';
import type { PaginationValue } from '@assay/contracts/common/pagination';

const HEAD = Buffer.from('{"success":true,"data":');

export function sendJsonPage(reply: FastifyReply, itemsJson: Uint8Array, pagination: PaginationValue): FastifyReply {
  const tail = Buffer.from(`,"pagination":${JSON.stringify(pagination)}}`);
  return reply.type('application/json; charset=utf-8').send(Buffer.concat([HEAD, itemsJson, tail]));
}
