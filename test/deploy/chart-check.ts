/**
 * Checks the Helm chart's rendered manifests against what each process actually reads: the TypeBox
 * settings object of the gateway and of every service (keys = environment variable names) and their
 * real loaders, and the internal credentials against the code's caller graph (SERVICES[].callers of
 * packages/testkit/src/topology.ts). `checkRender` returns every problem found as one line each (empty: all
 * good), so a test can print them all at once and negative cases can assert on them.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { ConfigError, credentialHash, type loadConfig } from '@assay/config';
import { LIVENESS_SERVICE } from '@assay/service-kit';
import { GatewaySettings, loadGatewayConfig } from '../../gateway/src/config';
import { ADMIN, SERVICES } from '../../packages/testkit/src/topology';
import { AnalyticsSettings, loadAnalyticsConfig } from '../../services/analytics/src/config';
import { IdentitySettings, loadIdentityConfig } from '../../services/identity/src/config';
import { ManualTestingSettings, loadManualTestingConfig } from '../../services/manual-testing/src/config';
import { ReportsSettings, loadReportsConfig } from '../../services/reports/src/config';
import { RunsSettings, loadRunsConfig } from '../../services/runs/src/config';
import { WebhooksSettings, loadWebhooksConfig } from '../../services/webhooks/src/config';

/** This worktree's root (not @assay/testkit's REPO_ROOT, which is where node_modules points). */
export const ROOT = path.resolve(__dirname, '..', '..');
export const CHART = path.join(ROOT, 'charts', 'assay');
export const HELM = path.join(ROOT, '.cache', 'bin', 'helm');
const RELEASE = 'assay';
const NAMESPACE = 'assay';
const KUBE_VERSION = '1.33.0';

type SettingsSchema = Parameters<typeof loadConfig>[0];

interface ProcessSpec {
  schema: SettingsSchema;
  /** The process's own loader (what `node dist/main.js` runs). */
  load: (env: Record<string, string>) => Record<string, unknown>;
  /** Container port name -> the setting holding the port the process listens on. */
  ports: Record<string, string>;
  /** The port other components call for RPC (none for the gateway), and for internal HTTP (`*_HTTP_URL`). */
  rpcPort?: string;
  httpPort: string;
  /** Owns a Postgres schema, so it has a migration Job (`node dist/main.js migrate`). */
  migrates: boolean;
  /** Per probe: the gRPC health service name it must ask about, or the HTTP path it must GET. */
  probes: { kind: 'grpc' | 'http'; port: string; liveness: string; readiness: string; startup: string };
}

const SERVICE = {
  ports: { grpc: 'RPC_PORT', http: 'HTTP_PORT' },
  rpcPort: 'RPC_PORT',
  httpPort: 'HTTP_PORT',
  migrates: true,
  // Liveness asks whether the process answers at all; readiness ("") also covers dependencies and draining.
  probes: { kind: 'grpc', port: 'RPC_PORT', liveness: LIVENESS_SERVICE, readiness: '', startup: LIVENESS_SERVICE },
} as const;

/** Every process the chart deploys, by its `app.kubernetes.io/component` name. */
export const PROCESSES: Record<string, ProcessSpec> = {
  gateway: {
    schema: GatewaySettings,
    load: loadGatewayConfig,
    ports: { http: 'PORT', metrics: 'METRICS_PORT' },
    httpPort: 'METRICS_PORT',
    migrates: false,
    probes: { kind: 'http', port: 'PORT', liveness: '/healthz', readiness: '/readyz', startup: '/healthz' },
  },
  identity: { schema: IdentitySettings, load: loadIdentityConfig, ...SERVICE },
  'manual-testing': { schema: ManualTestingSettings, load: loadManualTestingConfig, ...SERVICE },
  runs: { schema: RunsSettings, load: loadRunsConfig, ...SERVICE },
  analytics: { schema: AnalyticsSettings, load: loadAnalyticsConfig, ...SERVICE },
  webhooks: { schema: WebhooksSettings, load: loadWebhooksConfig, ...SERVICE },
  reports: { schema: ReportsSettings, load: loadReportsConfig, ...SERVICE },
};

/** The in-cluster instances of dev.enabled (official images, not Assay processes). */
const DEV_INSTANCES = ['postgresql', 'redis', 'kafka', 's3'];
/** Read by the Node.js runtime itself, not by a settings schema; allowed in any container. */
export const RUNTIME_ENV = ['NODE_OPTIONS', 'NODE_EXTRA_CA_CERTS', 'TZ', 'UV_THREADPOOL_SIZE'];
/** Settings that carry credentials: they must come from a Secret, never from a ConfigMap or a literal. */
export const SECRET_SETTINGS = [
  'DATABASE_URL',
  'REDIS_URL',
  'INTERNAL_AUTH_TOKEN',
  'SECRETS_KEY',
  'S3_ACCESS_KEY_ID',
  'S3_SECRET_ACCESS_KEY',
];
/**
 * Who may call each service (INTERNAL_CALLERS), by process name: the code's one list. `admin` is the admin
 * CLI's credential; the CLI runs in the ADMIN_CLI_HOST pods (`kubectl exec`), so on the network it is them.
 */
