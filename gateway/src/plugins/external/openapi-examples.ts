/**
 * The examples of the API document, derived where they are owned instead of written out per operation:
 *   - a schema's own `examples` (the contracts put them on the shared shapes and the request bodies) win;
 *   - otherwise an example is built from the schema itself: `const`, `default`, the first `enum` value or
 *     union branch, a value of the `format`, a plausible value for common field names (ids, names, URLs…) and
 *     the bounds (`minimum`, `minLength`, `minItems`);
 *   - error envelopes come from the reason table of @assay/errors, one named example per code an operation
 *     can answer (see plugins/app/error-responses.ts).
 * test/e2e/openapi.test.ts validates every example of the document against its schema.
 */
import { ERROR_TABLE, type Reason } from '@assay/errors';

type Schema = Record<string, unknown>;
type Components = Record<string, Schema>;

const EXAMPLE_ID = '66a1f0c2e4b0a1b2c3d4e5f6';
const EXAMPLE_TIME = '2026-03-02T09:15:00.000Z';
const REF_PREFIX = '#/components/schemas/';

/** Plausible strings by field name, for schemas that carry no example of their own (first match wins). */
const STRING_BY_NAME: [RegExp, string][] = [
  [/^(_id|id)$|Ids?$|^[a-z]+Id$/, EXAMPLE_ID],
  [/email/i, 'ada@example.com'],
  [/url$/i, `https://assay.example.com/projects/${EXAMPLE_ID}`],
  [/^(branch|defaultBranch)$/, 'main'],
  [/environment/i, 'staging'],
  [/hash|sha|commit/i, '9f2c1e7a4b3d'],
  [/^(author|userName|assignee|createdBy|developers?)$/, 'Ada Lovelace'],
  [/Date$/, EXAMPLE_TIME.slice(0, 10)],
  [/At$|Time$/, EXAMPLE_TIME],
  [/^file$|path$/i, 'tests/checkout.spec.ts'],
  [/^title$|fullTitle|displayTitle/, 'checkout › applies a discount code'],
  [/^(name|planName|projectName|suiteName)$/, 'Checkout'],
  [/message|error/i, 'expect(received).toBe(expected): expected 42, received 41'],
  [/^tags?$/, 'smoke'],
  [/^(description|note|mission|comment)$/, 'Covers the checkout flow on the web app.'],
  [/password/i, 'correct horse battery staple'],
  [/token|secret/i, 'svc_pat_0123456789abcdef0123456789abcdef'],
];

const NUMBER_BY_NAME: [RegExp, number][] = [
  [/^page$/, 1],
  [/^limit$/, 10],
  [/^(days|windowDays)$/, 30],
  [/duration|elapsed|Ms$|p\d\d|avg/i, 1250],
  [/rate|score|percent|progress/i, 96],
  [/total|count|executions|runs$/i, 240],
];

/** Booleans are false unless their name reads as the usual state (an active subscription, a next page…). */
const TRUE_BY_NAME = /^(active|enabled|success|hasNext|hasMore|covered|isRunning)$/;

export interface ExampleContext {
  components: Components;
  /** The property, parameter or item name the schema describes, for the name-based fallbacks. */
  name?: string;
  /** Component schemas being expanded (recursive shapes stop at their second level). */
  refs?: string[];
}

const isObject = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

/** An example value for `schema`, or undefined when none can be built (an unresolved or recursive reference). */
export function exampleFor(schema: unknown, ctx: ExampleContext): unknown {
  if (!isObject(schema)) return undefined;
  const refs = ctx.refs ?? [];
  if (typeof schema.$ref === 'string') {
    const name = schema.$ref.startsWith(REF_PREFIX) ? schema.$ref.slice(REF_PREFIX.length) : schema.$ref;
    const target = ctx.components[name];
    if (!target || refs.filter((r) => r === name).length >= 1) return undefined;
    return exampleFor(target, { ...ctx, refs: [...refs, name] });
  }
  if ('example' in schema) return schema.example;
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if ('const' in schema) return schema.const;
  if ('default' in schema) return schema.default;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  for (const key of ['anyOf', 'oneOf'] as const) {
    const branches = schema[key];
    if (Array.isArray(branches) && branches.length > 0) {
      const nonNull = branches.filter((b) => !(isObject(b) && b.type === 'null'));
      for (const branch of nonNull.length > 0 ? nonNull : branches) {
        const value = exampleFor(branch, ctx);
        if (value !== undefined) return value;
      }
      return null;
    }
  }
  if (Array.isArray(schema.allOf)) {
    const parts = schema.allOf.map((s) => exampleFor(s, ctx));
    if (parts.every(isObject)) return Object.assign({}, ...parts);
    return parts.find((p) => p !== undefined);
  }
  const types = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string | undefined];
  const type = types.find((t) => t !== 'null') ?? types[0] ?? (schema.properties ? 'object' : undefined);
  switch (type) {
    case 'object':
      return objectExample(schema, ctx);
    case 'array':
      return arrayExample(schema, ctx);
    case 'string':
      return stringExample(schema, ctx.name);
    case 'integer':
    case 'number':
      return numberExample(schema, ctx.name, type === 'integer');
    case 'boolean':
      return ctx.name !== undefined && TRUE_BY_NAME.test(ctx.name);
    case 'null':
      return null;
    default:
      return undefined;
  }
}

