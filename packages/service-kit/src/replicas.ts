/**
 * Internal unary calls dealt over every replica of the service they go to.
 *
 * A process's calls to a service ride one HTTP/2 connection, and a Kubernetes ClusterIP Service balances
 * connections, not requests: behind one, every call of a gateway pod went to the one pod its connection happened
 * to reach, whatever the service's replica count (gRPC's well-known trap on Kubernetes). The chart points the
 * internal RPC URLs at headless Services, whose name resolves to every ready pod; this looks the name up, keeps one
 * connection per address and deals the calls round robin among them, as gRPC's `dns:///` resolver with its
 * `round_robin` policy does. A URL whose host is an address (`make up`, the tests) keeps its one connection
 * (`createRpcClient` does not use this then).
 *
 * The name is looked up again on the first call after `resolveEveryMs` (in the background: calls go on meanwhile),
 * and as soon as a connection to one of its addresses cannot be opened. Such a call never reached a server, so it
 * is tried on the next address (each once). An address whose connection failed is left out of the rotation (unless
 * every one is) and reconnected in the background, after 0.5 s and then twice as long each time up to 30 s; it is
 * dealt calls again once a connection opens, so that no call waits on a replica that is gone while the name still
 * lists it. An address that left the name keeps its connection for the calls in flight on it, which closes once
 * idle (the session manager's idle timeout).
 *
 * Every change of a rotation (an address added or removed by a lookup, one leaving it on a failed connection or coming
 * back) is published on the diagnostics channel REPLICA_CHANNEL: `observeReplicas` (metrics.ts) logs and counts them.
 */
import diagnostics from 'node:diagnostics_channel';
import dns from 'node:dns';
import type http2 from 'node:http2';
import { Code, ConnectError } from '@connectrpc/connect';
import type { Http2SessionManager } from '@connectrpc/connect-node';

/** What the unary transport needs of a connection: Connect's session manager, or this. */
export type SessionSource = Pick<Http2SessionManager, 'request' | 'notifyResponseByteRead'>;

/** Every address a host name resolves to (the system's resolver: /etc/hosts, then DNS, as `http2.connect` does). */
export type Lookup = (host: string) => Promise<string[]>;

export const systemLookup: Lookup = async (host) => (await dns.promises.lookup(host, { all: true })).map((a) => a.address);

/** How often a service's name is looked up again: a pod added behind it gets calls within this. */
export const RESOLVE_EVERY_MS = 10_000;
/** The least time between two lookups that failed connections ask for (or `resolveEveryMs` when shorter). */
const RESOLVE_AGAIN_AFTER_FAILURE_MS = 1_000;
/** The first and the longest wait before a failed address is reconnected in the background. */
const RECONNECT_FIRST_MS = 500;
const RECONNECT_MAX_MS = 30_000;

/** The diagnostics channel of rotation changes (`ReplicaChange`). */
export const REPLICA_CHANNEL = 'assay.rpc.replicas';
const changes = diagnostics.channel(REPLICA_CHANNEL);

export interface ReplicaChange {
  /** The URL's host and port: the service called. */
  target: string;
  address: string;
  change: 'added' | 'removed' | 'down' | 'up';
  /** Why a connection failed (`down`). */
  error?: string;
  /** The rotation after the change: addresses dealt calls, of all the name lists. */
  live: number;
  members: number;
}

interface Member {
  address: string;
  sessions: Http2SessionManager;
  /** Its connection failed, and no connection opened since: out of the rotation, reconnected in the background. */
  down: boolean;
}

export class ReplicaSessions implements SessionSource {
  private members: Member[] = [];
  /** The members not `down` (all of them when every one is): the rotation. */
  private live: Member[] = [];
  /** Where the rotation starts differs between processes, so that replicas of a caller do not move in step. */
  private next = Math.floor(Math.random() * 1024);
  private resolvedAt = -Infinity;
  private resolving: Promise<void> | undefined;
  private readonly owners = new WeakMap<http2.ClientHttp2Stream, Http2SessionManager>();

  constructor(
    private readonly url: URL,
    /** One session manager (one connection) for a URL naming one address. */
    private readonly sessionsFor: (baseUrl: string) => Http2SessionManager,
    private readonly lookup: Lookup = systemLookup,
    private readonly resolveEveryMs = RESOLVE_EVERY_MS,
  ) {}

