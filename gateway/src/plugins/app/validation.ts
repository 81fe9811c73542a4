/**
 * Validation as the spec wants it: unknown QUERY keys are stripped before the handler (not an error), unknown
 * BODY properties are rejected (Fastify's default Ajv would silently strip them), query strings are coerced
 * to the declared types, bodies are not. A NUL character anywhere in the path, the query or a JSON body is
 * refused up front (400 naming where), since no store can keep one.
 */
import fp from 'fastify-plugin';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifyInstance } from 'fastify';
import { AppError } from '@assay/errors';

/** The path of the first string (or key) holding a NUL character, as `body.steps.0.action`; undefined if none. */
export function nulPath(value: unknown, root: string): string | undefined {
  const stack: [unknown, string][] = [[value, root]];
  while (stack.length > 0) {
    const [v, path] = stack.pop()!;
    if (typeof v === 'string') {
      if (v.includes('\u0000')) return path;
    } else if (v !== null && typeof v === 'object') {
      for (const [k, child] of Object.entries(v)) {
        if (k.includes('\u0000')) return path;
        stack.push([child, `${path}.${k}`]);
      }
    }
  }
  return undefined;
}

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

    app.addHook('preValidation', async (request) => {
      const where =
        nulPath(request.params, 'path') ??
        nulPath(request.query, 'query') ??
        (request.body === undefined ? undefined : nulPath(request.body, 'body'));
      if (where !== undefined) {
        throw new AppError('VALIDATION_ERROR', 'The request is invalid: a text contains a NUL character', {
          details: [{ path: where, message: 'must not contain a NUL character' }],
        });
      }
    });
  },
  { name: 'validation' },
);
