/**
 * Answers whose `data` a service already rendered as the public JSON (`GET test-runs`: ListRuns with `json`;
 * `GET manual-test-cases`: ListCases with `json`; `GET analytics/summary`: GetSummary with `json`): the envelope
 * is written around the service's bytes instead of decoding every item from protobuf, building it again and
 * serialising it (a fifth of the gateway's CPU on those reads, issue 19). The service builds the items with the
 * contract's type; the e2e tests and schemathesis check the answers against the route's response schema.
 */
import type { FastifyReply } from 'fastify';
import { okJson } from '@assay/contracts/common/envelope';
import { pageJson, type PaginationValue } from '@assay/contracts/common/pagination';

export function sendJsonPage(reply: FastifyReply, itemsJson: Uint8Array, pagination: PaginationValue): FastifyReply {
  return reply.type('application/json; charset=utf-8').send(pageJson(itemsJson, pagination));
}

/** A single answer (`{success, data}`) around the service's `data` bytes. */
export function sendJson(reply: FastifyReply, dataJson: Uint8Array): FastifyReply {
  return reply.type('application/json; charset=utf-8').send(okJson(dataJson));
}
