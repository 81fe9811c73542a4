/**
 * The Helm chart gives every process exactly what it reads. For every values set (the defaults and every
 * charts/assay/ci/*.yaml), `helm template` is checked against the gateway's and each service's settings
 * schema and real config loader (test/deploy/chart-check.ts), for every Deployment and migration Job:
 *  (a) every environment name (ConfigMap via envFrom, env, Secret refs) is a setting the process reads
 *      (or a Node.js runtime variable such as NODE_OPTIONS);
 *  (b) every setting without a default is provided; credentials come from a Secret;
 *  (c) every secretKeyRef names a key of the chart-made Secret (or of `secrets.keys` with
 *      secrets.existingSecret); migration Jobs read the hook Secret created before them;
 *  (d) container ports are the process's ports (by name) with the numbers its loader yields;
 *  (e) probes: gRPC on RPC_PORT for services (liveness and startup ask for the `liveness` health name,
 *      readiness for ""), HTTP GET /healthz and /readyz on PORT for the gateway;
 *      Service targetPorts exist; in-cluster URLs reach the named component on its RPC port (through its
 *      headless Service) or HTTP port (through its ClusterIP one);
 *      nothing is left at a loopback default (BIND_HOST, URLs, brokers);
 *  (f) the loader accepts the rendered environment (no ConfigError); only processes with a schema have a
 *      migration Job (not the gateway).
 * Internal credentials (the caller graph is SERVICES[].callers of packages/testkit/src/topology.ts):
 *  - every process reads INTERNAL_AUTH_TOKEN from its own key (secrets.keys.internalAuthTokens.<block>);
 *  (a) every service's INTERNAL_CALLERS lists exactly its callers, and with the chart-made Secret each hash is
 *      the SHA-256 of that caller's credential in the rendered Secret (with secrets.existingSecret it is read
 *      from the service's key secrets.keys.internalCallers.<block>);
 *  (b) the components its NetworkPolicy admits on its RPC port are exactly the names INTERNAL_CALLERS lists
 *      (`admin`: the identity pods, where the admin CLI runs), and each of them has egress to it;
 *  (c) no two components share a credential key (nor a credential), and no pod reads the admin CLI's.
 * Negative cases (default render with `--set`, or with one object edited) prove the checker reports a
 * stray name, a missing required setting, a wrong Secret key (chart-made and existingSecret), a Job on the
 * regular Secret, a credential in a ConfigMap, a wrong container port, probe or targetPort, an invalid
 * value, a loopback bind, an in-cluster URL on the wrong port or Service, a gateway migration Job, and each
 * credential check above.
 * Needs .cache/bin/helm (`bash scripts/charts/install-tools.sh`); fails, never skips, without it.
 */
import { credentialHash } from '@assay/config';
import { CALLERS, checkRender, PROCESSES, render, valuesSets, type Render } from './chart-check';

const sets = valuesSets();

describe.each(sets)('chart rendered with $label', (set) => {
  let r: Render;
  beforeAll(() => {
    r = render(set);
  });

  it('gives every Deployment and migration Job exactly the environment its process reads, with matching ports and probes', () => {
    const { problems, workloads } = checkRender(r);
    expect(problems).toEqual([]);
    expect(workloads.length).toBeGreaterThan(0);
    if (set.file === undefined) {
      // With the defaults, every process runs as a Deployment and every one with a schema has a migration Job.
      const seen = (kind: string) => workloads.filter((w) => w.object.kind === kind).map((w) => w.process);
      expect(seen('Deployment').sort()).toEqual(Object.keys(PROCESSES).sort());
      expect(seen('Job').sort()).toEqual(
        Object.entries(PROCESSES)
          .filter(([, p]) => p.migrates)
          .map(([name]) => name)
          .sort(),
      );
    }
  });
});

