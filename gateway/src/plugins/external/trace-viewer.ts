/**
 * Playwright's own trace viewer (the static build `playwright-core` ships in lib/vite/traceViewer) at /trace/:
 * the test-result page opens a stored trace with `/trace/index.html?trace=<its signed URL>`. The viewer reads
 * the trace through its service worker (scope /trace/), from this origin only; its CSP allows what it needs
 * (inline styles, blob: and data: images, its snapshot frames) and nothing from elsewhere.
 */
import path from 'node:path';
import fp from 'fastify-plugin';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';

export const TRACE_VIEWER_PREFIX = '/trace/';

export const TRACE_VIEWER_CSP = [
  "default-src 'self'",
  "base-uri 'self'",
  "connect-src 'self' data: blob:",
  "font-src 'self' data:",
  "frame-ancestors 'self'",
  "frame-src 'self' data: blob:",
  "img-src 'self' data: blob:",
  "media-src 'self' data: blob:",
  "object-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "worker-src 'self' blob:",
].join('; ');

/** The viewer's folder in the installed playwright-core (its version is the gateway's dependency). */
export const TRACE_VIEWER_ROOT = path.join(path.dirname(require.resolve('playwright-core/package.json')), 'lib', 'vite', 'traceViewer');

export default fp(
  async function traceViewerPlugin(app: FastifyInstance) {
    await app.register(fastifyStatic, {
      root: TRACE_VIEWER_ROOT,
      prefix: TRACE_VIEWER_PREFIX,
      decorateReply: false,
      index: ['index.html'],
      // Not hashed everywhere (index.html, sw.bundle.js): revalidated, never stale across an upgrade.
      cacheControl: true,
      maxAge: 0,
      setHeaders: (res) => {
        res.setHeader('content-security-policy', TRACE_VIEWER_CSP);
        res.setHeader('x-frame-options', 'SAMEORIGIN');
        res.setHeader('cross-origin-resource-policy', 'same-origin');
      },
    });
  },
  { name: 'trace-viewer' },
);