export const CALLERS: Record<string, string[]> = Object.fromEntries(SERVICES.map((s) => [s.name, s.callers]));
export const ADMIN_CLI_HOST = 'identity';
/** "manual-testing" -> "manualTesting": a process's values block (and its key under secrets.keys.*). */
export const blockKey = (name: string) => name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
const LOOPBACK = /(^|[/@,\s])(127\.\d+\.\d+\.\d+|localhost|\[::1\])([:/,\s]|$)/i;

// ---- rendering ---------------------------------------------------------------------------------

export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [field: string]: any;
}

export interface Render {
  /** What was rendered, for messages: "default values", "ci/external-values.yaml", plus --set pairs. */
  label: string;
  objects: K8sObject[];
  /** values.yaml merged with the values file (enough to know `secrets.existingSecret` and `secrets.keys`). */
  values: Record<string, any>;
}

/** The values files the chart is checked with: the defaults, every charts/assay/values-*.yaml, every ci/*.yaml. */
export function valuesSets(): { label: string; file?: string }[] {
  const yamlIn = (dir: string, pattern: RegExp) =>
    fs
      .readdirSync(path.join(CHART, dir))
      .filter((f) => pattern.test(f))
      .sort()
      .map((f) => ({ label: path.posix.join(dir, f), file: path.join(CHART, dir, f) }));
  return [{ label: 'default values' }, ...yamlIn('.', /^values-.+\.ya?ml$/), ...yamlIn('ci', /\.ya?ml$/)];
}

export function assertHelm(): void {
  if (!fs.existsSync(HELM)) {
    throw new Error(`helm is missing at ${HELM}: run \`bash scripts/charts/install-tools.sh\` (it builds helm into .cache/bin)`);
  }
}

/** `helm template` with the chart's defaults, an optional values file and `--set` pairs (not merged into `values`). */
export function render(opts: { label: string; file?: string; set?: string[] }): Render {
  assertHelm();
  const args = ['template', RELEASE, CHART, '--namespace', NAMESPACE, '--kube-version', KUBE_VERSION];
  if (opts.file) args.push('-f', opts.file);
  for (const s of opts.set ?? []) args.push('--set', s);
  const helmHome = path.join(ROOT, '.cache', 'helm');
  const out = execFileSync(HELM, args, {
    cwd: ROOT,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    // helm's complaints go into the thrown error's message (Command failed: ... <stderr>), not the test output.
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      HELM_CACHE_HOME: path.join(helmHome, 'cache'),
      HELM_CONFIG_HOME: path.join(helmHome, 'config'),
      HELM_DATA_HOME: path.join(helmHome, 'data'),
    },
  });
  const objects: K8sObject[] = [];
  for (const doc of parseAllDocuments(out)) {
    if (doc.errors.length > 0) throw new Error(`helm template output is not valid YAML: ${doc.errors[0]!.message}`);
    const obj = doc.toJS();
    if (obj) objects.push(obj as K8sObject);
  }
  const base = readYaml(path.join(CHART, 'values.yaml'));
  const values = opts.file ? mergeValues(base, readYaml(opts.file)) : base;
  const label = [opts.label, ...(opts.set ?? []).map((s) => `--set ${s}`)].join(' ');
  return { label, objects, values };
}

function readYaml(file: string): Record<string, any> {
  const docs = parseAllDocuments(fs.readFileSync(file, 'utf8'));
  return ((docs[0] as { toJS(): unknown } | undefined)?.toJS() as Record<string, any> | null) ?? {};
}

/** Helm's merge of a values file onto the defaults: maps merge key by key, anything else replaces. */
function mergeValues(base: Record<string, any>, over: Record<string, any>): Record<string, any> {
  const out: Record<string, any> = { ...base };
  for (const [k, v] of Object.entries(over)) {
    const b = out[k];
    out[k] = isMap(b) && isMap(v) ? mergeValues(b, v) : v;
  }
  return out;
}
const isMap = (v: unknown): v is Record<string, any> => typeof v === 'object' && v !== null && !Array.isArray(v);

// ---- checking ----------------------------------------------------------------------------------

export interface Workload {
  object: K8sObject;
  process: string;
  container: any;
  /** Environment the process gets: name -> value (dummies for values only known in the cluster). */
  env: Record<string, string>;
  /** Names provided through a Secret. */
  fromSecret: Set<string>;
  /** Name -> the Secret and key it is read from (secretKeyRef). */
  secretRefs: Record<string, { secret: string; key: string }>;
}

export interface CheckResult {
  problems: string[];
  workloads: Workload[];
}