describe('artifact storage', () => {
  const container = (r: Render, name: string) =>
    r.objects.find((o) => o.kind === 'Deployment' && o.metadata.name === name)!.spec.template.spec.containers[0];
  const secretRef = (c: any, env: string) => c.env?.find((e: any) => e.name === env)?.valueFrom?.secretKeyRef;
  const objectStorageEgress = (r: Render) =>
    r.objects
      .filter((o) => o.kind === 'NetworkPolicy')
      .filter((np) => (np.spec.egress ?? []).some((rule: any) => (rule.ports ?? []).some((p: any) => p.port === 443)))
      .map((np) => np.metadata.name);

  it('defaults: S3 without keys (the SDK default chain), and only runs may reach the object storage', () => {
    const r = render({ label: 'default values' });
    const runs = checkRender(r).workloads.find((w) => w.object.kind === 'Deployment' && w.process === 'runs')!;
    expect(runs.env).toMatchObject({ ARTIFACT_STORAGE: 's3', S3_BUCKET: 'assay-artifacts', S3_FORCE_PATH_STYLE: 'true' });
    expect(runs.env.S3_ENDPOINT).toBeUndefined();
    expect(runs.env.S3_CREATE_BUCKET).toBeUndefined();
    expect(runs.env.S3_ACCESS_KEY_ID).toBeUndefined();
    expect(runs.env.S3_SECRET_ACCESS_KEY).toBeUndefined();
    expect(objectStorageEgress(r)).toEqual(['assay-runs']);
  });

  it('dev: runs reaches the in-cluster S3 server with the root credentials it runs with (one Secret, the same keys)', () => {
    const r = render(valuesSets().find((s) => s.file?.endsWith('values-dev.yaml'))!);
    const runs = container(r, 'assay-runs');
    const s3 = container(r, 'assay-s3');
    expect(secretRef(runs, 'S3_ACCESS_KEY_ID')).toEqual(secretRef(s3, 'ROOT_ACCESS_KEY_ID'));
    expect(secretRef(runs, 'S3_SECRET_ACCESS_KEY')).toEqual(secretRef(s3, 'ROOT_SECRET_ACCESS_KEY'));
    const w = checkRender(r).workloads.find((x) => x.object.kind === 'Deployment' && x.process === 'runs')!;
    expect(w.env).toMatchObject({ S3_ENDPOINT: 'http://assay-s3.assay.svc:7070', S3_CREATE_BUCKET: 'true', S3_FORCE_PATH_STYLE: 'true' });
    expect(w.env.S3_ACCESS_KEY_ID).toMatch(/^assay[a-z0-9]{16}$/);
    expect(objectStorageEgress(r)).toEqual([]);
  });

  it('the checker catches runs shut out of the dev S3 server (its egress, or the server admitting another component)', () => {
    const r = render(valuesSets().find((s) => s.file?.endsWith('values-dev.yaml'))!);
    const np = (name: string) => r.objects.find((o) => o.kind === 'NetworkPolicy' && o.metadata.name === name)!;
    np('assay-runs').spec.egress = np('assay-runs').spec.egress.filter((rule: any) => rule.ports?.[0]?.port !== 7070);
    np('assay-s3').spec.ingress[0].from[0].podSelector.matchLabels['app.kubernetes.io/component'] = 'webhooks';
    expect(checkRender(r).problems).toEqual([
      'Deployment/assay-runs (runs): S3_ENDPOINT=http://assay-s3.assay.svc:7070: the NetworkPolicy of s3 does not admit it on port 7070',
      'Deployment/assay-runs (runs): S3_ENDPOINT=http://assay-s3.assay.svc:7070: its NetworkPolicy does not let it reach s3 on port 7070',
    ]);
  });

  it('the checker catches an S3 key in a ConfigMap (runs.config.S3_SECRET_ACCESS_KEY)', () => {
    const problems = checkRender(render({ label: 'default values', set: ['runs.config.S3_SECRET_ACCESS_KEY=plain'] })).problems;
    expect(problems).toContain('Deployment/assay-runs (runs): ConfigMap "assay-runs" holds the credential S3_SECRET_ACCESS_KEY');
  });
});

it('the chart deploys every service of the code, and the checks know every caller graph entry', () => {
  // A service added to packages/testkit/src/topology.ts must be added to PROCESSES here (and to the chart).
  expect(Object.keys(CALLERS).sort()).toEqual(
    Object.keys(PROCESSES)
      .filter((p) => p !== 'gateway')
      .sort(),
  );
});

