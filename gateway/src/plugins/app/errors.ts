/**
 * Every error leaves the gateway in the envelope of spec §2.1, whatever raised it: a service (ConnectError),
 * our own code (AppError), Fastify (validation, body parsing, size), an unknown route (404) or a known path
 * with the wrong method (405). 5xx bodies never carry internal detail.
 */
import fp from 'fastify-plugin';
import FindMyWay from 'find-my-way';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ConnectError } from '@connectrpc/connect';
import { AppError, fromConnectError, toEnvelope, type Violation } from '@assay/errors';
import { fromDatabaseError } from '@assay/db';
import { NOT_BLANK } from '@assay/contracts/common/json';

interface AjvIssue {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
}

const PART_PREFIX: Record<string, string> = { body: 'body', querystring: 'query', params: 'path', headers: 'header' };

function issuePath(context: string, issue: AjvIssue): string {
  const segments = issue.instancePath.split('/').filter(Boolean);
  if (issue.keyword === 'required') segments.push(String(issue.params.missingProperty));
  if (issue.keyword === 'additionalProperties') segments.push(String(issue.params.additionalProperty));
  return [PART_PREFIX[context] ?? context, ...segments].join('.');
}

function issueMessage(issue: AjvIssue): string {
  const limit = Number(issue.params.limit);
  // Lengths, counts, bounds, whole numbers and blank names in the services' words, not the validator's (`must match
  // pattern "\S"`, `must NOT have fewer than 1 items`, `must be >= 0`): the web app shows them next to the form.
  switch (issue.keyword) {
    case 'additionalProperties':
      return `unknown property "${String(issue.params.additionalProperty)}"`;
    case 'required':
      return 'is required';
    case 'enum':
      return `must be one of ${(issue.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    case 'pattern':
      if (issue.params.pattern === NOT_BLANK) return 'must not be empty';
      break;
    case 'minLength':
      return limit === 1 ? 'must not be empty' : `must be at least ${limit} characters`;
    case 'maxLength':
      return `must be at most ${limit} characters`;
    case 'minimum':
      return `must be at least ${limit}`;
    case 'maximum':
      return `must be at most ${limit}`;
    case 'exclusiveMinimum':
      return `must be more than ${limit}`;
    case 'type':
      if (issue.params.type === 'integer') return 'must be a whole number';
      if (issue.params.type === 'number') return 'must be a number';
      break;
    case 'minItems':
      return limit === 1 ? 'must not be empty' : `must have at least ${limit} items`;
    case 'maxItems':
      return `must have at most ${limit} items`;
    case 'minProperties':
      if (limit === 1) return 'must name at least one field';
      break;
    default:
      break;
  }
  return issue.message ?? 'is invalid';
}

function validationToAppError(err: FastifyError & { validation: AjvIssue[]; validationContext?: string }): AppError {
  const context = err.validationContext ?? 'body';
  // anyOf/oneOf wrappers repeat their branches' messages; keep the specific ones. A value of a union (`tags`: a list
  // or a comma-separated string; an estimate or null) that fails the branch of its own type also fails the others'
  // type check: that "must be string" or "must be null" is noise beside what is wrong with it (`must have at most 20
  // items`, `must be a whole number`), and is left out.
  const unions = new Set(err.validation.filter((i) => i.keyword === 'anyOf' || i.keyword === 'oneOf').map((i) => i.instancePath));
  const wrapper = (i: AjvIssue) => i.keyword === 'anyOf' || i.keyword === 'oneOf' || i.keyword === 'if';
  const within = (i: AjvIssue, path: string) => i.instancePath === path || i.instancePath.startsWith(`${path}/`);
  const otherBranch = (i: AjvIssue) =>
    i.keyword === 'type' &&
    unions.has(i.instancePath) &&
    err.validation.some((o) => o !== i && !wrapper(o) && within(o, i.instancePath) && (o.keyword !== 'type' || i.params.type === 'null'));
  const issues = err.validation.filter((i) => !wrapper(i) && !otherBranch(i));
  const details: Violation[] = [];
  const seen = new Set<string>();
  for (const issue of issues.length > 0 ? issues : err.validation) {
    const d = { path: issuePath(context, issue), message: issueMessage(issue) };
    const key = `${d.path}|${d.message}`;
    if (!seen.has(key)) {
      seen.add(key);
      details.push(d);
    }
  }
  if (context === 'querystring' && err.validation.some((i) => i.instancePath === '/limit')) {
    const limitIssue = details.find((d) => d.path === 'query.limit');
    return new AppError('INVALID_LIMIT', limitIssue ? `limit ${limitIssue.message}` : undefined, { details });
  }
  const first = details[0];
  return new AppError('VALIDATION_ERROR', first ? `${first.path}: ${first.message}` : 'The request is invalid', { details });
}

/** Maps anything thrown while handling a request to an AppError. */
export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  if (err instanceof ConnectError) return fromConnectError(err);
  const fromDb = fromDatabaseError(err);
  if (fromDb) return fromDb;
  const fe = err as FastifyError & { validation?: AjvIssue[]; validationContext?: string };
  if (fe && Array.isArray(fe.validation)) return validationToAppError(fe as FastifyError & { validation: AjvIssue[] });
  switch (fe?.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('PAYLOAD_TOO_LARGE');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError('UNSUPPORTED_MEDIA_TYPE', 'Content-Type must be application/json');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError('VALIDATION_ERROR', 'The JSON body is empty', { details: [{ path: 'body', message: 'empty JSON body' }] });
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new AppError('VALIDATION_ERROR', 'The body is not valid JSON', { details: [{ path: 'body', message: 'malformed JSON' }] });
    default:
      break;
  }
  if (err instanceof SyntaxError && (fe as { statusCode?: number }).statusCode === 400) {
    return new AppError('VALIDATION_ERROR', 'The body is not valid JSON', { details: [{ path: 'body', message: 'malformed JSON' }] });
  }
  const status = fe?.statusCode;
  if (status === 413) return new AppError('PAYLOAD_TOO_LARGE');
  if (status === 415) return new AppError('UNSUPPORTED_MEDIA_TYPE');
  if (status === 404) return new AppError('NOT_FOUND');
  if (status && status >= 400 && status < 500) return new AppError('VALIDATION_ERROR', 'The request is invalid');
  return new AppError('INTERNAL_ERROR', undefined, { cause: err });
}

