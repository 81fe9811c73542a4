/**
 * Authentication and authorization of spec §5, for every route that does not opt out (`config.auth: 'none'`):
 *   - `Authorization: Bearer svc_pat_<token>` exactly → else 401 UNAUTHORIZED; revoked → TOKEN_REVOKED;
 *     expired → TOKEN_EXPIRED;
 *   - a `:projectId` the token does not cover (or that does not exist) → 404 NOT_FOUND;
 *   - the role is read live from the membership: writes need owner/admin/member (viewer → 403), webhook
 *     management needs owner/admin, api keys may read and ingest only (→ 403 otherwise).
 * Two hooks, with the per-token rate limit between them (app.ts): this plugin authenticates; `authorizePlugin`
 * resolves the project and checks the role. The result is `request.auth`, and `request.callOptions()`
 * forwards it to services.
 */
import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '@assay/errors';
import { ID_PATTERN } from '@assay/db';
import { REQUEST_ID_HEADER } from '@assay/logger';
import { asPrincipal, IDEMPOTENCY_RECORD_HEADER, IDEMPOTENCY_REPLAYED_HEADER, type Principal } from '@assay/service-kit';
import type { Authenticated, Authenticator, ProjectAccess } from '../../auth/authenticator';
import { bearerSecretHashOf, credentialOf, SESSION_COOKIE } from '../../auth/credential';
import { enforceIpLimit } from './rate-limit';

/**
 * `project`: a caller (bearer token, or a web app session) plus access to the `:projectId` of the path;
 * `token`: a caller only; `session`: a web app session only (the app's own API); `upload-key`: the
 * compatibility upload's `X-API-Key: trx_production_<hex>` (a project api key, whose own project is the
 * request's); `none`: public (probes, the API document, sign-in).
 *
 * A web app session travels in the `assay_session` cookie and is accepted wherever a bearer token is, as a PAT of
 * its user over every project of their organizations (same roles, same 404/403, rate limits per user). A
 * state-changing request authenticated by the cookie must also carry `X-Assay-CSRF: 1`: a header a cross-site
 * form cannot send and a cross-site script cannot add without a CORS preflight the gateway never grants.
 */
export type AuthMode = 'none' | 'token' | 'project' | 'session' | 'upload-key';

export const CSRF_HEADER = 'x-assay-csrf';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
export type Access = 'read' | 'write' | 'webhook-admin' | 'ingest';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Default 'project' for API routes: token plus access to `:projectId`. */
    auth?: AuthMode;
    /** Default: GET/HEAD → read, other methods → write. */
    access?: Access;
    /**
     * An extra per-token rate-limit bucket on top of reads/writes (spec §8): manual run creation, PDF
     * generation, ingestion. Enforced by the rate-limit plugin.
     */
    rateBucket?: 'manualRunCreate' | 'pdf' | 'ingest';
    /** POST creates that honour `Idempotency-Key` (spec §4.4, CONTRACT §4). */
    idempotent?: boolean;
  }
  interface FastifyRequest {
    auth?: AuthContext;
    /** Call options that carry the caller to a service (principal, request id, a create's Idempotency-Key record). */
    callOptions(): { headers: Record<string, string>; signal?: AbortSignal; onHeader?: (headers: Headers) => void };
  }
}

export interface AuthContext extends Authenticated {
  project?: ProjectAccess;
  principal?: Principal;
}

function accessOf(request: FastifyRequest): Access {
  const configured = request.routeOptions.config.access;
  if (configured) return configured;
  return request.method === 'GET' || request.method === 'HEAD' ? 'read' : 'write';
}

function authorizeAccess(access: Access, auth: AuthContext): void {
  const { token, project } = auth;
  const role = project?.role ?? null;
  if (token.type === 'api_key') {
    if (access === 'read' || access === 'ingest') return;
    throw new AppError('FORBIDDEN', 'Project api keys may only read and ingest');
  }
  if (access === 'read') return;
  if (access === 'webhook-admin') {
    if (role === 'owner' || role === 'admin') return;
    throw new AppError('FORBIDDEN', 'Managing webhooks needs the owner or admin role');
  }
  if (role === 'owner' || role === 'admin' || role === 'member') return;
  throw new AppError('FORBIDDEN', 'Writes need the owner, admin or member role');
}

