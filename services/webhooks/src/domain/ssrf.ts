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

/**
 * What a delivery attempt records when its target is refused — and when its name does not resolve: one
 * neutral text, so the delivery history cannot be used to learn which internal names exist or what they
 * point at. (`range` stays in the process's own log.)
 */
export const NOT_A_PUBLIC_TARGET = 'not sent: the target does not resolve to a public address';

export class TargetRefusedError extends Error {
  readonly code = 'ETARGETREFUSED';
  constructor(readonly range: string) {
    super(NOT_A_PUBLIC_TARGET);
    this.name = 'TargetRefusedError';
  }
}

/** Global unicast IPv6 is 2000::/3; anything else that ipaddr.js calls unicast is not routable either. */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

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
  if (range !== 'unicast') return range;
  if (addr.kind() === 'ipv6' && !(addr as ipaddr.IPv6).match(GLOBAL_UNICAST_V6 as [ipaddr.IPv6, number])) return 'outside 2000::/3';
  return undefined;
}

/** ipaddr.js names ranges in camelCase (`linkLocal`, `carrierGradeNat`); a person reads words. */
const RANGE_WORDS: Record<string, string> = {
  linkLocal: 'link-local',
  uniqueLocal: 'unique-local',
  carrierGradeNat: 'carrier-grade NAT',
  deprecatedSiteLocal: 'site-local',
  rfc6145: 'IPv4-translated',
  rfc6052: 'NAT64',
};

/** A refused range as a person reads it: `linkLocal` → "link-local", `private` as it is. */
export function rangeInWords(range: string): string {
  return RANGE_WORDS[range] ?? range.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
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
