/**
 * Typed settings from the environment. Every process declares a TypeBox object whose keys are the
 * environment variable names; `loadConfig` applies defaults, converts strings, checks, and refuses to
 * start with one clear message listing every invalid value.
 */
import { createHash } from 'node:crypto';
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
  const converted = Value.Convert(schema, withDefaults) as Record<string, unknown>;
  // TypeBox converts '1.5' or '2e3' to an integer by truncating: such a value is refused as given instead.
  // (Value.Default and Value.Convert change `raw` in place: the environment holds what was given.)
  for (const [key, s] of Object.entries(schema.properties)) {
    const given = env[key];
    if ((s as TSchema).type === 'integer' && given && !/^[+-]?\d+$/.test(given.trim())) converted[key] = given;
  }
  const problems = [...Value.Errors(schema, converted)].map((e) => {
    const key = e.path.replace(/^\//, '') || '(root)';
    // The name and the rule, never the value: a value may be a secret (a too-short SECRETS_KEY, say).
    return `${key}: ${e.message}${e.value === undefined ? ' (not set)' : ''}`;
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
        if (!Number.isInteger(n) || n < 1) throw new Error(`"${key}" must be a positive integer`);
        out[key as K] = n;
      }
      return out;
    })
    .Encode((m) =>
      Object.entries(m)
        .map(([k, v]) => `${k}=${v}`)
        .join(','),
    );

// ---- internal credentials ----------------------------------------------------------------------

/** An internal credential: a process's own secret (INTERNAL_AUTH_TOKEN). */
export const Credential = (description: string) => Type.String({ minLength: 32, description: `${description} (at least 32 characters)` });

/** SHA-256 (hex) of a credential: how a server's INTERNAL_CALLERS names it. */
export function credentialHash(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Known callers of a server: credential hash → caller name. */
export type Callers = ReadonlyMap<string, string>;

const CALLER_ENTRY = /^([a-z][a-z0-9-]{0,62}):([0-9a-f]{64})$/;

/**
 * Parses `name:sha256hex,…`; throws naming the position of a bad entry (never its text: it may be a secret).
 * A name may appear twice with two hashes: both credentials are accepted, which is how a credential is rotated
 * without downtime (list old and new, roll the caller, drop the old).
 */
export function parseCallers(value: string): Callers {
  const out = new Map<string, string>();
  const entries = value
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  entries.forEach((raw, i) => {
    const m = CALLER_ENTRY.exec(raw);
    if (!m) throw new Error(`entry ${i + 1} is not name:sha256hex (a lower-case name and 64 hex digits)`);
    out.set(m[2]!, m[1]!);
  });
  if (out.size === 0) throw new Error('lists no caller');
  return out;
}

/** `name:sha256hex,…` of the given credentials (name → credential). */
export function formatCallers(credentials: Record<string, string>): string {
  return Object.entries(credentials)
    .map(([name, token]) => `${name}:${credentialHash(token)}`)
    .join(',');
}

/** INTERNAL_CALLERS: who may call this server, as `name:sha256(credential)` pairs. */
export const CallerList = () =>
  Type.Transform(
    Type.String({ minLength: 1, description: 'callers allowed to call this process: name:sha256hex of their credential, comma-separated' }),
  )
    .Decode((s) => parseCallers(s))
    .Encode((m) => [...m].map(([hash, name]) => `${name}:${hash}`).join(','));

// ---- settings shared by every service process ------------------------------------------------

/** Settings every Connect service reads; a service spreads these into its own schema. */
export const serviceSettings = (rpcPort: number, httpPort: number) => ({
  LOG_LEVEL: LogLevel,
  DATABASE_URL: Str('postgres://assay:assay@127.0.0.1:55432/assay', 'Postgres connection string'),
  DATABASE_POOL_SIZE: Type.Integer({ minimum: 1, maximum: 200, default: 10 }),
  KAFKA_BROKERS: CsvList('127.0.0.1:19092'),
  INTERNAL_AUTH_TOKEN: Credential("this process's credential, presented on every internal call it makes"),
  INTERNAL_CALLERS: CallerList(),
  RPC_PORT: Port(rpcPort, 'Connect/gRPC (h2c) port'),
  HTTP_PORT: Port(httpPort, 'HTTP/1.1 port: /metrics, /healthz and internal streaming endpoints'),
  BIND_HOST: Str('127.0.0.1', 'interface to listen on (0.0.0.0 in containers)'),
  SHUTDOWN_GRACE_MS: Type.Integer({ minimum: 0, default: 10000 }),
});

export type Schema = TSchema;
