/**
 * Typed settings from the environment. Every process declares a TypeBox object whose keys are the
 * environment variable names; `loadConfig` applies defaults, converts strings, checks, and refuses to
 * start with one clear message listing every invalid value.
 */
import { Type, type Static, type StaticDecode, type TObject, type TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';

export { Type };
/** The type of loaded settings (after list/map decoding). */
export type Settings<T extends TSchema> = StaticDecode<T>;
export type { Static, StaticDecode };

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

/** Loads and checks settings; throws ConfigError naming every invalid variable. */
export function loadConfig<T extends TObject>(schema: T, env: Record<string, string | undefined> = process.env): StaticDecode<T> {
  const raw: Record<string, unknown> = {};
  for (const key of Object.keys(schema.properties)) {
    const value = env[key];
    // An empty variable means "not set" so that `FOO= cmd` falls back to the default.
    if (value !== undefined && value !== '') raw[key] = value;
  }
  const withDefaults = Value.Default(schema, raw);
  const converted = Value.Convert(schema, withDefaults);
  const problems = [...Value.Errors(schema, converted)].map((e) => {
    const key = e.path.replace(/^\//, '') || '(root)';
    const got = e.value === undefined ? 'not set' : `got ${JSON.stringify(e.value)}`;
    return `${key}: ${e.message} (${got})`;
  });
  if (problems.length > 0) throw new ConfigError(problems);
  try {
    return Value.Decode(schema, converted) as StaticDecode<T>;
  } catch (err) {
    // Transform decoders (lists, key=value maps) throw with their own message.
    const inner = (err as { error?: Error }).error ?? err;
    const path = (err as { path?: string }).path?.replace(/^\//, '');
    throw new ConfigError([`${path ?? '(value)'}: ${(inner as Error).message}`]);
  }
}

// ---- reusable setting types -------------------------------------------------------------------

export const Port = (defaultPort: number, description?: string) =>
  Type.Integer({ minimum: 1, maximum: 65535, default: defaultPort, description });

export const Bool = (defaultValue: boolean, description?: string) => Type.Boolean({ default: defaultValue, description });

/** A non-empty string setting (URLs are checked by their clients; keep this permissive). */
export const Str = (defaultValue?: string, description?: string) =>
  defaultValue === undefined
    ? Type.String({ minLength: 1, description })
    : Type.String({ minLength: 1, default: defaultValue, description });

export const LogLevel = Type.Union(
  ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l)),
  { default: 'info' },
);

/** `a,b,c` → string[] */
export const CsvList = (defaultValue: string) =>
  Type.Transform(Type.String({ default: defaultValue }))
    .Decode((s) =>
      s
        .split(',')
        .map((p) => p.trim())
        .filter((p) => p.length > 0),
    )
    .Encode((a) => a.join(','));

/** `1,2,3` → number[] of non-negative integers */
export const IntList = (defaultValue: string) =>
  Type.Transform(Type.String({ default: defaultValue }))
    .Decode((s) =>
      s.split(',').map((p) => {
        const n = Number(p.trim());
        if (!Number.isInteger(n) || n < 0) throw new Error(`"${p.trim()}" is not a non-negative integer`);
        return n;
      }),
    )
    .Encode((a) => a.join(','));

/** `k=1,j=2` → Record<k, number>, keys restricted to `keys`, missing keys take the defaults. */
export const IntMap = <K extends string>(defaults: Record<K, number>) =>
  Type.Transform(
    Type.String({
      default: Object.entries(defaults)
        .map(([k, v]) => `${k}=${v}`)
        .join(','),
    }),
  )
    .Decode((s) => {
      const out = { ...defaults } as Record<K, number>;
      for (const part of s
        .split(',')
        .map((p) => p.trim())
        .filter(Boolean)) {
        const [key, value] = part.split('=').map((x) => x.trim());
        if (!key || !(key in defaults)) {
          throw new Error(`unknown key "${key}" (allowed: ${Object.keys(defaults).join(', ')})`);
        }
        const n = Number(value);
        if (!Number.isInteger(n) || n < 1) throw new Error(`"${key}" must be a positive integer, got "${value}"`);
        out[key as K] = n;
      }
      return out;
    })
    .Encode((m) =>
      Object.entries(m)
        .map(([k, v]) => `${k}=${v}`)
        .join(','),
    );

// ---- settings shared by every service process ------------------------------------------------

/** Settings every Connect service reads; a service spreads these into its own schema. */
export const serviceSettings = (rpcPort: number, httpPort: number) => ({
  LOG_LEVEL: LogLevel,
  DATABASE_URL: Str('postgres://assay:assay@127.0.0.1:55432/assay', 'Postgres connection string'),
  DATABASE_POOL_SIZE: Type.Integer({ minimum: 1, maximum: 200, default: 10 }),
  KAFKA_BROKERS: CsvList('127.0.0.1:19092'),
  INTERNAL_AUTH_TOKEN: Str(undefined, 'shared secret presented by the gateway and admin CLI to services'),
  RPC_PORT: Port(rpcPort, 'Connect/gRPC (h2c) port'),
  HTTP_PORT: Port(httpPort, 'HTTP/1.1 port: /metrics, /healthz and internal streaming endpoints'),
  BIND_HOST: Str('127.0.0.1', 'interface to listen on (0.0.0.0 in containers)'),
  SHUTDOWN_GRACE_MS: Type.Integer({ minimum: 0, default: 10000 }),
});

export type Schema = TSchema;
