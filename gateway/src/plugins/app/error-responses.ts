/**
 * onRoute hook of an API scope: documents (and serializes) every error status with the envelope, so the
 * OpenAPI document and the fuzzer know every answer an operation can give.
 */
import type { RouteOptions } from 'fastify';
import { ERROR_STATUSES } from '@assay/contracts/common/envelope';

export function documentErrorResponses(route: RouteOptions): void {
  const schema = (route.schema ??= {});
  const response = (schema.response ??= {}) as Record<number, unknown>;
  for (const status of ERROR_STATUSES) response[status] ??= { $ref: 'ErrorEnvelope#' };
}
