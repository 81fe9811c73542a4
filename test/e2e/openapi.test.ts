/**
 * The OpenAPI 3.1 document (CONTRACT §1): served without a token, generated from the route schemas, clean
 * under Redocly's lint (redocly.yaml: recommended-strict, zero errors and zero warnings) both as served and as
 * exported for the client build, describing every operation of spec §4 and CONTRACT §1/§2/§6
 * (data/openapi-operations.json) and no other, with the policies of every operation (the error statuses and
 * codes it can answer, rate-limit headers, Idempotency-Key on creates), an example of every request body, path
 * parameter, success and error answer that validates against its schema, and the webhooks the service sends
 * (spec §6); and the /docs page with every asset it loads, under a CSP that lets it render.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { ERROR_TABLE, Reasons } from '@assay/errors';
import { REPO_ROOT, testApi, testSystem } from '@assay/testkit';
import expected from './data/openapi-operations.json';

const run = promisify(execFile);
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

interface Media {
  schema: any;
  example?: unknown;
  examples?: Record<string, { summary?: string; value: unknown }>;
}

interface Operation {
  operationId?: string;
  parameters?: { name: string; in: string; required?: boolean; schema?: Record<string, unknown>; example?: unknown }[];
  requestBody?: { content: Record<string, Media> };
  responses: Record<string, { description: string; headers?: Record<string, unknown>; content?: Record<string, Media> }>;
  security?: unknown[];
}

let doc: {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  webhooks?: Record<string, Record<string, Operation>>;
  components: Record<string, any>;
};
const operations = () =>
  Object.entries(doc.paths).flatMap(([p, item]) =>
    Object.entries(item)
      .filter(([m]) => METHODS.includes(m))
      .map(([m, op]) => ({ method: m.toUpperCase(), path: p, op })),
  );
const key = (o: { method: string; path: string }) => `${o.method} ${o.path}`;

beforeAll(async () => {
  const res = await testApi().get('/api/v1/public/openapi.json', { authorization: null });
  expect(res.status).toBe(200);
  doc = res.body;
});

describe('the OpenAPI document', () => {
  it('is OpenAPI 3.1 at /api/v1/public/openapi.json, without authentication', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths).length).toBeGreaterThan(0);
    expect(doc.paths['/api/public/v1/{projectId}/token-info']).toBeUndefined(); // the alias is not repeated
  });

  it('lints clean with Redocly (recommended-strict: no errors, no warnings), as served and as exported for the client', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-openapi-'));
    const file = path.join(dir, 'openapi.json');
    fs.writeFileSync(file, JSON.stringify(doc, null, 2));
    // The file @assay/client is generated from (`npm run build -w @assay/client`), written without a running system.
    const exported = path.join(dir, 'exported.json');
    await run(process.execPath, [path.join(REPO_ROOT, 'gateway', 'dist', 'openapi-export.js'), exported]);
    expect(JSON.parse(fs.readFileSync(exported, 'utf8')).paths).toEqual(doc.paths);
    const bin = path.join(REPO_ROOT, 'node_modules', '.bin', 'redocly');
    const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' };
    const config = path.join(REPO_ROOT, 'redocly.yaml');
    const result = await run(bin, ['lint', file, exported, '--config', config, '--format', 'stylish'], {
      env,
      cwd: dir,
    }).then(
      (r) => ({ code: 0, out: `${r.stdout}${r.stderr}` }),
      (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, out: `${e.stdout}${e.stderr}` }),
    );
    fs.rmSync(dir, { recursive: true, force: true });
    if (result.code !== 0 || /warning/i.test(result.out.replace(/Deprecation warning[^\n]*/g, ''))) {
      throw new Error(`redocly lint found problems:\n${result.out}`);
    }
    expect(result.out).toMatch(/valid/i);
  });

  it('(a) describes no operation that spec §4 and CONTRACT §1, §2, §6 do not list', () => {
    const allowed = new Set(expected.operations.map(key));
    const extra = operations()
      .map(key)
      .filter((k) => !allowed.has(k));
    expect(extra).toEqual([]);
  });

  it('(b) describes every operation of spec §4 and CONTRACT §1, §2, §6', () => {
    const present = new Set(operations().map(key));
    const missing = expected.operations.filter((o) => !present.has(key(o)));
    const byIssue: Record<string, string[]> = {};
    for (const o of missing) (byIssue[o.issue] ??= []).push(key(o));
    expect(byIssue).toEqual({});
  });

  it('gives every operation a unique operationId, a summary, security and the error envelopes its policies imply', () => {
    const ids = new Set<string>();
    for (const { method, path: p, op } of operations()) {
      const where = `${method} ${p}`;
      expect([where, typeof op.operationId]).toEqual([where, 'string']);
      expect([where, ids.has(op.operationId!)]).toEqual([where, false]);
      ids.add(op.operationId!);
      expect([where, (op as { summary?: string }).summary]).toEqual([where, expect.any(String)]);
      // Every request: the per-IP limit, a failure, a service down, another method on the path, a request line plus
      // headers over the limit. Authenticated: 401; a project's or with path ids: 404; a body: 400, 413, 415; a write
      // with a token: 403.
      const authenticated = op.security?.length !== 0;
      const statuses = ['405', '429', '431', '500', '503'];
      if (authenticated) statuses.push('401');
      if (/\{\w+\}/.test(p)) statuses.push('404');
      if (op.requestBody) statuses.push('400', '413', '415');
      if (authenticated && method !== 'GET') statuses.push('403');
      for (const status of statuses) {
        const schema = op.responses[status]?.content?.['application/json']?.schema;
        expect([where, status, schema]).toEqual([where, status, { $ref: '#/components/schemas/ErrorEnvelope' }]);
      }
      // Each error status names its codes (from the reason table), with an example envelope per code.
      for (const [status, response] of Object.entries(op.responses).filter(([s]) => /^[45]\d\d$/.test(s))) {
        const codes = Object.keys(response.content?.['application/json']?.examples ?? {});
        expect([where, status, codes.length > 0]).toEqual([where, status, true]);
        for (const code of codes) {
          const reason = Reasons.find((r) => r === code);
          expect([where, status, code, reason && String(ERROR_TABLE[reason].http)]).toEqual([where, status, code, status]);
          expect([where, status, response.description]).toEqual([where, status, expect.stringContaining(`\`${code}\``)]);
        }
      }
      expect([where, Object.keys(op.responses).some((s) => /^2\d\d$/.test(s))]).toEqual([where, true]);
      // path parameters are declared
      for (const name of [...p.matchAll(/\{(\w+)\}/g)].map((m) => m[1])) {
        expect([where, op.parameters?.some((q) => q.in === 'path' && q.name === name && q.required)]).toEqual([where, true]);
      }
    }
  });

  it('describes the rate-limit headers on authenticated answers and Retry-After on 429 and 503', () => {
    expect(Object.keys(doc.components.headers)).toEqual(
      expect.arrayContaining(['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'Retry-After', 'Idempotent-Replayed']),
    );
    for (const { method, path: p, op } of operations()) {
      const where = `${method} ${p}`;
      const success = Object.keys(op.responses).find((s) => /^2\d\d$/.test(s))!;
      // Authenticated operations only: sign-in and invitation acceptance (`security: []`) have no token yet.
      const authenticated = (op as { security?: unknown[] }).security?.length !== 0;
      expect([where, Object.keys(op.responses[success]!.headers ?? {})]).toEqual([
        where,
        // Unauthenticated answers carry no rate-limit headers (a download still describes its own headers).
        authenticated
          ? expect.arrayContaining(['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'])
          : expect.not.arrayContaining(['RateLimit-Limit']),
      ]);
      expect([where, op.responses['401']?.headers?.['RateLimit-Limit']]).toEqual([where, undefined]);
      expect([where, op.responses['431']?.headers?.['RateLimit-Limit']]).toEqual([where, undefined]);
      expect([where, Object.keys(op.responses['429']!.headers ?? {})]).toEqual([where, expect.arrayContaining(['Retry-After'])]);
      expect([where, Object.keys(op.responses['503']!.headers ?? {})]).toEqual([where, expect.arrayContaining(['Retry-After'])]);
    }
  });

  it('documents each media type an operation answers with: the debug bundle as JSON and, with format=md, Markdown', () => {
    const ok = doc.paths['/api/v1/public/{projectId}/debug-bundle']!.get!.responses['200']!;
    expect(Object.keys(ok.content ?? {})).toEqual(['application/json', 'text/markdown']);
    expect(ok.content!['text/markdown']!.schema).toEqual(expect.objectContaining({ type: 'string' }));
  });

  it('documents the 403 a project api key gets on the webhook reads (they are for organization members)', () => {
    for (const p of ['/webhooks', '/webhooks/{webhookId}', '/webhooks/{webhookId}/deliveries']) {
      const op = doc.paths[`/api/v1/public/{projectId}${p}`]!.get!;
      expect([p, Object.keys(op.responses['403']?.content?.['application/json']?.examples ?? {})]).toEqual([p, ['FORBIDDEN']]);
    }
  });

  it('lets every POST create (201/202) take an Idempotency-Key of at most 255 characters', () => {
    const creates = operations().filter(({ method, op }) => method === 'POST' && ('201' in op.responses || '202' in op.responses));
    expect(creates.length).toBeGreaterThan(0);
    for (const { method, path: p, op } of creates) {
      const param = op.parameters?.find((q) => q.in === 'header' && q.name.toLowerCase() === 'idempotency-key');
      expect([`${method} ${p}`, param?.required ?? false, param?.schema?.maxLength]).toEqual([`${method} ${p}`, false, 255]);
      expect(Object.keys(op.responses['201'] ?? op.responses['202']!.headers ?? {})).toBeDefined();
    }
  });

  it('has an example of every request body, path parameter and success answer, and every example matches its schema', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    // Schemas of the document refer to its components (`#/components/schemas/…`): resolved against one document `doc`.
    const resolvable = <T>(v: T): T => JSON.parse(JSON.stringify(v).replace(/"#\/components\//g, '"doc#/components/'));
    ajv.addSchema({ $id: 'doc', components: resolvable(doc.components) });
    const problems: string[] = [];
    let checked = 0;
    const check = (where: string, schema: unknown, value: unknown) => {
      checked++;
      const validate = ajv.compile(resolvable(schema as object));
      if (!validate(value)) problems.push(`${where}: ${ajv.errorsText(validate.errors)}`);
    };
    // `examples` of schemas (the contracts' own), wherever they are.
    const walk = (where: string, schema: unknown): void => {
      if (!schema || typeof schema !== 'object') return;
      const s = schema as Record<string, unknown>;
      if (Array.isArray(s.examples)) s.examples.forEach((e, i) => check(`${where} examples[${i}]`, s, e));
      for (const [k, v] of Object.entries(s)) if (k !== 'examples' && k !== 'example') walk(`${where}/${k}`, v);
    };
    const media = (where: string, m: Media) => {
      if ('example' in m) check(`${where} example`, m.schema, m.example);
      for (const [name, e] of Object.entries(m.examples ?? {})) check(`${where} examples.${name}`, m.schema, e.value);
      walk(`${where} schema`, m.schema);
    };
    const hasExample = (m: Media) => 'example' in m || m.examples !== undefined || m.schema?.format === 'binary';
    const missing: string[] = [];
    const all = [
      ...operations().map(({ method, path: p, op }) => ({ where: `${method} ${p}`, op })),
      ...Object.entries(doc.webhooks ?? {}).flatMap(([name, item]) => Object.values(item).map((op) => ({ where: `webhook ${name}`, op }))),
    ];
    for (const { where, op } of all) {
      for (const param of op.parameters ?? []) {
        if ('example' in param) check(`${where} parameter ${param.name}`, param.schema, param.example);
        else if (param.in === 'path') missing.push(`${where}: path parameter ${param.name}`);
        walk(`${where} parameter ${param.name}`, param.schema);
      }
      for (const [type, m] of Object.entries(op.requestBody?.content ?? {})) {
        media(`${where} body ${type}`, m);
        if (!hasExample(m)) missing.push(`${where}: body ${type}`);
      }
      let success = false;
      for (const [status, response] of Object.entries(op.responses)) {
        for (const [type, m] of Object.entries(response.content ?? {})) {
          media(`${where} ${status} ${type}`, m);
          if (/^2/.test(status) && hasExample(m)) success = true;
        }
        if (/^2/.test(status) && !response.content) success = true; // an answer without a body
      }
      if (!success) missing.push(`${where}: success answer`);
    }
    for (const [name, schema] of Object.entries(doc.components.schemas)) walk(`#/components/schemas/${name}`, schema);
    expect(problems).toEqual([]);
    expect(missing).toEqual([]);
    expect(checked).toBeGreaterThan(all.length * 3);
  });

  it('describes the webhooks of spec §6: the payload schema, the signature headers and an example per event', () => {
    expect(Object.keys(doc.webhooks ?? {}).sort()).toEqual(expected.webhooks.map((w) => w.event).sort());
    for (const { event } of expected.webhooks) {
      const op = doc.webhooks![event]!.post!;
      const headers = op.parameters!.filter((q) => q.in === 'header' && q.required).map((q) => q.name);
      expect([event, headers]).toEqual([event, ['X-Service-Signature', 'X-Service-Event', 'X-Service-Delivery']]);
      const body = op.requestBody!.content['application/json']!;
      expect([event, body.schema]).toEqual([event, { $ref: '#/components/schemas/WebhookPayload' }]);
      expect([event, (body.example as { event?: string }).event]).toEqual([event, event]);
      expect([event, Object.keys(op.responses)]).toEqual([event, expect.arrayContaining(['2XX'])]);
    }
    expect(Object.keys(doc.components.schemas.WebhookPayload.properties).sort()).toEqual(
      ['createdAt', 'data', 'event', 'eventName', 'id', 'projectId'].sort(),
    );
  });

  it('is the same document the reference page reads', async () => {
    const res = await testApi().get('/docs/json', { authorization: null });
    expect(res.status).toBe(200);
    expect(res.body.paths).toEqual(doc.paths);
  });
});

describe('the /docs reference page', () => {
  it('loads with every script, stylesheet and image it references, under a CSP that allows them', async () => {
    const base = testSystem().gatewayUrl;
    const page = await fetch(`${base}/docs`, { redirect: 'follow' });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    const csp = page.headers.get('content-security-policy') ?? '';
    const directive = (name: string) => (csp.split(';').find((d) => d.trim().startsWith(`${name} `)) ?? '').trim().split(/\s+/).slice(1);
    expect(directive('script-src')).toContain("'self'");
    expect(directive('style-src')).toContain("'self'");
    expect(directive('connect-src')).toContain("'self'"); // the page fetches the document
    expect(directive('img-src')).toContain("'self'");
    expect(directive('frame-ancestors')).toEqual(["'none'"]);
    expect(csp).not.toContain('upgrade-insecure-requests'); // would break a plain-HTTP install
    const html = await page.text();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>\s*\S/); // no inline scripts (script-src 'self' only)
    const refs = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(refs.length).toBeGreaterThanOrEqual(5);
    const types: Record<string, RegExp> = { '.js': /javascript/, '.css': /text\/css/, '.png': /image\/png/ };
    for (const ref of refs) {
      const url = new URL(ref, `${page.url.endsWith('/') ? page.url : `${page.url}/`}`);
      expect(url.origin).toBe(base); // everything from the gateway itself
      const asset = await fetch(url);
      expect([ref, asset.status]).toEqual([ref, 200]);
      const ext = path.extname(url.pathname);
      if (types[ext]) expect([ref, asset.headers.get('content-type')]).toEqual([ref, expect.stringMatching(types[ext]!)]);
      await asset.arrayBuffer();
    }
    // the initializer points the UI at the document it then fetches (connect-src 'self')
    const init = await (await fetch(`${base}/docs/static/swagger-initializer.js`)).text();
    expect(init).toMatch(/url: *resolveUrl\('\.\/json'\)|json/);
  });
});
