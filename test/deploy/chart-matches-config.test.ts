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
 *      Service targetPorts exist; in-cluster URLs reach the named component on its RPC/HTTP port;
 *      nothing is left at a loopback default (BIND_HOST, URLs, brokers);
 *  (f) the loader accepts the rendered environment (no ConfigError).
 * Negative cases (default render with `--set`, or with one object edited) prove the checker reports a
 * stray name, a missing required setting, a wrong Secret key (chart-made and existingSecret), a Job on the
 * regular Secret, a credential in a ConfigMap, a wrong container port, probe or targetPort, an invalid
 * value, a loopback bind and an in-cluster URL on the wrong port.
 * Needs .cache/bin/helm (`bash scripts/charts/install-tools.sh`); fails, never skips, without it.
 */
import { checkRender, PROCESSES, render, valuesSets, type Render } from './chart-check';

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
      // With the defaults, every process runs as a Deployment and has a migration Job.
      const seen = (kind: string) => workloads.filter((w) => w.object.kind === kind).map((w) => w.process);
      expect(seen('Deployment').sort()).toEqual(Object.keys(PROCESSES).sort());
      expect(seen('Job').sort()).toEqual(Object.keys(PROCESSES).sort());
    }
  });
});

describe('the checker catches', () => {
  const base = { label: 'default values' };
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
    const external = valuesSets().find((s) => s.file?.endsWith('external-values.yaml'))!;
    const r = render(external);
    const job = r.objects.find((o) => o.kind === 'Job' && o.metadata.name === 'assay-gateway-migrate')!;
    job.spec.template.spec.containers[0].env.find((e: any) => e.name === 'REDIS_URL').valueFrom.secretKeyRef.key = 'REDIS';
    expect(checkRender(r).problems).toContainEqual(
      expect.stringMatching(
        /^Job\/assay-gateway-migrate \(gateway\): env REDIS_URL reads key "REDIS" of Secret "assay-secrets", which has only/,
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
    const problems = edited('Service', 'assay-analytics', (s) => {
      s.spec.ports[0].targetPort = 'rpc';
    });
    expect(problems).toContain('Service/assay-analytics: port grpc targets rpc, which Deployment/assay-analytics does not declare');
    // ... and so the callers' ANALYTICS_URL leads nowhere.
    expect(problems).toContain(
      'Deployment/assay-gateway (gateway): ANALYTICS_URL=http://assay-analytics.assay.svc:7000: Service assay-analytics port 7000 targets rpc, which is no container port of analytics',
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
});
