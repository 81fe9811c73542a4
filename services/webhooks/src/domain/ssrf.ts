/**
 * The SSRF guard (DESIGN: outbound requests refuse private, loopback and link-local targets after DNS
 * resolution). Only globally routable unicast addresses pass: loopback, private (RFC 1918), link-local,
 * unique-local, carrier-grade NAT, unspecified, multicast, broadcast, reserved and the translation ranges
 * (NAT64, 6to4, Teredo) that could smuggle any of them are refused. IPv4-mapped IPv6 is judged as IPv4.
 *
 * Two places apply it: `refusedLiteral` for URLs whose host is an IP literal (the socket does no lookup for
 * those), and `guardedLookup` as the socket's DNS lookup, so the address that is checked is the address
 * connected to (no gap for DNS rebinding between a check and the connection).
 */
import dns from 'node:dns';
import type { LookupAddress, LookupOptions } from 'node:dns';
import net from 'node:net';
import ipaddr from 'ipaddr.js';

export class TargetRefusedError extends Error {
  readonly code = 'ETARGETREFUSED';
  constructor(readonly range: string) {
    super(`refused: the target address is ${range}; deliveries go to public addresses only`);
    this.name = 'TargetRefusedError';
  }
}

/** The range name of an address that is refused, or undefined for a public unicast address. */
export function refusedRange(address: string): string | undefined {
  let addr: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    addr = ipaddr.parse(address);
  } catch {
    return 'not an IP address';
  }
  if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress()) addr = (addr as ipaddr.IPv6).toIPv4Address();
  const range = addr.range();
  return range === 'unicast' ? undefined : range;
}

/** For a URL host that is an IP literal (`[::1]` included): the refused range, else undefined. */
export function refusedLiteral(hostname: string): string | undefined {
  const host = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return net.isIP(host) ? refusedRange(host) : undefined;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A `net.connect` lookup that resolves, then refuses the connection if any address is not public. */
export function guardedLookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
  dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, []);
    const list = addresses as LookupAddress[];
    for (const a of list) {
      const range = refusedRange(a.address);
      if (range) return callback(new TargetRefusedError(range), []);
    }
    if (list.length === 0) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), []);
    if (options.all) return callback(null, list);
    return callback(null, list[0]!.address, list[0]!.family);
  });
}
