/**
 * Every route family registers its routes on `typed(app)`: the TypeBox schemas of a route (from
 * @assay/contracts) then type `request.params`, `request.query` and `request.body`, so handlers read their
 * inputs without casts, and what they read is what was validated.
 */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';

export const typed = (app: FastifyInstance) => app.withTypeProvider<TypeBoxTypeProvider>();
