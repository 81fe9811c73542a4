/** The envelopes of spec §2.1 as TypeBox schemas: they drive validation, serialization and OpenAPI. */
import { Type, type TSchema } from '@sinclair/typebox';
import { Reasons } from '@assay/errors';

export const ErrorEnvelope = Type.Object(
  {
    success: Type.Literal(false),
    error: Type.Object({
      code: Type.Union(
        Reasons.map((r) => Type.Literal(r)),
        { description: 'stable; branch on it' },
      ),
      message: Type.String({ description: 'human-readable; may change' }),
      details: Type.Optional(
        Type.Array(Type.Object({ path: Type.String(), message: Type.String() }), { description: 'one entry per invalid field' }),
      ),
    }),
  },
  { $id: 'ErrorEnvelope', title: 'ErrorEnvelope' },
);

export const Pagination = Type.Object(
  {
    page: Type.Integer({ minimum: 1 }),
    limit: Type.Integer(),
    total: Type.Integer({ minimum: 0 }),
    hasNext: Type.Boolean(),
    hasPrev: Type.Boolean(),
    hasMore: Type.Boolean({ description: 'same as hasNext' }),
  },
  {
    $id: 'Pagination',
    title: 'Pagination',
    examples: [{ page: 1, limit: 10, total: 240, hasNext: true, hasPrev: false, hasMore: true }],
  },
);

export const Ok = <T extends TSchema>(data: T) => Type.Object({ success: Type.Literal(true), data });

export const OkPage = <T extends TSchema>(item: T) =>
  Type.Object({ success: Type.Literal(true), data: Type.Array(item), pagination: Type.Ref(Pagination) });

/** Builds the success envelope. */
export function ok<T>(data: T): { success: true; data: T } {
  return { success: true, data };
}

/** What `ok()` and `page()` serialised begin with, up to their `data`. */
export const OK_JSON_HEAD = Buffer.from('{"success":true,"data":');
const OK_JSON_TAIL = Buffer.from('}');

/**
 * `ok()` as the bytes of its JSON, around data a service already rendered as the public JSON (GetSummary with
 * `json`): the envelope is written around it instead of parsing and serialising it again.
 */
export function okJson(dataJson: Uint8Array): Buffer {
  return Buffer.concat([OK_JSON_HEAD, dataJson, OK_JSON_TAIL]);
}