export default fp(
  async function authPlugin(app: FastifyInstance, opts: { authenticator: Authenticator }) {
    const { authenticator } = opts;

    app.decorateRequest('auth', undefined);
    app.decorateRequest('callOptions', function (this: FastifyRequest) {
      const extra: Record<string, string> = { [REQUEST_ID_HEADER]: String(this.id) };
      // A create under an Idempotency-Key: the service records the key with its answer too, and says when it replayed
      // that record (the gateway's own was lost: it died, or the service did, between the commit and the answer).
      const held = this.idempotency;
      if (held?.forService) extra[IDEMPOTENCY_RECORD_HEADER] = held.forService;
      const options = this.auth?.principal ? asPrincipal(this.auth.principal, extra) : { headers: extra };
      if (!held?.forService) return options;
      return {
        ...options,
        onHeader: (h: Headers) => {
          if (h.get(IDEMPOTENCY_REPLAYED_HEADER) === 'true') held.replayedByService = true;
        },
      };
    });

    // Authentication only: who is calling. The per-token rate limit runs next (it counts authenticated
    // requests, including those authorization refuses), then `authorizePlugin`.
    app.addHook('onRequest', async (request) => {
      try {
        await authenticate(request);
      } catch (err) {
        // The per-IP limit's refusal comes first: a client over it gets 429 whatever its credentials.
        await enforceIpLimit(request);
        throw err;
      }
    });

    async function authenticate(request: FastifyRequest): Promise<void> {
      const credential = credentialOf(request);
      if (credential === 'none') return;
      if (credential === 'upload-key') {
        const key = request.headers['x-api-key'];
        request.auth = { ...(await authenticator.authenticateUploadKey(Array.isArray(key) ? key[0] : key)) };
        return;
      }
      if (credential === 'session') {
        request.auth = { ...(await authenticator.authenticateSession(request.cookies[SESSION_COOKIE])) };
        if (!SAFE_METHODS.has(request.method) && request.headers[CSRF_HEADER] !== '1') {
          throw new AppError('FORBIDDEN', 'A request signed in with the session cookie must carry the X-Assay-CSRF: 1 header');
        }
        return;
      }
      // A project route's access is read from the auth cache together with the token (authorizePlugin uses it).
      const projectId = request.routeOptions.config.auth === 'project' ? pathProjectId(request.params) : '';
      request.auth = {
        ...(await authenticator.authenticateBearer(bearerSecretHashOf(request), ID_PATTERN.test(projectId) ? projectId : undefined)),
      };
    }
  },
  { name: 'auth', dependencies: ['errors'] },
);

/** The `:projectId` of a route's path, or '' (the plugin sees every route, whatever its params schema). */
function pathProjectId(params: unknown): string {
  return typeof params === 'object' && params !== null && 'projectId' in params && typeof params.projectId === 'string'
    ? params.projectId
    : '';
}

/** Authorization: the path project must be covered (else 404), the live role must allow the access (else 403). */
export const authorizePlugin = fp(
  async function authorize(app: FastifyInstance, opts: { authenticator: Authenticator }) {
    app.addHook('onRequest', async (request) => {
      const auth = request.auth;
      const mode = request.routeOptions.config.auth;
      if (!auth || (mode !== 'project' && mode !== 'upload-key')) return;
      const projectId = mode === 'upload-key' ? (auth.token.projectId ?? '') : pathProjectId(request.params);
      // Not an id at all: no lookup needed to know the token does not cover it.
      const project = ID_PATTERN.test(projectId) ? await opts.authenticator.projectAccess(auth, projectId) : undefined;
      // A person signed in to the app holds no token: the message names what they hold.
      if (!project || !project.covered)
        throw new AppError('NOT_FOUND', `Project not found or not accessible to ${auth.session ? 'your account' : 'this token'}`);
      auth.project = project;
      auth.principal = {
        tokenId: auth.token.id,
        tokenType: auth.token.type,
        userId: auth.token.userId,
        userName: project.userName ?? auth.session?.userName ?? null,
        userEmail: project.userEmail ?? auth.session?.userEmail ?? null,
        orgId: project.orgId,
        role: auth.token.type === 'pat' ? project.role : null,
      };
      authorizeAccess(accessOf(request), auth);
    });
  },
  { name: 'authorize', dependencies: ['auth'] },
);
