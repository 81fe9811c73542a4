/**
 * Every page of the app, by name. Pure data (no React): the router uses it, and the build writes its patterns
 * to dist/routes.json for the gateway. A link is built with `href(PAGES.run, { projectId, runId })`.
 */
import { authPaths } from '../auth/paths.ts';
import { analyticsPaths } from '../features/analytics/paths.ts';
import { manualPaths } from '../features/manual/paths.ts';
import { projectsPaths } from '../features/projects/paths.ts';
import { reportsPaths } from '../features/reports/paths.ts';
import { runsPaths } from '../features/runs/paths.ts';
import { settingsPaths } from '../features/settings/paths.ts';
import { webhooksPaths } from '../features/webhooks/paths.ts';

export const PAGES = {
  ...authPaths,
  ...projectsPaths,
  ...runsPaths,
  ...manualPaths,
  ...analyticsPaths,
  ...webhooksPaths,
  ...reportsPaths,
  ...settingsPaths,
} as const;

export type PageName = keyof typeof PAGES;

/** The patterns as the gateway's router reads them (find-my-way: the same `:param` syntax). */
export const PAGE_PATTERNS: string[] = [...new Set(Object.values(PAGES))];

type ParamNames<P extends string> = P extends `${string}:${infer Name}/${infer Rest}`
  ? Name | ParamNames<`/${Rest}`>
  : P extends `${string}:${infer Name}`
    ? Name
    : never;

/** The path of a page: `href(PAGES.run, { projectId, runId })`; each parameter is URL-encoded. */
export function href<P extends string>(pattern: P, params: Record<ParamNames<P>, string>): string {
  return pattern.replace(/:([A-Za-z]+)/g, (_m, name: string) => encodeURIComponent((params as Record<string, string>)[name] ?? ''));
}
