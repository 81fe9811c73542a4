/**
 * What every tool shares: one call of the API through @assay/client, answers turned into tool results (the API's
 * own JSON, compact), errors turned into tool errors carrying the API's `error.code`, and the size bound of a
 * result (a list that does not fit is cut, with the hint to ask for a smaller page or the next one).
 */
import { z } from 'zod';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { isErrorBody, type AssayClient, type paths } from '@assay/client';

/** The largest tool result, in characters of its text (about 25k tokens): a model's context is the limit. */
export const DEFAULT_MAX_RESULT_CHARS = 100_000;

export interface ToolContext {
  client: AssayClient;
  /** The project a tool uses when its `projectId` argument is left out. */
  defaultProjectId?: string;
  maxResultChars: number;
}

/** A failed call: the API's error envelope (status, code, message, details) or a problem found before asking. */
export class ToolError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status?: number,
    readonly details?: unknown,
  ) {
    super(message);
  }
}

type Method = 'GET' | 'POST' | 'PATCH';
export interface CallInit {
  path?: Record<string, string>;
  query?: Record<string, unknown>;
  body?: unknown;
  /** `md`: the answer is text (debug bundle in markdown), not a JSON envelope. */
  parseAs?: 'json' | 'text';
}

/** One API call through the typed client; the envelope's body on success, a ToolError otherwise. */
export async function call(ctx: ToolContext, method: Method, path: keyof paths, init: CallInit = {}): Promise<unknown> {
  const query = init.query ? Object.fromEntries(Object.entries(init.query).filter(([, v]) => v !== undefined)) : undefined;
  const options = {
    params: { path: init.path ?? {}, query },
    ...(init.body === undefined ? {} : { body: init.body }),
    ...(init.parseAs === 'text' ? { parseAs: 'text' as const } : {}),
  };
  const send = ctx.client[method] as unknown as (
    path: string,
    init: unknown,
  ) => Promise<{ data?: unknown; error?: unknown; response: Response }>;
  let answer: { data?: unknown; error?: unknown; response: Response };
  try {
    answer = await send(path, options);
  } catch (err) {
    throw new ToolError('NETWORK_ERROR', `The Assay API could not be reached: ${err instanceof Error ? err.message : String(err)}`);
  }
  const { data, error, response } = answer;
  if (error !== undefined || !response.ok) {
    if (isErrorBody(error)) throw new ToolError(error.error.code, error.error.message, response.status, error.error.details);
    throw new ToolError(`HTTP_${response.status}`, `The API answered ${response.status}`, response.status);
  }
  return data;
}

/** The project of a call: the argument, else the configured default, else the token's only project. */
export async function projectOf(ctx: ToolContext, projectId: string | undefined): Promise<string> {
  if (projectId) return projectId;
  if (ctx.defaultProjectId) return ctx.defaultProjectId;
  const info = (await call(ctx, 'GET', '/api/v1/public/token-info')) as { data?: { project?: { id?: string } } };
  const only = info.data?.project?.id;
  if (only) return only;
  throw new ToolError(
    'PROJECT_REQUIRED',
    'projectId is required: this token covers several projects. Call list_projects to see their ids, then pass projectId.',
  );
}

const json = (value: unknown) => JSON.stringify(value);

/** A successful tool result: the value as compact JSON, cut to the size bound (see `bound`). */
export function ok(ctx: ToolContext, value: unknown, hint?: string): CallToolResult {
  const text = bound(value, ctx.maxResultChars, hint);
  return { content: [{ type: 'text', text }] };
}

/**
 * JSON of `value` within `max` characters. A paginated answer (`data` an array, or `data.rules`) that does not fit
 * keeps its first items and says how many were left out and what to ask next (a smaller `limit`, then the next
 * page); anything else is cut and marked as cut.
 */
export function bound(value: unknown, max: number, hint?: string): string {
  const withHint = (v: unknown) => (hint && typeof v === 'object' && v !== null && !Array.isArray(v) ? { ...v, hint } : v);
  const full = json(withHint(value));
  if (full.length <= max) return full;
  const v = value as { data?: unknown } | null;
  const list = Array.isArray(v?.data)
    ? { items: v.data as unknown[], put: (items: unknown[]) => ({ ...v, data: items }) }
    : Array.isArray((v?.data as { rules?: unknown } | undefined)?.rules)
      ? {
          items: (v!.data as { rules: unknown[] }).rules,
          put: (items: unknown[]) => ({ ...v, data: { ...(v!.data as object), rules: items } }),
        }
      : undefined;
  if (list) {
    const cut = (keep: number) =>
      json({
        ...(list.put(list.items.slice(0, keep)) as object),
        truncated: {
          itemsShown: keep,
          itemsOnPage: list.items.length,
          hint: `The page did not fit in ${max} characters: only its first ${keep} items are shown. Ask again with a smaller limit (and the matching page or offset) to see the others.`,
        },
      });
    // The most items that fit (binary search; the text grows with the number of items kept).
    let lo = 0;
    let hi = list.items.length - 1;
    let best: string | undefined;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const text = cut(mid);
      if (text.length <= max) {
        best = text;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    if (best !== undefined) return best;
  }
  const note = `\n[truncated: the answer has ${full.length} characters, more than the ${max} a tool result may hold; narrow the request (filters, a smaller limit, maxLength)]`;
  return full.slice(0, Math.max(0, max - note.length)) + note;
}

/** A tool error result the model can read: the API's code, status and message (and validation details). */
export function failure(err: unknown): CallToolResult {
  const e =
    err instanceof ToolError ? err : new ToolError('INTERNAL_ERROR', err instanceof Error ? err.message : 'The tool failed unexpectedly');
  const error = {
    code: e.code,
    message: e.message,
    ...(e.status ? { status: e.status } : {}),
    ...(e.details ? { details: e.details } : {}),
  };
  return { isError: true, content: [{ type: 'text', text: json({ error }) }] };
}

/** The paging hint of a page-numbered list answer. */
export function nextPageHint(body: unknown): string | undefined {
  const p = (body as { pagination?: { page?: number; hasNext?: boolean; offset?: number; limit?: number } } | null)?.pagination;
  if (!p?.hasNext) return undefined;
  if (typeof p.offset === 'number') return `More results: call again with offset=${p.offset + (p.limit ?? 0)}.`;
  return typeof p.page === 'number' ? `More results: call again with page=${p.page + 1}.` : undefined;
}

// ---- shared argument schemas

export const projectId = z
  .string()
  .max(64)
  .optional()
  .describe('Project id. Optional when the server has a default project or the token covers exactly one; list_projects shows the ids.');
export const page = z.number().int().min(1).optional().describe('Page number, from 1 (default 1).');
export const limit = z
  .union([z.literal(10), z.literal(25), z.literal(50), z.literal(100)])
  .optional()
  .describe('Items per page: 10, 25, 50 or 100 (default 10).');
export const days = z
  .union([z.literal(7), z.literal(30), z.literal(90)])
  .optional()
  .describe('Rolling window in days: 7, 30 or 90 (default 30).');
export const linkedIssues = z
  .array(
    z.object({
      provider: z.string().optional(),
      displayId: z.string().optional(),
      url: z.string().optional(),
      title: z.string().optional(),
    }),
  )
  .optional()
  .describe('Issue-tracker tickets to link: {provider, displayId, url, title}.');
