/**
 * The `token-info` route family (GET /{projectId}/token-info, GET /token-info) over `app.inject` with an in-memory
 * AuthService.GetTokenInfo: what identity is asked (the presented token, the path project), and the TokenInfo JSON
 * (scopes, projectName only with a path project, the configured quotas, `project` only without one).
 */
import type { GetTokenInfoRequest } from '@assay/proto/assay/identity/v1/identity_pb';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { gatewayHarness, type Harness } from './harness';

const CREATED = '2026-01-02T03:04:05.000Z';
const USED = '2026-03-10T08:00:00.000Z';
const asked: Pick<GetTokenInfoRequest, 'tokenId' | 'projectId'>[] = [];
const LIMITS = { reads: 11, writes: 12, manualRunCreate: 13, ip: 1_000_000, pdf: 14, ingest: 15 };

let h: Harness;
beforeAll(async () => {
  h = await gatewayHarness(
    {
      auth: {
        async getTokenInfo(req) {
          asked.push({ tokenId: req.tokenId, projectId: req.projectId });
          const apiKey = req.tokenId === h.caller('api_key').principal.tokenId;
          return {
            token: { id: req.tokenId, createdAt: timestampFromDate(new Date(CREATED)), lastUsedAt: timestampFromDate(new Date(USED)) },
            permissions: apiKey ? ['read', 'ingest'] : [],
            scopes: apiKey
              ? [{ orgId: h.orgId, allProjects: false, projects: [{ id: h.projectId, name: 'Web shop' }] }]
              : [{ orgId: h.orgId, allProjects: true, projects: [] }],
            projectName: req.projectId ? 'Web shop' : '',
            onlyProject: req.projectId ? undefined : { id: h.projectId, name: 'Web shop' },
          };
        },
      },
    },
    {
      RATE_LIMITS: Object.entries(LIMITS)
        .map(([k, v]) => `${k}=${v}`)
        .join(','),
    },
  );
});
afterAll(() => h.close());
beforeEach(() => {
  asked.length = 0;
});

const quotas = {
  reads: { limit: 11, windowSeconds: 60 },
  writes: { limit: 12, windowSeconds: 60 },
  manualRunCreate: { limit: 13, windowSeconds: 60 },
  pdf: { limit: 14, windowSeconds: 60 },
  ingest: { limit: 15, windowSeconds: 60 },
};

describe('token-info routes', () => {
  it('with a project: asks identity about the presented token and that project; the path project names projectName', async () => {
    const res = await h.request({ as: 'member', method: 'GET', url: `/api/v1/public/${h.projectId}/token-info` });
    expect(res.statusCode).toBe(200);
    expect(asked).toEqual([{ tokenId: h.caller('member').principal.tokenId, projectId: h.projectId }]);
    expect(res.json()).toEqual({
      success: true,
      data: {
        id: h.caller('member').principal.tokenId,
        type: 'pat',
        scopes: [{ orgId: h.orgId, projects: '*' }],
        projectName: 'Web shop',
        expiresAt: null,
        createdAt: CREATED,
        lastUsed: USED,
        rateLimits: quotas,
      },
    });
  });

  it('an api key lists its permission strings before its project scope', async () => {
    const res = await h.request({ as: 'api_key', method: 'GET', url: `/api/v1/public/${h.projectId}/token-info` });
    expect(res.json().data).toMatchObject({
      type: 'api_key',
      scopes: ['read', 'ingest', { orgId: h.orgId, projects: [{ id: h.projectId, name: 'Web shop' }] }],
    });
  });

  it('without a project: projectName null and the one project covered as `project`', async () => {
    const res = await h.request({ method: 'GET', url: '/api/v1/public/token-info' });
    expect(res.statusCode).toBe(200);
    expect(asked).toEqual([{ tokenId: h.caller('owner').principal.tokenId, projectId: '' }]);
    expect(res.json().data).toMatchObject({ projectName: null, project: { id: h.projectId, name: 'Web shop' }, rateLimits: quotas });
  });

  it('no token is 401, a project the token does not cover 404, without asking for token info', async () => {
    expect((await h.app.inject({ method: 'GET', url: '/api/v1/public/token-info' })).statusCode).toBe(401);
    expect((await h.request({ method: 'GET', url: `/api/v1/public/${'9'.repeat(24)}/token-info` })).statusCode).toBe(404);
    expect(asked).toEqual([]);
  });
});