function objectExample(schema: Schema, ctx: ExampleContext): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const required = new Set((schema.required as string[] | undefined) ?? []);
  for (const [key, prop] of Object.entries((schema.properties as Schema | undefined) ?? {})) {
    const value = exampleFor(prop, { ...ctx, name: key });
    if (value !== undefined) out[key] = value;
    else if (required.has(key)) out[key] = null;
  }
  return out;
}

function arrayExample(schema: Schema, ctx: ExampleContext): unknown[] {
  // The item of `testCaseIds` is a `testCaseId`, of `branches` a `branch`, of `tags` a `tag`.
  const name = ctx.name
    ?.replace(/Ids$/, 'Id')
    .replace(/(ch|sh|x)es$/, '$1')
    .replace(/([^s])s$/, '$1');
  const item = exampleFor(schema.items, { ...ctx, name });
  if (item === undefined) return [];
  const count = Math.max(1, (schema.minItems as number | undefined) ?? 0);
  return Array.from({ length: count }, () => item);
}

function stringExample(schema: Schema, name: string | undefined): string {
  const byFormat: Record<string, string> = {
    'date-time': EXAMPLE_TIME,
    date: EXAMPLE_TIME.slice(0, 10),
    uri: 'https://ci.example.com/hooks/assay',
    url: 'https://ci.example.com/hooks/assay',
    email: 'ada@example.com',
    uuid: '3f0c6a52-8d1e-4b7a-9c2f-5e4d3b2a1c0f',
    binary: '',
  };
  let value =
    (typeof schema.format === 'string' ? byFormat[schema.format] : undefined) ??
    STRING_BY_NAME.find(([re]) => name !== undefined && re.test(name))?.[1] ??
    'example';
  const min = (schema.minLength as number | undefined) ?? 0;
  const max = schema.maxLength as number | undefined;
  if (value.length < min) value = value.padEnd(min, 'x');
  if (max !== undefined && value.length > max) value = value.slice(0, max);
  return value;
}

function numberExample(schema: Schema, name: string | undefined, integer: boolean): number {
  const min = (schema.minimum as number | undefined) ?? (schema.exclusiveMinimum as number | undefined);
  const max = (schema.maximum as number | undefined) ?? (schema.exclusiveMaximum as number | undefined);
  let value = NUMBER_BY_NAME.find(([re]) => name !== undefined && re.test(name))?.[1] ?? min ?? 1;
  if (min !== undefined && value < min) value = min;
  if (typeof schema.exclusiveMinimum === 'number' && value <= schema.exclusiveMinimum) value = schema.exclusiveMinimum + 1;
  if (max !== undefined && value > max) value = typeof schema.exclusiveMaximum === 'number' ? max - 1 : max;
  return integer ? Math.round(value) : value;
}

export interface ErrorExampleInput {
  /** The first required property of the request body, for the example of VALIDATION_ERROR. */
  requiredBodyField?: string;
  /** The first query parameter, when there is no body. */
  queryParam?: string;
}

/** The error envelope of one reason, as the gateway answers it. */
export function errorExample(reason: Reason, input: ErrorExampleInput = {}): Record<string, unknown> {
  const error: Record<string, unknown> = { code: reason, message: ERROR_TABLE[reason].message };
  if (reason === 'VALIDATION_ERROR') {
    const detail = input.requiredBodyField
      ? { path: `body.${input.requiredBodyField}`, message: `must have required property '${input.requiredBodyField}'` }
      : input.queryParam
        ? { path: `query.${input.queryParam}`, message: 'must be equal to one of the allowed values' }
        : undefined;
    if (detail) {
      error.message = `${detail.path}: ${detail.message}`;
      error.details = [detail];
    }
  }
  if (reason === 'INVALID_LIMIT') {
    error.message = 'limit must be equal to one of the allowed values';
    error.details = [{ path: 'query.limit', message: 'must be equal to one of the allowed values' }];
  }
  return { success: false, error };
}
