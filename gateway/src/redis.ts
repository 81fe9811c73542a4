/** The gateway's Redis client, made one way for the server and for the tests' in-process gateways. */
import { Redis } from 'ioredis';

export function connectRedis(url: string): Redis {
  return new Redis(url, {
    // No offline queue: when Redis is down a command fails at once instead of holding the request.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: 1000,
    lazyConnect: false,
    // Commands issued in the same turn (a request's rate-limit counts and auth-cache read, and those of concurrent
    // requests) share one write and one round trip.
    enableAutoPipelining: true,
  });
}