/** Checks every Deployment and migration Job of a render; see the test file for the list of checks. */
export function checkRender(r: Render): CheckResult {
  const problems: string[] = [];
  const workloads: Workload[] = [];
  const byKind = (kind: string) => r.objects.filter((o) => o.kind === kind);

  for (const o of [...byKind('Deployment'), ...byKind('Job')]) {
    const where = `${o.kind}/${o.metadata.name}`;
    // dev.enabled's PostgreSQL, Redis and Kafka run official images with their own settings.
    if (
      o.kind === 'Deployment' &&
      r.values.dev?.enabled &&
      DEV_INSTANCES.includes(o.metadata.labels?.['app.kubernetes.io/component'] ?? '')
    ) {
      continue;
    }
    const processName =
      o.kind === 'Deployment'
        ? o.metadata.labels?.['app.kubernetes.io/component']
        : o.spec?.template?.metadata?.labels?.['assay-migrations-for'];
    const spec = processName ? PROCESSES[processName] : undefined;
    if (!processName || !spec) {
      problems.push(`${where}: no known process (component "${processName ?? ''}"; known: ${Object.keys(PROCESSES).join(', ')})`);
      continue;
    }
    const at = `${where} (${processName})`;
    const containerName = o.kind === 'Job' ? 'migrate' : processName;
    const containers: any[] = o.spec.template.spec.containers ?? [];
    const container = containers.find((c) => c.name === containerName);
    if (!container) {
      problems.push(`${at}: no container named "${containerName}" (has ${containers.map((c) => c.name).join(', ')})`);
      continue;
    }
    if (o.kind === 'Job' && !spec.migrates) problems.push(`${at}: a migration Job, but ${processName} has no schema to migrate`);
    const w = workloadEnv(r, o, processName, container, at, problems);
    workloads.push(w);
    checkNames(w, spec, at, problems);
    const loaded = checkLoad(w, spec, at, problems);
    if (loaded) checkLoopback(loaded, w.env, at, problems);
    if (o.kind === 'Deployment') {
      const ports = checkPorts(container, spec, loaded, at, problems);
      checkProbes(container, spec, loaded, ports, at, problems);
    }
    if (loaded) checkServiceUrls(r, o, loaded, processName, at, problems);
  }
  checkServices(r, problems);
  checkCredentials(r, workloads, problems);
  checkCallers(r, workloads, problems);
  checkCallerNetwork(r, workloads, problems);
  return { problems, workloads };
}

/** Collects the container's environment as Kubernetes builds it (envFrom first, then env overrides). */
function workloadEnv(r: Render, o: K8sObject, process: string, container: any, at: string, problems: string[]): Workload {
  const env: Record<string, string> = {};
  const fromSecret = new Set<string>();
  const secretRefs: Workload['secretRefs'] = {};
  for (const src of container.envFrom ?? []) {
    const prefix: string = src.prefix ?? '';
    if (src.configMapRef) {
      const cm = r.objects.find((x) => x.kind === 'ConfigMap' && x.metadata.name === src.configMapRef.name);
      if (!cm) {
        problems.push(`${at}: envFrom ConfigMap "${src.configMapRef.name}" is not rendered by the chart, so its names cannot be checked`);
        continue;
      }
      for (const [k, v] of Object.entries<string>(cm.data ?? {})) {
        env[prefix + k] = String(v);
        if (SECRET_SETTINGS.includes(prefix + k))
          problems.push(`${at}: ConfigMap "${cm.metadata.name}" holds the credential ${prefix + k}`);
      }
    } else if (src.secretRef) {
      const data = secretData(r, o, src.secretRef.name, at, problems);
      if (!data) continue;
      for (const [k, v] of Object.entries(data)) {
        env[prefix + k] = v;
        fromSecret.add(prefix + k);
      }
    } else {
      problems.push(`${at}: unsupported envFrom source ${JSON.stringify(src)}`);
    }
  }
  const seen = new Set<string>();
  for (const e of container.env ?? []) {
    if (seen.has(e.name)) problems.push(`${at}: env ${e.name} is listed twice`);
    seen.add(e.name);
    fromSecret.delete(e.name);
    delete secretRefs[e.name];
    if (e.value !== undefined) {
      env[e.name] = String(e.value);
      if (SECRET_SETTINGS.includes(e.name)) problems.push(`${at}: env ${e.name} is a credential written as a literal value`);
    } else if (e.valueFrom?.secretKeyRef) {
      const ref = e.valueFrom.secretKeyRef;
      const data = secretData(r, o, ref.name, at, problems);
      if (!data) continue;
      if (!(ref.key in data)) {
        problems.push(
          `${at}: env ${e.name} reads key "${ref.key}" of Secret "${ref.name}", which has only ${Object.keys(data).join(', ')}`,
        );
        continue;
      }
      env[e.name] = data[ref.key]!;
      fromSecret.add(e.name);
      secretRefs[e.name] = { secret: ref.name, key: ref.key };
    } else if (e.valueFrom?.configMapKeyRef) {
      const ref = e.valueFrom.configMapKeyRef;
      const cm = r.objects.find((x) => x.kind === 'ConfigMap' && x.metadata.name === ref.name);
      const value = cm?.data?.[ref.key];
      if (value === undefined)
        problems.push(`${at}: env ${e.name} reads key "${ref.key}" of ConfigMap "${ref.name}", which the chart does not render`);
      else env[e.name] = String(value);
    } else {
      // fieldRef / resourceFieldRef: known only in the pod.
      env[e.name] = `dummy-${e.name}`;
    }
  }
  return { object: o, process, container, env, fromSecret, secretRefs };
}

/** Every key name under `secrets.keys` (nested maps flattened). */
function secretKeyNames(keys: unknown): string[] {
  if (typeof keys === 'string') return [keys];
  return isMap(keys) ? Object.values(keys).flatMap(secretKeyNames) : [];
}

/** A dummy credential for a key of an existing Secret: long enough for every minimum (32 characters). */
const dummyCredential = (key: string) => `dummy-${key}-`.padEnd(48, 'x');

