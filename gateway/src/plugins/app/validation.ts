/**
 * Validation as the spec wants it: unknown QUERY keys are stripped before the handler (not an error), unknown
 * BODY properties are rejected (Fastify's default Ajv would silently strip them), query strings are coerced
 * to the declared types, bodies are not.
 */
import fp from 'fastify-plugin';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifyInstance } from 'fastify';

function ajv(options: ConstructorParameters<typeof Ajv>[0]) {
  const instance = new Ajv({ allErrors: true, strict: false, useDefaults: true, ...options });
  addFormats(instance);
  return instance;
}

export default fp(
  async function validationPlugin(app: FastifyInstance) {
    const bodyAjv = ajv({ removeAdditional: false, coerceTypes: false });
    const queryAjv = ajv({ removeAdditional: 'all', coerceTypes: 'array' });
    const otherAjv = ajv({ removeAdditional: false, coerceTypes: true });
    // The alias prefix repeats every public route: identical schemas share one compiled validator.
    const cache = new Map<string, ReturnType<typeof bodyAjv.compile>>();
    app.setValidatorCompiler(({ schema, httpPart }) => {
      const key = `${httpPart}:${JSON.stringify(schema)}`;
      let validate = cache.get(key);
      if (!validate) {
        const compiler = httpPart === 'body' ? bodyAjv : httpPart === 'querystring' ? queryAjv : otherAjv;
        validate = compiler.compile(schema);
        cache.set(key, validate);
      }
      return validate;
    });
  },
  { name: 'validation' },
);
