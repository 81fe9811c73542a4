/**
 * Internal RPC addresses that name a host, as the chart's headless Services do, are looked up and the calls dealt
 * over what the name resolves to (packages/service-kit/src/replicas.ts), in real processes: a gateway whose
 * service addresses name `localhost` answers as the shared one does, and one whose runs address names a host that
 * does not resolve answers 503 SERVICE_UNAVAILABLE on the runs routes, naming nothing, while the rest keeps
 * working. (Several replicas behind one name: the kit's unit test, with servers on three loopback addresses.)
 */
import fs from 'node:fs';
import { addressEnv, startPrivateGateway, startPrivateRedis, testAdmin, testApi, testSystem, type Tenant } from '@assay/testkit';

let t: Tenant;
beforeAll(async () => {
  t = await testAdmin().tenant('owner');
  const report = {
    suites: [
      {
        title: 'a.spec.ts',
        file: 'a.spec.ts',
        specs: [{ title: 'pays', tests: [{ projectName: 'chromium', results: [{ status: 'passed', duration: 5 }] }] }],
      },
    ],
  };
  expect((await testApi(t.token).post(`/api/v1/ingest/${t.projectId}/playwright`, report)).status).toBe(201);
});

/** The shared system's service addresses with their host written as a name. */
function byName(host: string, only?: string[]): Record<string, string> {
  const env = addressEnv(testSystem().ports);
  return Object.fromEntries(
    Object.entries(env)
      .filter(([k]) => !k.endsWith('_HTTP_URL') && (only === undefined || only.includes(k)))
      .map(([k, v]) => [k, v.replace('127.0.0.1', host)]),
  );
}

it('a gateway whose service addresses name a host answers as the one whose addresses are addresses', async () => {
  const redis = await startPrivateRedis();
  const gw = await startPrivateGateway({ name: 'by-name', env: { REDIS_URL: redis.url, ...byName('localhost') } });
  try {
    const [own, shared] = await Promise.all([
      gw.api(t.token).get(`/${t.projectId}/test-runs`),
      testApi(t.token).get(`/${t.projectId}/test-runs`),
    ]);
    expect(own.status).toBe(200);
    expect(own.body.data).toHaveLength(1);
    expect(own.body).toEqual(shared.body);
    expect((await gw.api(t.token).get(`/${t.projectId}/manual-test-suites`)).status).toBe(200);
    expect((await gw.api().get('/readyz')).body.services).toMatchObject({ runs: true, identity: true, 'manual-testing': true });
    // Each address a name gives is logged and counted as it joins the calls' rotation (observeReplicas).
    const runsTarget = new URL(byName('localhost').RUNS_URL!).host;
    const metrics = await (await fetch(gw.metricsUrl)).text();
    const added = new RegExp(`^rpc_client_replica_changes_total\\{target="${runsTarget}",change="added",service="gateway"\\} (\\d+)$`, 'm');
    expect(Number(metrics.match(added)?.[1])).toBeGreaterThanOrEqual(1);
    expect(fs.readFileSync(gw.process.logFile, 'utf8')).toContain(`"target":"${runsTarget}","address":"127.0.0.1","change":"added"`);
  } finally {
    await gw.stop();
    await redis.remove();
  }
});

it('a service address whose name does not resolve: 503 SERVICE_UNAVAILABLE for its routes, naming nothing; the rest works', async () => {
  const redis = await startPrivateRedis();
  const gw = await startPrivateGateway({
    name: 'unresolved',
    env: { REDIS_URL: redis.url, RUNS_URL: 'http://assay-no-such-runs.invalid:7202' },
  });
  try {
    const res = await gw.api(t.token).get(`/${t.projectId}/test-runs`);
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('SERVICE_UNAVAILABLE');
    expect(res.text).not.toMatch(/invalid|ENOTFOUND|getaddrinfo|7202/);
    expect((await gw.api(t.token).get(`/${t.projectId}/manual-test-suites`)).status).toBe(200);
    expect((await gw.api().get('/readyz')).body.services).toMatchObject({ runs: false, 'manual-testing': true });
  } finally {
    await gw.stop();
    await redis.remove();
  }
});