describe('the checker catches', () => {
  const base = { label: 'default values' };
  const external = () => valuesSets().find((s) => s.file?.endsWith('external-values.yaml'))!;
  const problemsOf = (r: Render) => checkRender(r).problems;
  const withSet = (...set: string[]) => problemsOf(render({ ...base, set }));
  /** The default render with one object changed in place. */
  const edited = (kind: string, name: string, edit: (o: any) => void) => {
    const r = render(base);
    const o = r.objects.find((x) => x.kind === kind && x.metadata.name === name);
    expect(o).toBeDefined();
    edit(o);
    return problemsOf(r);
  };

  it('PUBLIC_UI_URL left out of a process that reads it (identity: its invitation links would point at localhost)', () => {
    const problems = edited('ConfigMap', 'assay-identity', (c) => delete c.data.PUBLIC_UI_URL);
    expect(problems).toContainEqual(expect.stringMatching(/assay-identity \(identity\): PUBLIC_UI_URL is not set/));
  });

  it('a name no schema reads (runs.config.TYPO_VAR), in the Deployment and in the migration Job', () => {
    const problems = withSet('runs.config.TYPO_VAR=x');
    expect(problems).toEqual([
      'Deployment/assay-runs (runs): sets TYPO_VAR, which the runs settings do not read',
      'Job/assay-runs-migrate (runs): sets TYPO_VAR, which the runs settings do not read',
    ]);
  });

  it('a required setting that is not provided (INTERNAL_AUTH_TOKEN dropped from a Deployment)', () => {
    const problems = edited('Deployment', 'assay-runs', (d) => {
      const c = d.spec.template.spec.containers[0];
      c.env = c.env.filter((e: any) => e.name !== 'INTERNAL_AUTH_TOKEN');
    });
    expect(problems).toContain(
      'Deployment/assay-runs (runs): does not set INTERNAL_AUTH_TOKEN, which the runs settings require (no default)',
    );
    expect(problems).toContainEqual(expect.stringMatching(/assay-runs \(runs\): the runs config loader rejects .*INTERNAL_AUTH_TOKEN/));
  });

  it('a secretKeyRef to a key the Secret does not have', () => {
    const problems = edited('Deployment', 'assay-webhooks', (d) => {
      const ref = d.spec.template.spec.containers[0].env.find((e: any) => e.name === 'SECRETS_KEY').valueFrom.secretKeyRef;
      ref.key = 'SECRETS_KY';
    });
    expect(problems).toContainEqual(
      expect.stringMatching(/^Deployment\/assay-webhooks \(webhooks\): env SECRETS_KEY reads key "SECRETS_KY" of Secret "assay"/),
    );
  });

  it('a Secret-fed name the process does not read (SECRETS_KEY misspelt in the env list)', () => {
    const problems = edited('Deployment', 'assay-webhooks', (d) => {
      d.spec.template.spec.containers[0].env.find((e: any) => e.name === 'SECRETS_KEY').name = 'SECRET_KEY';
    });
    expect(problems).toContain(
      'Deployment/assay-webhooks (webhooks): sets SECRET_KEY (from a Secret), which the webhooks settings do not read',
    );
    expect(problems).toContain(
      'Deployment/assay-webhooks (webhooks): does not set SECRETS_KEY, which the webhooks settings require (no default)',
    );
  });

  it('with secrets.existingSecret, a secretKeyRef to a key not named in secrets.keys', () => {
    const r = render(external());
    const job = r.objects.find((o) => o.kind === 'Job' && o.metadata.name === 'assay-identity-migrate')!;
    job.spec.template.spec.containers[0].env.find((e: any) => e.name === 'REDIS_URL').valueFrom.secretKeyRef.key = 'REDIS';
    expect(checkRender(r).problems).toContainEqual(
      expect.stringMatching(
        /^Job\/assay-identity-migrate \(identity\): env REDIS_URL reads key "REDIS" of Secret "assay-secrets", which has only/,
      ),
    );
  });

  it('a credential put into a ConfigMap (runs.config.INTERNAL_AUTH_TOKEN)', () => {
    const problems = withSet('runs.config.INTERNAL_AUTH_TOKEN=plain');
    expect(problems).toContain('Deployment/assay-runs (runs): ConfigMap "assay-runs" holds the credential INTERNAL_AUTH_TOKEN');
    expect(problems).toContain('Job/assay-runs-migrate (runs): env INTERNAL_AUTH_TOKEN is a credential written as a literal value');
    expect(problems).toContain('Job/assay-runs-migrate (runs): env INTERNAL_AUTH_TOKEN is listed twice');
  });

  it('a migration Job reading the regular Secret (absent while pre-install hooks run)', () => {
    const problems = edited('Job', 'assay-reports-migrate', (j) => {
      for (const e of j.spec.template.spec.containers[0].env) if (e.valueFrom?.secretKeyRef) e.valueFrom.secretKeyRef.name = 'assay';
    });
    expect(problems).toContainEqual(
      expect.stringMatching(/^Job\/assay-reports-migrate \(reports\): runs as a pre-install,pre-upgrade hook but reads Secret "assay"/),
    );
  });

  it('a container port that differs from the port the process listens on (runs.config.RPC_PORT=7001)', () => {
    const problems = withSet('runs.config.RPC_PORT=7001');
    expect(problems).toContain('Deployment/assay-runs (runs): container port grpc is 7000, but the process listens on RPC_PORT=7001');
    expect(problems).toContain('Deployment/assay-runs (runs): liveness probe asks gRPC port 7000, but RPC_PORT=7001');
  });

  it('a gateway probe on the wrong port or path', () => {
    const problems = edited('Deployment', 'assay-gateway', (d) => {
      d.spec.template.spec.containers[0].readinessProbe.httpGet = { path: '/healthz', port: 'metrics' };
    });
    expect(problems).toEqual([
      'Deployment/assay-gateway (gateway): readiness probe targets port metrics, not the PORT port',
      'Deployment/assay-gateway (gateway): readiness probe path is /healthz, expected /readyz',
    ]);
  });

  it('a service liveness probe that asks for the readiness health (a dependency outage would restart every pod)', () => {
    const problems = edited('Deployment', 'assay-webhooks', (d) => {
      delete d.spec.template.spec.containers[0].livenessProbe.grpc.service;
      d.spec.template.spec.containers[0].readinessProbe.grpc.service = 'liveness';
    });
    expect(problems).toEqual([
      'Deployment/assay-webhooks (webhooks): liveness probe asks gRPC health service "", expected "liveness"',
      'Deployment/assay-webhooks (webhooks): readiness probe asks gRPC health service "liveness", expected ""',
    ]);
  });

  it('a Service targetPort the Deployment does not declare', () => {
    const problems = edited('Service', 'assay-analytics-rpc', (s) => {
      s.spec.ports[0].targetPort = 'rpc';
    });
    expect(problems).toContain('Service/assay-analytics-rpc: port grpc targets rpc, which Deployment/assay-analytics does not declare');
    // ... and so the callers' ANALYTICS_URL leads nowhere.
    expect(problems).toContain(
      'Deployment/assay-gateway (gateway): ANALYTICS_URL=http://assay-analytics-rpc.assay.svc:7000: Service assay-analytics-rpc port 7000 targets rpc, which is no container port of analytics',
    );
  });

  it('RPC through a ClusterIP Service (one connection, one replica), internal HTTP through a headless one', () => {
    const rpc = edited('Service', 'assay-runs-rpc', (s) => delete s.spec.clusterIP);
    expect(rpc).toContain(
      'Deployment/assay-gateway (gateway): RUNS_URL=http://assay-runs-rpc.assay.svc:7000: Service assay-runs-rpc is not headless, expected a headless one',
    );
    expect(rpc).toContain(
      'Deployment/assay-analytics (analytics): RUNS_URL=http://assay-runs-rpc.assay.svc:7000: Service assay-runs-rpc is not headless, expected a headless one',
    );
    const http = edited('Service', 'assay-runs', (s) => (s.spec.clusterIP = 'None'));
    expect(http).toContain(
      'Deployment/assay-gateway (gateway): RUNS_HTTP_URL=http://assay-runs.assay.svc:9000: Service assay-runs is headless, expected a ClusterIP one',
    );
  });

  it('a value the process rejects (webhooks.config.WEBHOOK_TIMEOUT_MS=fast)', () => {
    const problems = withSet('webhooks.config.WEBHOOK_TIMEOUT_MS=fast');
    expect(problems).toContainEqual(
      expect.stringMatching(/^Deployment\/assay-webhooks \(webhooks\): the webhooks config loader rejects .*WEBHOOK_TIMEOUT_MS/),
    );
  });

  it('a process left listening on loopback (analytics.config.BIND_HOST=127.0.0.1)', () => {
    const problems = withSet('analytics.config.BIND_HOST=127.0.0.1');
    expect(problems).toContainEqual(
      expect.stringMatching(/^Deployment\/assay-analytics \(analytics\): BIND_HOST is "127\.0\.0\.1", a loopback address/),
    );
  });

  it('an in-cluster URL on the wrong port of the right Service (RUNS_URL on the HTTP port)', () => {
    const problems = withSet('gateway.config.RUNS_URL=http://assay-runs.assay.svc:9000');
    expect(problems).toContain(
      "Deployment/assay-gateway (gateway): RUNS_URL=http://assay-runs.assay.svc:9000 reaches runs's HTTP_PORT port, expected its RPC_PORT port",
    );
  });
  it('a migration Job for the gateway (it has no schema), which would also hand it DATABASE_URL', () => {
    const r = render(base);
    const job = structuredClone(r.objects.find((o) => o.kind === 'Job' && o.metadata.name === 'assay-identity-migrate')!);
    job.metadata.name = 'assay-gateway-migrate';
    job.spec.template.metadata.labels['assay-migrations-for'] = 'gateway';
    job.spec.template.spec.containers[0].env = job.spec.template.spec.containers[0].env.filter(
      (e: any) => e.name !== 'INTERNAL_AUTH_TOKEN',
    );
    r.objects.push(job);
    const problems = problemsOf(r);
    expect(problems).toContain('Job/assay-gateway-migrate (gateway): a migration Job, but gateway has no schema to migrate');
    expect(problems).toContain(
      'Job/assay-gateway-migrate (gateway): sets DATABASE_URL (from a Secret), which the gateway settings do not read',
    );
  });

  describe('internal credentials', () => {
    /** The ConfigMap's INTERNAL_CALLERS of a service, as a mutable list of [name, hash]. */
    const editCallers = (name: string, edit: (entries: string[][]) => string[][]) =>
      edited('ConfigMap', name, (cm) => {
        const entries = String(cm.data.INTERNAL_CALLERS)
          .split(',')
          .map((e) => e.split(':'));
        cm.data.INTERNAL_CALLERS = edit(entries)
          .map((e) => e.join(':'))
          .join(',');
      });

    it("(a) an INTERNAL_CALLERS hash that is not the SHA-256 of the caller's credential", () => {
      const problems = editCallers('assay-runs', (entries) =>
        entries.map(([n, h]) => [n!, n === 'gateway' ? credentialHash('not the gateway credential, 32+ characters') : h!]),
      );
      expect(problems).toEqual([
        expect.stringMatching(
          /^Deployment\/assay-runs \(runs\): INTERNAL_CALLERS gives gateway the hash [0-9a-f]{12}…, not the SHA-256 of its credential \(key "INTERNAL_AUTH_TOKEN_GATEWAY" of Secret "assay"\)$/,
        ),
      ]);
    });

    it('(a) a caller missing from INTERNAL_CALLERS (and so admitted by the network but refused)', () => {
      const problems = editCallers('assay-analytics', (entries) => entries.filter(([n]) => n !== 'reports'));
      expect(problems).toEqual([
        'Deployment/assay-analytics (analytics): INTERNAL_CALLERS lists [admin, gateway], but its callers are [admin, gateway, reports] (packages/testkit/src/topology.ts)',
        'Deployment/assay-analytics (analytics): its NetworkPolicy admits reports on the RPC port 7000, which its INTERNAL_CALLERS does not list',
      ]);
    });

    it("(a) with secrets.existingSecret, INTERNAL_CALLERS read from another service's key", () => {
      const r = render(external());
      const d = r.objects.find((o) => o.kind === 'Deployment' && o.metadata.name === 'assay-runs')!;
      d.spec.template.spec.containers[0].env.find((e: any) => e.name === 'INTERNAL_CALLERS').valueFrom.secretKeyRef.key =
        'INTERNAL_CALLERS_ANALYTICS';
      const problems = checkRender(r).problems;
      expect(problems).toContain(
        'Deployment/assay-runs (runs): with secrets.existingSecret, INTERNAL_CALLERS must come from key "INTERNAL_CALLERS_RUNS" of Secret "assay-secrets" (the chart cannot hash credentials it does not see), not key "INTERNAL_CALLERS_ANALYTICS" of Secret "assay-secrets"',
      );
      expect(problems).toContain(
        'Deployment/assay-runs (runs): INTERNAL_CALLERS lists [admin, gateway, reports], but its callers are [admin, analytics, gateway, reports] (packages/testkit/src/topology.ts)',
      );
    });

    it('(b) a NetworkPolicy admitting a component that is no caller', () => {
      const problems = edited('NetworkPolicy', 'assay-webhooks', (np) => {
        const rpc = np.spec.ingress.find((rule: any) => rule.ports.some((p: any) => p.port === 7000));
        rpc.from.push({ podSelector: { matchLabels: { ...rpc.from[0].podSelector.matchLabels, 'app.kubernetes.io/component': 'runs' } } });
      });
      expect(problems).toEqual([
        'Deployment/assay-webhooks (webhooks): its NetworkPolicy admits runs on the RPC port 7000, which its INTERNAL_CALLERS does not list',
      ]);
    });

    it('(b) a NetworkPolicy shutting out the admin CLI (the identity pods) that INTERNAL_CALLERS lists as admin', () => {
      const problems = edited('NetworkPolicy', 'assay-analytics', (np) => {
        const rpc = np.spec.ingress.find((rule: any) => rule.ports.some((p: any) => p.port === 7000));
        rpc.from = rpc.from.filter((peer: any) => peer.podSelector?.matchLabels?.['app.kubernetes.io/component'] !== 'identity');
      });
      expect(problems).toEqual([
        'Deployment/assay-analytics (analytics): its INTERNAL_CALLERS lists admin, but its NetworkPolicy does not admit identity on the RPC port 7000 (admin: the admin CLI runs in the identity pods)',
      ]);
    });

    it('(b) a caller whose egress does not reach the service (the gateway without its way to identity)', () => {
      const problems = edited('NetworkPolicy', 'assay-gateway', (np) => {
        np.spec.egress = np.spec.egress.filter(
          (rule: any) => rule.to?.[0]?.podSelector?.matchLabels?.['app.kubernetes.io/component'] !== 'identity',
        );
      });
      expect(problems).toEqual([
        'Deployment/assay-gateway (gateway): its NetworkPolicy does not let it reach identity on the RPC port 7000',
      ]);
    });

    it('(c) two components on one credential key', () => {
      const problems = edited('Deployment', 'assay-runs', (d) => {
        d.spec.template.spec.containers[0].env.find((e: any) => e.name === 'INTERNAL_AUTH_TOKEN').valueFrom.secretKeyRef.key =
          'INTERNAL_AUTH_TOKEN_GATEWAY';
      });
      expect(problems).toEqual([
        'Deployment/assay-runs (runs): INTERNAL_AUTH_TOKEN reads key "INTERNAL_AUTH_TOKEN_GATEWAY", not its own credential "INTERNAL_AUTH_TOKEN_RUNS" (secrets.keys.internalAuthTokens.runs)',
        'Secret key "INTERNAL_AUTH_TOKEN_GATEWAY" is the INTERNAL_AUTH_TOKEN of [gateway, runs]: every component needs its own credential',
      ]);
      // The chart itself refuses the values that would render this.
      expect(() => render({ ...base, set: ['secrets.keys.internalAuthTokens.runs=INTERNAL_AUTH_TOKEN_GATEWAY'] })).toThrow(
        /secrets\.keys\.internalAuthTokens\.gateway and secrets\.keys\.internalAuthTokens\.runs are both "INTERNAL_AUTH_TOKEN_GATEWAY"/,
      );
    });

    it("(c) a pod holding the admin CLI's credential", () => {
      const problems = edited('Deployment', 'assay-identity', (d) => {
        d.spec.template.spec.containers[0].env.find((e: any) => e.name === 'INTERNAL_AUTH_TOKEN').valueFrom.secretKeyRef.key =
          'INTERNAL_AUTH_TOKEN_ADMIN';
      });
      expect(problems).toEqual([
        'Deployment/assay-identity (identity): INTERNAL_AUTH_TOKEN reads key "INTERNAL_AUTH_TOKEN_ADMIN", not its own credential "INTERNAL_AUTH_TOKEN_IDENTITY" (secrets.keys.internalAuthTokens.identity)',
        'Deployment/assay-identity (identity): INTERNAL_AUTH_TOKEN reads the admin CLI\'s credential "INTERNAL_AUTH_TOKEN_ADMIN"; no pod may hold it',
      ]);
    });

    it('(c) one credential under two keys of the chart-made Secret', () => {
      const problems = edited('Secret', 'assay', (secret) => {
        secret.data.INTERNAL_AUTH_TOKEN_RUNS = secret.data.INTERNAL_AUTH_TOKEN_GATEWAY;
      });
      expect(problems).toContain('Secret/assay: keys [INTERNAL_AUTH_TOKEN_GATEWAY, INTERNAL_AUTH_TOKEN_RUNS] hold the same credential');
      // ... and the callers' hashes of runs no longer match what it presents.
      expect(problems).toContainEqual(
        expect.stringMatching(/^Deployment\/assay-manual-testing \(manual-testing\): INTERNAL_CALLERS gives runs the hash/),
      );
    });
  });
});