  async request(...args: Parameters<Http2SessionManager['request']>): Promise<http2.ClientHttp2Stream> {
    if (this.members.length === 0) await this.resolve();
    else if (performance.now() - this.resolvedAt >= this.resolveEveryMs) this.resolveInBackground();
    const first = this.live[this.next++ % this.live.length]!;
    try {
      return await this.open(first, args);
    } catch (err) {
      // No stream was opened: the server never saw the call, which may go to another replica: each other one
      // once, those that did not refuse first.
      const others = this.members.filter((m) => m !== first);
      for (const m of [...others.filter((x) => !x.down), ...others.filter((x) => x.down)]) {
        try {
          return await this.open(m, args);
        } catch {
          // tried; the first failure is the call's
        }
      }
      throw err;
    }
  }

  private async open(m: Member, args: Parameters<Http2SessionManager['request']>): Promise<http2.ClientHttp2Stream> {
    try {
      const stream = await m.sessions.request(...args);
      this.owners.set(stream, m.sessions);
      if (m.down) this.markUp(m);
      return stream;
    } catch (err) {
      if (!m.down) this.markDown(m, err);
      if (performance.now() - this.resolvedAt >= Math.min(this.resolveEveryMs, RESOLVE_AGAIN_AFTER_FAILURE_MS)) this.resolveInBackground();
      throw err;
    }
  }

  notifyResponseByteRead(stream: http2.ClientHttp2Stream): void {
    this.owners.get(stream)?.notifyResponseByteRead(stream);
  }

  private markDown(m: Member, err: unknown): void {
    m.down = true;
    this.rotate();
    this.publish(m.address, 'down', err instanceof Error ? err.message : String(err));
    this.reconnectLater(m, RECONNECT_FIRST_MS);
  }

  /** Tries to open `m`'s connection after `ms` (while the name lists it and it is still down), backing off. */
  private reconnectLater(m: Member, ms: number): void {
    setTimeout(() => {
      if (!m.down || !this.members.includes(m)) return;
      void m.sessions.connect().then((state) => {
        if (!m.down || !this.members.includes(m)) return;
        if (state === 'error') this.reconnectLater(m, Math.min(ms * 2, RECONNECT_MAX_MS));
        else this.markUp(m);
      });
    }, ms).unref();
  }

  private markUp(m: Member): void {
    m.down = false;
    this.rotate();
    this.publish(m.address, 'up');
  }

  private rotate(): void {
    const up = this.members.filter((x) => !x.down);
    this.live = up.length > 0 ? up : this.members;
  }

  private publish(address: string, change: ReplicaChange['change'], error?: string): void {
    if (!changes.hasSubscribers) return;
    const live = this.members.filter((x) => !x.down).length;
    changes.publish({ target: this.url.host, address, change, error, live, members: this.members.length } satisfies ReplicaChange);
  }

  private resolveInBackground(): void {
    // A failed lookup keeps the addresses the last one gave (a DNS hiccup must not stop every call).
    this.resolve().catch(() => undefined);
  }

  private resolve(): Promise<void> {
    if (!this.resolving) {
      // `finally` runs after this assignment even when the lookup fails at once.
      const pending = this.lookUp().finally(() => {
        this.resolvedAt = performance.now();
        if (this.resolving === pending) this.resolving = undefined;
      });
      this.resolving = pending;
    }
    return this.resolving;
  }

  private async lookUp(): Promise<void> {
    try {
      const addresses = [...new Set(await this.lookup(this.url.hostname))];
      if (addresses.length === 0) throw new Error(`${this.url.hostname} resolves to no address`);
      const known = new Map(this.members.map((m) => [m.address, m]));
      this.members = addresses.map((a) => known.get(a) ?? { address: a, sessions: this.sessionsFor(this.urlOf(a)), down: false });
      this.rotate();
      for (const a of addresses) if (!known.delete(a)) this.publish(a, 'added');
      for (const a of known.keys()) this.publish(a, 'removed');
    } catch (err) {
      if (this.members.length === 0)
        throw new ConnectError(`cannot resolve ${this.url.hostname}`, Code.Unavailable, undefined, undefined, err);
    }
  }

  private urlOf(address: string): string {
    const u = new URL(this.url.href);
    u.hostname = address.includes(':') ? `[${address}]` : address;
    return u.origin;
  }
}
