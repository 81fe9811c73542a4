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