/**
 * What an existing Secret holds as far as the chart may assume: the keys named in `secrets.keys`, with dummy
 * credentials, and each service's INTERNAL_CALLERS key filled the way the docs' script fills it (the callers'
 * names and the SHA-256 of their dummy credentials).
 */
function existingSecretDummies(values: Record<string, any>): Record<string, string> {
  const keys = values.secrets?.keys ?? {};
  const out = Object.fromEntries(secretKeyNames(keys).map((k) => [k, dummyCredential(k)]));
  for (const [block, key] of Object.entries<string>(keys.internalCallers ?? {})) {
    const service = Object.keys(CALLERS).find((p) => blockKey(p) === block);
    const entries = (service ? CALLERS[service]! : []).map((c) => {
      const tokenKey: string = keys.internalAuthTokens?.[blockKey(c)] ?? `no key for ${c}`;
      return `${c}:${credentialHash(dummyCredential(tokenKey))}`;
    });
    if (entries.length > 0) out[key] = entries.join(',');
  }
  return out;
}

/**
 * The data of a Secret a workload reads: decoded from the chart-made Secret, or, with
 * `secrets.existingSecret`, dummies for the keys named in `secrets.keys` (the only keys the chart may
 * assume the operator's Secret holds).
 */
function secretData(r: Render, o: K8sObject, name: string, at: string, problems: string[]): Record<string, string> | undefined {
  const s = r.values.secrets ?? {};
  if (s.existingSecret) {
    if (name !== s.existingSecret) {
      problems.push(`${at}: reads Secret "${name}", but secrets.existingSecret is "${s.existingSecret}" and the chart makes no Secret`);
      return undefined;
    }
    return existingSecretDummies(r.values);
  }
  const secret = r.objects.find((x) => x.kind === 'Secret' && x.metadata.name === name);
  if (!secret) {
    problems.push(`${at}: reads Secret "${name}", which the chart does not render (and secrets.existingSecret is empty)`);
    return undefined;
  }
  // A migration Job is a pre-install hook: the regular Secret does not exist yet when it runs, so it must
  // read a hook Secret created before it (lower weight). A Deployment must not read a hook Secret (deleted
  // once the hooks succeed).
  const hook = (x: K8sObject) => x.metadata.annotations?.['helm.sh/hook'] ?? '';
  const weight = (x: K8sObject) => Number(x.metadata.annotations?.['helm.sh/hook-weight'] ?? 0);
  if (o.kind === 'Job' && hook(o)) {
    const needs = hook(o).split(',');
    if (!needs.every((h) => hook(secret).split(',').includes(h)) || weight(secret) >= weight(o)) {
      problems.push(`${at}: runs as a ${hook(o)} hook but reads Secret "${name}", which is not a hook Secret created before it`);
    }
  } else if (o.kind === 'Deployment' && hook(secret)) {
    problems.push(`${at}: reads the hook Secret "${name}" (${hook(secret)}), which is deleted once the hooks succeed`);
  }
  return decodeSecret(secret);
}

function decodeSecret(secret: K8sObject): Record<string, string> {
  const data: Record<string, string> = {};
  for (const [k, v] of Object.entries<string>(secret.data ?? {})) data[k] = Buffer.from(v, 'base64').toString('utf8');
  for (const [k, v] of Object.entries<string>(secret.stringData ?? {})) data[k] = String(v);
  return data;
}

/** (a) every name is read by the schema, (b) every required setting is provided, secrets come from Secrets. */
function checkNames(w: Workload, spec: ProcessSpec, at: string, problems: string[]): void {
  const props = spec.schema.properties as Record<string, { default?: unknown }>;
  const required = new Set<string>(spec.schema.required ?? []);
  for (const name of Object.keys(w.env).sort()) {
    if (name in props || RUNTIME_ENV.includes(name)) continue;
    const origin = w.fromSecret.has(name) ? ' (from a Secret)' : '';
    problems.push(`${at}: sets ${name}${origin}, which the ${w.process} settings do not read`);
  }
  for (const [name, prop] of Object.entries(props)) {
    if (required.has(name) && prop.default === undefined && !w.env[name]) {
      problems.push(`${at}: does not set ${name}, which the ${w.process} settings require (no default)`);
    }
    if (SECRET_SETTINGS.includes(name) && name in w.env && !w.fromSecret.has(name)) {
      problems.push(`${at}: ${name} carries a credential but is not read from a Secret`);
    }
  }
}

