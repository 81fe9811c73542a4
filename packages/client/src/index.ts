/**
 * @assay/client: the typed client of the Assay API. Every path, parameter and answer comes from the gateway's
 * OpenAPI document (`schema.ts`, generated at build time by openapi-typescript); requests go through
 * openapi-fetch, with the spec's client rules built in (retries with backoff, idempotency keys on creates) and
 * page iterators.
 *
 *   const assay = createAssayClient({ baseUrl: 'https://assay.example.com', token: process.env.ASSAY_TOKEN });
 *   const { data, error } = await assay.GET('/api/v1/public/{projectId}/test-runs', { params: { path: { projectId } } });
 *   for await (const run of assay.paginate('/api/v1/public/{projectId}/test-runs', { params: { path: { projectId } } })) …
 */
import createClient, { mergeHeaders, type Client, type ClientOptions } from 'openapi-fetch';
import { pages, paginate, type Page, type PageInit, type PageItem, type PaginateOptions, type PaginatedPath } from './pagination.ts';
import { retryingFetch, type FetchLike, type RetryOptions } from './retry.ts';
import type { components, paths } from './schema.ts';

export type { components, operations, paths } from './schema.ts';
export { AssayApiError, isErrorBody, type ErrorBody } from './errors.ts';
export type { Page, PageData, PageInit, PageItem, PaginateOptions, PaginatedPath } from './pagination.ts';
export {
  backoffDelay,
  DEFAULT_INITIAL_DELAY_MS,
  DEFAULT_MAX_DELAY_MS,
  DEFAULT_MAX_RETRIES,
  DEFAULT_MAX_RETRY_AFTER_MS,
  IDEMPOTENCY_HEADER,
  isRetryableStatus,
  retryingFetch,
  serverDelay,
  type FetchLike,
  type RetryInfo,
  type RetryOptions,
} from './retry.ts';

export type Schemas = components['schemas'];

export interface AssayClientOptions extends RetryOptions, Omit<ClientOptions, 'baseUrl' | 'fetch'> {
  /** Where the gateway is, e.g. `https://assay.example.com` (the paths carry `/api/v1/public/…`). */
  baseUrl: string;
  /** A personal access token or project API key (`svc_pat_…`), sent as `Authorization: Bearer <token>`. */
  token?: string;
  /** The fetch function to call (default: the global fetch, looked up on each request). */
  fetch?: FetchLike;
}

export interface AssayClientHelpers {
  /** Every item of a paginated list, following the pages (by page number or offset). */
  paginate<P extends PaginatedPath, I = PageItem<P>>(
    path: P,
    init: PageInit<P>,
    options?: PaginateOptions<P, I>,
  ): AsyncGenerator<I, void, undefined>;
  /** Every page of a paginated list, with its `data`, `pagination` and response. */
  pages<P extends PaginatedPath, I = PageItem<P>>(
    path: P,
    init: PageInit<P>,
    options?: PaginateOptions<P, I>,
  ): AsyncGenerator<Page<P, I>, void, undefined>;
}

/** The openapi-fetch client of the Assay API (GET, POST, PATCH, DELETE, use…) plus the page iterators. */
export type AssayClient = Client<paths> & AssayClientHelpers;

export function createAssayClient(options: AssayClientOptions): AssayClient {
  const {
    baseUrl,
    token,
    fetch: customFetch,
    headers,
    maxRetries,
    initialDelayMs,
    maxDelayMs,
    maxRetryAfterMs,
    idempotencyKeys,
    sleep,
    random,
    now,
    onRetry,
    idempotencyKey,
    ...clientOptions
  } = options;
  const baseFetch: FetchLike = customFetch ?? ((request, init) => globalThis.fetch(request, init));
  const fetch = retryingFetch(baseFetch, {
    maxRetries,
    initialDelayMs,
    maxDelayMs,
    maxRetryAfterMs,
    idempotencyKeys,
    sleep,
    random,
    now,
    onRetry,
    idempotencyKey,
  });
  const client = createClient<paths>({
    ...clientOptions,
    baseUrl,
    fetch,
    headers: token ? mergeHeaders(headers, { Authorization: `Bearer ${token}` }) : headers,
  });
  const helpers: AssayClientHelpers = {
    paginate: (path, init, opts) => paginate(client, path, init, opts),
    pages: (path, init, opts) => pages(client, path, init, opts),
  };
  return Object.assign(client, helpers);
}