export function sendError(request: FastifyRequest, reply: FastifyReply, err: unknown): FastifyReply {
  const appErr = toAppError(err);
  if (appErr.httpStatus >= 500) request.log.error({ err: appErr.cause ?? appErr, reason: appErr.reason }, 'request failed');
  else request.log.info({ reason: appErr.reason, status: appErr.httpStatus }, appErr.message);
  return reply
    .code(appErr.httpStatus)
    .headers(appErr.headers ?? {})
    .type('application/json; charset=utf-8')
    .send(toEnvelope(appErr));
}

export default fp(
  async function errorsPlugin(app: FastifyInstance) {
    // Every registered path, method-agnostic, to tell "unknown route" (404) from "wrong method" (405).
    const paths = FindMyWay({ ignoreTrailingSlash: true });
    const methodsByPath = new Map<string, Set<string>>();
    app.addHook('onRoute', (route) => {
      const methods = Array.isArray(route.method) ? route.method : [route.method];
      let set = methodsByPath.get(route.url);
      if (!set) {
        set = new Set();
        methodsByPath.set(route.url, set);
        const url = route.url;
        paths.on('GET', url, () => undefined, { url });
      }
      for (const m of methods) set.add(m);
    });

    /** 405 with Allow for a known path, else 404. */
    const routeMiss = (request: FastifyRequest): AppError => {
      const path = request.url.split('?')[0] ?? '/';
      const match = paths.find('GET', path);
      const allowed = match ? [...(methodsByPath.get((match.store as { url: string }).url) ?? [])] : [];
      // A wildcard route (static files: /assets/*, /trace/*) that has no such file is a miss, not a wrong method.
      if (match && !allowed.includes(request.method)) {
        return new AppError('METHOD_NOT_ALLOWED', `${request.method} is not allowed here; use ${allowed.join(', ')}`, {
          headers: { Allow: allowed.join(', ') },
        });
      }
      return new AppError('NOT_FOUND', `No route ${request.method} ${path}`);
    };

    app.setErrorHandler((err, request, reply) => {
      // Fastify may refuse a request that matched no route before the not-found handler runs (a body it
      // cannot parse, a QUERY without Content-Type): the answer is still "no such route" (404/405).
      const code = (err as FastifyError).code;
      if (request.is404 && typeof code === 'string' && code.startsWith('FST_ERR_')) return sendError(request, reply, routeMiss(request));
      return sendError(request, reply, err);
    });

    // A path the API does not own is the web app's (plugins/external/web.ts); anything else is a route miss.
    app.setNotFoundHandler((request, reply) => app.appDocument?.(request, reply) ?? sendError(request, reply, routeMiss(request)));
  },
  { name: 'errors' },
);