/** (f) the process's own loader accepts the rendered environment. */
function checkLoad(w: Workload, spec: ProcessSpec, at: string, problems: string[]): Record<string, unknown> | undefined {
  try {
    return spec.load(w.env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    for (const p of err.problems) problems.push(`${at}: the ${w.process} config loader rejects the rendered environment: ${p}`);
    return undefined;
  }
}

/** A loaded value that still points at loopback is a local-run default the chart forgot to set. */
function checkLoopback(loaded: Record<string, unknown>, env: Record<string, string | undefined>, at: string, problems: string[]): void {
  for (const [name, value] of Object.entries(loaded)) {
    // The browser-facing base of deep links and invitation links; with `kubectl port-forward` (values-dev.yaml) it
    // is loopback on purpose, but it must always be set from the values, never left at the local-run default.
    if (name === 'PUBLIC_UI_URL') {
      if (env.PUBLIC_UI_URL === undefined) problems.push(`${at}: PUBLIC_UI_URL is not set (links would point at the local-run default)`);
      continue;
    }
    const text = Array.isArray(value) ? value.join(',') : typeof value === 'string' ? value : '';
    if (LOOPBACK.test(text)) {
      problems.push(
        `${at}: ${name} is ${JSON.stringify(text)}, a loopback address (a local-run default): unreachable from other pods and the kubelet`,
      );
    }
  }
}

/** (d) container ports are exactly the process's ports, with the numbers it will listen on. Returns name -> setting. */
function checkPorts(
  container: any,
  spec: ProcessSpec,
  loaded: Record<string, unknown> | undefined,
  at: string,
  problems: string[],
): Map<any, string> {
  const bySetting = new Map<any, string>();
  const declared: any[] = container.ports ?? [];
  const names = declared.map((p) => p.name).sort();
  const want = Object.keys(spec.ports).sort();
  if (names.join() !== want.join()) problems.push(`${at}: container ports are named [${names.join(', ')}], expected [${want.join(', ')}]`);
  for (const p of declared) {
    const setting = spec.ports[p.name];
    if (!setting) continue;
    bySetting.set(p.name, setting);
    bySetting.set(p.containerPort, setting);
    if ((p.protocol ?? 'TCP') !== 'TCP') problems.push(`${at}: port ${p.name} is ${p.protocol}, expected TCP`);
    if (loaded && loaded[setting] !== p.containerPort) {
      problems.push(
        `${at}: container port ${p.name} is ${p.containerPort}, but the process listens on ${setting}=${String(loaded[setting])}`,
      );
    }
  }
  for (const name of Object.keys(spec.schema.properties)) {
    if (/_PORT$|^PORT$/.test(name) && !Object.values(spec.ports).includes(name)) {
      problems.push(`${at}: the ${name} setting has no container port (add it to PROCESSES.ports in this test and to the chart)`);
    }
  }
  return bySetting;
}

/** (e) probes use the handler the process serves, on the port it listens on. */
function checkProbes(
  container: any,
  spec: ProcessSpec,
  loaded: Record<string, unknown> | undefined,
  ports: Map<any, string>,
  at: string,
  problems: string[],
): void {
  const want = spec.probes;
  for (const kind of ['liveness', 'readiness', 'startup'] as const) {
    const probe = container[`${kind}Probe`];
    if (!probe) {
      problems.push(`${at}: no ${kind} probe`);
      continue;
    }
    if (want.kind === 'grpc') {
      if (!probe.grpc) problems.push(`${at}: ${kind} probe is not a gRPC probe (the process serves grpc.health.v1 on ${want.port})`);
      else {
        if (loaded && probe.grpc.port !== loaded[want.port]) {
          problems.push(`${at}: ${kind} probe asks gRPC port ${probe.grpc.port}, but ${want.port}=${String(loaded[want.port])}`);
        }
        if ((probe.grpc.service ?? '') !== want[kind]) {
          problems.push(
            `${at}: ${kind} probe asks gRPC health service ${JSON.stringify(probe.grpc.service ?? '')}, expected ${JSON.stringify(want[kind])}`,
          );
        }
      }
    } else {
      const get = probe.httpGet;
      if (!get) {
        problems.push(`${at}: ${kind} probe is not an HTTP GET probe`);
        continue;
      }
      if (ports.get(get.port) !== want.port) problems.push(`${at}: ${kind} probe targets port ${get.port}, not the ${want.port} port`);
      if (get.path !== want[kind]) problems.push(`${at}: ${kind} probe path is ${get.path}, expected ${want[kind]}`);
    }
  }
}

/** Every Service selects exactly one Deployment and its targetPorts are ports that Deployment declares. */
function checkServices(r: Render, problems: string[]): void {
  for (const svc of r.objects.filter((o) => o.kind === 'Service')) {
    const at = `Service/${svc.metadata.name}`;
    const targets = deploymentsSelectedBy(r, svc);
    if (targets.length !== 1) {
      problems.push(`${at}: selects ${targets.length} Deployments (${targets.map((d) => d.metadata.name).join(', ')}), expected 1`);
      continue;
    }
    const ports = targets[0]!.spec.template.spec.containers.flatMap((c: any) => c.ports ?? []);
    for (const p of svc.spec.ports ?? []) {
      const t = p.targetPort ?? p.port;
      if (!ports.some((cp: any) => cp.name === t || cp.containerPort === t)) {
        problems.push(`${at}: port ${p.name} targets ${t}, which Deployment/${targets[0]!.metadata.name} does not declare`);
      }
    }
  }
}

function deploymentsSelectedBy(r: Render, svc: K8sObject): K8sObject[] {
  const sel: Record<string, string> = svc.spec.selector ?? {};
  return r.objects.filter(
    (o) =>
      o.kind === 'Deployment' &&
      Object.keys(sel).length > 0 &&
      Object.entries(sel).every(([k, v]) => o.spec.template.metadata.labels?.[k] === v),
  );
}

/**
 * Settings that point at an in-cluster Service (`http://<service>.<namespace>.svc:<port>`) reach the
 * component the name says (IDENTITY_URL: identity; RUNS_URL: runs, ...) on the right port: the RPC
 * port through its headless Service, or the internal HTTP port through its ClusterIP one for `*_HTTP_URL`. A
 * URL of a dev.enabled instance (S3_ENDPOINT: the dev S3 server) reaches a port its container declares, and
 * the NetworkPolicies let the workload through to it.
 */
function checkServiceUrls(r: Render, o: K8sObject, loaded: Record<string, unknown>, process: string, at: string, problems: string[]): void {
  for (const [name, value] of Object.entries(loaded)) {
    if (typeof value !== 'string' || !/^https?:\/\//.test(value)) continue;
    const url = new URL(value);
    const m = /^([a-z0-9-]+)\.([a-z0-9-]+)\.svc(\.cluster\.local)?$/.exec(url.hostname);
    if (!m) continue;
    const [, svcName, ns] = m;
    const svc = r.objects.find((o) => o.kind === 'Service' && o.metadata.name === svcName);
    if (ns !== NAMESPACE || !svc) {
      problems.push(`${at}: ${name}=${value} names Service ${svcName} in ${ns}, which the chart does not render`);
      continue;
    }
    const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
    const sp = (svc.spec.ports ?? []).find((p: any) => p.port === port);
    const target = deploymentsSelectedBy(r, svc)[0];
    if (!sp || !target) {
      problems.push(`${at}: ${name}=${value}: Service ${svcName} has no port ${port}`);
      continue;
    }
    const callee = target.metadata.labels?.['app.kubernetes.io/component'] ?? '';
    const calleeSpec = PROCESSES[callee];
    const targetPort = sp.targetPort ?? sp.port;
    const cp = target.spec.template.spec.containers
      .flatMap((c: any) => c.ports ?? [])
      .find((c: any) => c.name === targetPort || c.containerPort === targetPort);
    if (!cp) {
      problems.push(
        `${at}: ${name}=${value}: Service ${svcName} port ${port} targets ${targetPort}, which is no container port of ${callee}`,
      );
      continue;
    }
    if (!calleeSpec && r.values.dev?.enabled && DEV_INSTANCES.includes(callee)) {
      checkReachesDevInstance(r, o, target, cp, `${at}: ${name}=${value}`, problems);
      continue;
    }
    const setting = calleeSpec?.ports[cp.name];
    const stem = name.replace(/_HTTP_URL$|_URL$/, '');
    const expectedCallee = stem.toLowerCase().replace(/_/g, '-');
    if (PROCESSES[expectedCallee] && callee !== expectedCallee) {
      problems.push(`${at}: ${name}=${value} reaches ${callee}, expected ${expectedCallee}`);
    }
    const wantSetting = calleeSpec ? (name.endsWith('_HTTP_URL') ? calleeSpec.httpPort : calleeSpec.rpcPort) : undefined;
    if (!setting || setting !== wantSetting) {
      problems.push(`${at}: ${name}=${value} reaches ${callee}'s ${setting ?? 'unknown'} port, expected its ${wantSetting ?? '?'} port`);
    } else if (calleeSpec) {
      // RPC: the headless Service, whose name resolves to every ready pod (the kit deals calls over them:
      // service-kit replicas.ts). Internal HTTP: the ClusterIP Service, which spreads a pool's connections (a
      // headless name would put each one on the first address).
      const headless = svc.spec.clusterIP === 'None';
      const rpc = !name.endsWith('_HTTP_URL');
      if (rpc !== headless)
        problems.push(
          `${at}: ${name}=${value}: Service ${svcName} is ${headless ? 'headless' : 'not headless'}, expected ${rpc ? 'a headless one' : 'a ClusterIP one'}`,
        );
    }
    if (callee === process) problems.push(`${at}: ${name}=${value} points at the component itself`);
  }
}

// ---- internal credentials ------------------------------------------------------------------------

/** The entries of an INTERNAL_CALLERS value: [name, hash] pairs, as written (parseCallers would merge duplicates). */
function callerEntries(value: string | undefined): [string, string][] {
  return (value ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)
    .map((p) => {
      const i = p.indexOf(':');
      return i < 0 ? [p, ''] : [p.slice(0, i), p.slice(i + 1)];
    });
}

const sorted = (xs: Iterable<string>) => [...new Set(xs)].sort();
const listed = (xs: Iterable<string>) => `[${sorted(xs).join(', ')}]`;

/**
 * Each process presents its own credential: INTERNAL_AUTH_TOKEN comes from its own key
 * (secrets.keys.internalAuthTokens.<block>); no two components share a key, none reads the admin CLI's,
 * and the chart-made Secret holds a different credential under each key.
 */
function checkCredentials(r: Render, workloads: Workload[], problems: string[]): void {
  const keys: Record<string, string> = r.values.secrets?.keys?.internalAuthTokens ?? {};
  const adminKey = keys[ADMIN];
  const users = new Map<string, Set<string>>();
  for (const w of workloads) {
    const at = `${w.object.kind}/${w.object.metadata.name} (${w.process})`;
    const ref = w.secretRefs.INTERNAL_AUTH_TOKEN;
    if (!ref) continue; // reported by checkNames (missing, or not from a Secret)
    const own = keys[blockKey(w.process)];
    if (ref.key !== own) {
      problems.push(
        `${at}: INTERNAL_AUTH_TOKEN reads key "${ref.key}", not its own credential "${own ?? '(none)'}" (secrets.keys.internalAuthTokens.${blockKey(w.process)})`,
      );
    }
    if (ref.key === adminKey) problems.push(`${at}: INTERNAL_AUTH_TOKEN reads the admin CLI's credential "${ref.key}"; no pod may hold it`);
    if (!users.has(ref.key)) users.set(ref.key, new Set());
    users.get(ref.key)!.add(w.process);
  }
  for (const [key, procs] of users) {
    if (procs.size > 1)
      problems.push(`Secret key "${key}" is the INTERNAL_AUTH_TOKEN of ${listed(procs)}: every component needs its own credential`);
  }
  if (r.values.secrets?.existingSecret) return;
  for (const secret of r.objects.filter((o) => o.kind === 'Secret')) {
    const data = decodeSecret(secret);
    const byValue = new Map<string, string[]>();
    for (const key of Object.values(keys)) {
      const v = data[key];
      if (v === undefined) continue;
      byValue.set(v, [...(byValue.get(v) ?? []), key]);
    }
    for (const same of byValue.values()) {
      if (same.length > 1) problems.push(`Secret/${secret.metadata.name}: keys ${listed(same)} hold the same credential`);
    }
  }
}

/**
 * (a) Every service's INTERNAL_CALLERS lists exactly its callers of the code's graph; with the chart-made
 * Secret each hash is the SHA-256 of that caller's credential in the Secret the workload reads; with
 * secrets.existingSecret it is read from the service's key secrets.keys.internalCallers.<block>.
 */
function checkCallers(r: Render, workloads: Workload[], problems: string[]): void {
  const s = r.values.secrets ?? {};
  for (const w of workloads) {
    if (w.process === 'gateway') continue;
    const at = `${w.object.kind}/${w.object.metadata.name} (${w.process})`;
    const expected = CALLERS[w.process];
    if (!expected) {
      problems.push(`${at}: ${w.process} has no callers in packages/testkit/src/topology.ts`);
      continue;
    }
    if (s.existingSecret) {
      const want: string | undefined = s.keys?.internalCallers?.[blockKey(w.process)];
      const ref = w.secretRefs.INTERNAL_CALLERS;
      if (!ref || ref.secret !== s.existingSecret || ref.key !== want) {
        problems.push(
          `${at}: with secrets.existingSecret, INTERNAL_CALLERS must come from key "${want ?? '(none)'}" of Secret "${s.existingSecret}" (the chart cannot hash credentials it does not see), not ${ref ? `key "${ref.key}" of Secret "${ref.secret}"` : 'a ConfigMap or a literal'}`,
        );
      }
    }
    const entries = callerEntries(w.env.INTERNAL_CALLERS);
    const names = entries.map(([n]) => n);
    if (names.length !== new Set(names).size) problems.push(`${at}: INTERNAL_CALLERS names a caller twice: [${names.join(', ')}]`);
    if (listed(names) !== listed(expected)) {
      problems.push(
        `${at}: INTERNAL_CALLERS lists ${listed(names)}, but its callers are ${listed(expected)} (packages/testkit/src/topology.ts)`,
      );
    }
    if (s.existingSecret) continue;
    const tokenRef = w.secretRefs.INTERNAL_AUTH_TOKEN;
    const secret = tokenRef && r.objects.find((o) => o.kind === 'Secret' && o.metadata.name === tokenRef.secret);
    if (!secret) continue; // reported by the Secret checks
    const data = decodeSecret(secret);
    for (const [name, hash] of entries) {
      const key: string | undefined = s.keys?.internalAuthTokens?.[blockKey(name)];
      const credential = key === undefined ? undefined : data[key];
      if (credential === undefined) {
        problems.push(`${at}: INTERNAL_CALLERS names ${name}, whose credential is not in Secret "${secret.metadata.name}"`);
      } else if (hash !== credentialHash(credential)) {
        problems.push(
          `${at}: INTERNAL_CALLERS gives ${name} the hash ${hash.slice(0, 12)}…, not the SHA-256 of its credential (key "${key}" of Secret "${secret.metadata.name}")`,
        );
      }
    }
  }
}

/**
 * The network lets a workload reach a dev instance's port: when the chart renders NetworkPolicies, the
 * instance's admit the workload's pods on that port and the workload's own let it out to the instance.
 */
function checkReachesDevInstance(
  r: Render,
  from: K8sObject,
  instance: K8sObject,
  port: { name?: string; containerPort: number },
  at: string,
  problems: string[],
): void {
  const policies = r.objects.filter((x) => x.kind === 'NetworkPolicy');
  if (policies.length === 0) return;
  const labelsOf = (d: K8sObject): Record<string, string> => d.spec.template.metadata.labels ?? {};
  const policiesOf = (d: K8sObject) => policies.filter((p) => selects(p.spec.podSelector?.matchLabels, labelsOf(d)));
  // podSelector-only peers (this namespace's pods); an absent or empty peer list is any peer.
  const peersInclude = (peers: any[] | undefined, d: K8sObject) =>
    !peers ||
    peers.length === 0 ||
    peers.some(
      (peer) => peer.podSelector && !peer.namespaceSelector && !peer.ipBlock && selects(peer.podSelector.matchLabels, labelsOf(d)),
    );
  const component = instance.metadata.labels?.['app.kubernetes.io/component'] ?? instance.metadata.name;
  const admitted = policiesOf(instance)
    .flatMap((p) => p.spec.ingress ?? [])
    .some((rule: any) => coversPort(rule.ports, port) && peersInclude(rule.from, from));
  if (!admitted) problems.push(`${at}: the NetworkPolicy of ${component} does not admit it on port ${port.containerPort}`);
  const out = policiesOf(from)
    .flatMap((p) => p.spec.egress ?? [])
    .some((rule: any) => coversPort(rule.ports, port) && peersInclude(rule.to, instance));
  if (!out) problems.push(`${at}: its NetworkPolicy does not let it reach ${component} on port ${port.containerPort}`);
}

const selects = (selector: Record<string, string> | undefined, labels: Record<string, string> | undefined) =>
  !!selector && Object.keys(selector).length > 0 && Object.entries(selector).every(([k, v]) => labels?.[k] === v);

/** Whether a NetworkPolicy port list (absent: every port) includes a container port. */
const coversPort = (ports: any[] | undefined, port: { name?: string; containerPort: number }) =>
  !ports || ports.length === 0 || ports.some((p) => p.port === undefined || p.port === port.containerPort || p.port === port.name);

/**
 * (b) The components a service's NetworkPolicies admit on its RPC port are exactly the names its
 * INTERNAL_CALLERS lists, `admin` standing for the ADMIN_CLI_HOST pods (none for that service itself: the
 * CLI calls it over loopback); and each of them may leave for it (egress on that port).
 */
function checkCallerNetwork(r: Render, workloads: Workload[], problems: string[]): void {
  const policies = r.objects.filter((o) => o.kind === 'NetworkPolicy');
  if (policies.length === 0) return;
  const deployments = r.objects.filter((o) => o.kind === 'Deployment');
  const podLabels = (d: K8sObject): Record<string, string> => d.spec.template.metadata.labels ?? {};
  const componentOf = (d: K8sObject) => d.metadata.labels?.['app.kubernetes.io/component'] ?? d.metadata.name;
  const policiesOf = (d: K8sObject) => policies.filter((p) => selects(p.spec.podSelector?.matchLabels, podLabels(d)));
  /** The Deployments a peer list selects (podSelector-only peers: this namespace's pods). */
  const selected = (peers: any[]) =>
    peers
      .filter((peer) => peer.podSelector && !peer.namespaceSelector && !peer.ipBlock)
      .flatMap((peer) => deployments.filter((d) => selects(peer.podSelector.matchLabels, podLabels(d))));
  for (const w of workloads) {
    if (w.object.kind !== 'Deployment' || w.process === 'gateway' || w.env.INTERNAL_CALLERS === undefined) continue;
    const at = `Deployment/${w.object.metadata.name} (${w.process})`;
    const rpc = (w.container.ports ?? []).find((p: any) => p.name === 'grpc');
    if (!rpc) continue; // reported by checkPorts
    const own = policiesOf(w.object);
    if (own.length === 0) {
      problems.push(`${at}: no NetworkPolicy selects its pods`);
      continue;
    }
    const admitted = new Set<string>();
    for (const rule of own.flatMap((p) => p.spec.ingress ?? [])) {
      if (!coversPort(rule.ports, rpc)) continue;
      if (!rule.from || rule.from.length === 0) {
        problems.push(`${at}: a NetworkPolicy admits any source on its RPC port ${rpc.containerPort}`);
        continue;
      }
      for (const d of selected(rule.from)) admitted.add(componentOf(d));
    }
    const names = callerEntries(w.env.INTERNAL_CALLERS).map(([n]) => n);
    const expected = new Set(names.filter((n) => n !== ADMIN));
    if (names.includes(ADMIN) && w.process !== ADMIN_CLI_HOST) expected.add(ADMIN_CLI_HOST);
    // A disabled component (no Deployment) has no pods to admit.
    for (const c of [...expected]) if (!deployments.some((d) => componentOf(d) === c)) expected.delete(c);
    const why = (c: string) => (names.includes(c) ? '' : ` (${ADMIN}: the admin CLI runs in the ${ADMIN_CLI_HOST} pods)`);
    for (const c of sorted(admitted)) {
      if (!expected.has(c)) {
        problems.push(
          `${at}: its NetworkPolicy admits ${c} on the RPC port ${rpc.containerPort}, which its INTERNAL_CALLERS does not list`,
        );
      }
    }
    for (const c of sorted(expected)) {
      if (!admitted.has(c)) {
        problems.push(
          `${at}: its INTERNAL_CALLERS lists ${names.includes(c) ? c : ADMIN}, but its NetworkPolicy does not admit ${c} on the RPC port ${rpc.containerPort}${why(c)}`,
        );
        continue;
      }
      for (const caller of deployments.filter((d) => componentOf(d) === c)) {
        const out = policiesOf(caller).flatMap((p) => p.spec.egress ?? []);
        const reaches = out.some(
          (rule: any) =>
            coversPort(rule.ports, rpc) &&
            (!rule.to || rule.to.length === 0 || selected(rule.to).some((d) => d.metadata.name === w.object.metadata.name)),
        );
        if (!reaches) {
          problems.push(
            `Deployment/${caller.metadata.name} (${c}): its NetworkPolicy does not let it reach ${w.process} on the RPC port ${rpc.containerPort}${why(c)}`,
          );
        }
      }
    }
  }
}
