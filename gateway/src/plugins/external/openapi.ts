/**
 * OpenAPI 3.1, generated from the route schemas (never hand-written), served at
 * /api/v1/public/openapi.json, with a reference page at /docs. The /api/public/v1 alias routes are hidden:
 * they are the same operations.
 */
import fp from 'fastify-plugin';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { componentSchemas } from '../../schemas/components';

export const OPENAPI_PATH = '/api/v1/public/openapi.json';

export default fp(
  async function openapiPlugin(app: FastifyInstance, opts: { docs: boolean; serverUrl?: string }) {
    // Shared schemas referenced with Type.Ref by routes; they become OpenAPI components.
    for (const schema of componentSchemas) app.addSchema(schema);
    await app.register(swagger, {
      openapi: {
        openapi: '3.1.0',
        info: {
          title: 'Assay public API',
          version: '1.0.0',
          description:
            'Test analytics and manual testing. Every response uses the envelope `{success, data}` or `{success: false, error: {code, message}}`.',
          license: { name: 'Proprietary', identifier: 'LicenseRef-Assay' },
        },
        servers: [{ url: opts.serverUrl ?? '/' }],
        components: {
          securitySchemes: {
            bearerAuth: { type: 'http', scheme: 'bearer', description: 'Personal access token or project api key: `svc_pat_<token>`' },
          },
        },
        security: [{ bearerAuth: [] }],
      },
      refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
    });
    app.get(OPENAPI_PATH, { schema: { hide: true }, config: { auth: 'none' } }, async () => app.swagger());
    if (opts.docs) {
      await app.register(swaggerUi, {
        routePrefix: '/docs',
        staticCSP: true,
        uiConfig: { docExpansion: 'list', deepLinking: true },
        uiHooks: {},
      });
    }
  },
  { name: 'openapi' },
);
