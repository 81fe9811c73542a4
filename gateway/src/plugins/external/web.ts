/**
 * The web app's files, served by the gateway (CONTRACT §10): hashed assets under /assets/ cached for a year
 * (immutable: a new build has new names), sent as the build's brotli or gzip copy when the browser accepts one
 * (web/vite.config.ts writes them; `Vary: Accept-Encoding`), and `index.html` for every path of the app — never
 * cached, under a strict Content-Security-Policy. A path that is not one of the app's pages (listed by the build in
 * `routes.json`) gets the same document with status 404, so the app shows its not-found page and a crawler
 * or a link checker sees a 404. API, docs, health and metrics paths never reach here.
 */
import fs from 'node:fs';
import path from 'node:path';
import fp from 'fastify-plugin';
import fastifyStatic from '@fastify/static';
import FindMyWay from 'find-my-way';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** Paths the app never owns: answered by the API's own 404/405 envelope. */
const NOT_APP = /^\/(api|docs|healthz|readyz|metrics|mcp|trace)(\/|$)/;

/** Scripts, styles, images and API calls from the gateway itself; nothing inline, nothing from elsewhere. */
export const APP_CSP = [
  "default-src 'self'",
  "base-uri 'none'",
  "connect-src 'self'",
  "font-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "img-src 'self' data: blob:",
  "media-src 'self' blob:",
  "object-src 'none'",
  "script-src 'self'",
  "script-src-attr 'none'",
  "style-src 'self'",
  "worker-src 'self' blob:",
].join('; ');

declare module 'fastify' {
  interface FastifyInstance {
    /** The app's document for a path the API does not own (status 200 for an app page, 404 otherwise), if any. */
    appDocument(request: FastifyRequest, reply: FastifyReply): FastifyReply | undefined;
  }
}

export default fp(
  async function webPlugin(app: FastifyInstance, opts: { root: string }) {
    const index = path.join(opts.root, 'index.html');
    if (!fs.existsSync(index)) {
      app.log.warn({ root: opts.root }, 'web app not built: serving the API only (npm run build builds it)');
      app.decorate('appDocument', () => undefined);
      return;
    }
    const html = fs.readFileSync(index);
    const pages = FindMyWay({ ignoreTrailingSlash: true });
    const routesFile = path.join(opts.root, 'routes.json');
    const patterns: string[] = fs.existsSync(routesFile) ? JSON.parse(fs.readFileSync(routesFile, 'utf8')) : ['/'];
    for (const p of patterns) pages.on('GET', p, () => undefined);

    await app.register(fastifyStatic, {
      root: path.join(opts.root, 'assets'),
      prefix: '/assets/',
      decorateReply: false,
      index: false,
      immutable: true,
      maxAge: '365d',
      preCompressed: true,
      // Whichever copy is sent: a shared cache must keep one per encoding (@fastify/static does not say so itself).
      setHeaders: (res) => res.setHeader('vary', 'Accept-Encoding'),
    });
    for (const file of fs.readdirSync(opts.root).filter((f) => /\.(svg|ico|png|txt|webmanifest)$/.test(f))) {
      const body = fs.readFileSync(path.join(opts.root, file));
      const type = file.endsWith('.svg') ? 'image/svg+xml' : file.endsWith('.txt') ? 'text/plain' : 'application/octet-stream';
      app.get(`/${file}`, { schema: { hide: true }, config: { auth: 'none', rateLimit: false } }, (_req, reply) =>
        reply.type(type).header('cache-control', 'public, max-age=3600').send(body),
      );
    }

    app.decorate('appDocument', (request: FastifyRequest, reply: FastifyReply) => {
      if (request.method !== 'GET' && request.method !== 'HEAD') return undefined;
      const url = request.url.split('?')[0] ?? '/';
      if (NOT_APP.test(url)) return undefined;
      return reply
        .code(pages.find('GET', url) ? 200 : 404)
        .type('text/html; charset=utf-8')
        .header('cache-control', 'no-cache')
        .header('content-security-policy', APP_CSP)
        .header('x-frame-options', 'DENY')
        .send(html);
    });
  },
  { name: 'web' },
);
