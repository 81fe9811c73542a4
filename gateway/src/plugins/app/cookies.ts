/**
 * Cookies, read and written with the `cookie` library (the one Fastify itself uses): `request.cookies` and
 * `reply.setCookie` / `reply.clearCookie`. (Not @fastify/cookie: its current release loads `cookie` with a
 * dynamic import, which the test runner's module system cannot follow.)
 */
import fp from 'fastify-plugin';
import { parseCookie, stringifySetCookie, type SerializeOptions } from 'cookie';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

declare module 'fastify' {
  interface FastifyRequest {
    readonly cookies: Record<string, string | undefined>;
  }
  interface FastifyReply {
    setCookie(name: string, value: string, options: SerializeOptions): FastifyReply;
    clearCookie(name: string, options: SerializeOptions): FastifyReply;
  }
}

export default fp(
  async function cookiesPlugin(app: FastifyInstance) {
    app.decorateRequest('cookies', {
      getter(this: FastifyRequest) {
        const header = this.headers.cookie;
        return header ? parseCookie(header) : {};
      },
    });
    app.decorateReply('setCookie', function (this: FastifyReply, name: string, value: string, options: SerializeOptions) {
      return this.header('set-cookie', stringifySetCookie({ name, value, ...options }));
    });
    app.decorateReply('clearCookie', function (this: FastifyReply, name: string, options: SerializeOptions) {
      return this.header('set-cookie', stringifySetCookie({ name, value: '', ...options, expires: new Date(0), maxAge: undefined }));
    });
  },
  { name: 'cookies' },
);
