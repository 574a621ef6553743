import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

type IPv4 = ipaddr.IPv4;
type IPv6 = ipaddr.IPv6;

// Address classes come from ipaddr.js's table of special-purpose blocks (IANA's registries). Only plain
// unicast counts as public: blocks IANA lists as reachable but no webhook or client document lives in
// (AS112, AMT) are refused with the rest.

/** Global unicast: outside it, an IPv6 address that falls in no special block is not reachable. */
const GLOBAL_UNICAST = ipaddr.IPv6.parseCIDR('2000::/3');
/** The well-known NAT64 prefix carries an IPv4 address in its last 32 bits; the local-use one does not. */
const NAT64 = ipaddr.IPv6.parseCIDR('64:ff9b::/96');

/** The IPv4 address in two 16-bit groups of an IPv6 address. */
function embedded(high: number, low: number): IPv4 {
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

function isPublicV4(address: IPv4): boolean {
  return address.range() === 'unicast';
}

function isPublicV6(address: IPv6): boolean {
  const parts = address.parts;
  switch (address.range()) {
    // These reach the IPv4 address they carry: mapped ::ffff:a.b.c.d, NAT64, 6to4 2002:aabb:ccdd::.
    case 'ipv4Mapped':
      return isPublicV4(address.toIPv4Address());
    case 'rfc6052':
      return address.match(NAT64) && isPublicV4(embedded(parts[6]!, parts[7]!));
    case '6to4':
      return isPublicV4(embedded(parts[1]!, parts[2]!));
    case 'unicast':
      return address.match(GLOBAL_UNICAST);
    default:
      // Teredo tunnels (whichever IPv4 address they name), unique-local, link-local, multicast, …
      return false;
  }
}

/** A valid IP address literal, parsed; undefined for anything else (dotted forms are strict). */
function parse(address: string): IPv4 | IPv6 | undefined {
  if (isIP(address) === 0) return undefined;
  try {
    return ipaddr.parse(address);
  } catch {
    return undefined;
  }
}

/** Whether an IP address is globally reachable; false for any private, special or malformed one. */
export function isPublicAddress(address: string): boolean {
  const parsed = parse(address);
  if (parsed === undefined) return false;
  if (parsed instanceof ipaddr.IPv4) return isPublicV4(parsed);
  // A zone index (fe80::1%eth0) names a local interface: no global address has one.
  return parsed.zoneId === undefined && isPublicV6(parsed);
}

/** Whether an IP address is a loopback address (127/8, ::1, or an IPv4-mapped 127/8). */
export function isLoopbackAddress(address: string): boolean {
  const parsed = parse(address);
  if (parsed instanceof ipaddr.IPv6 && parsed.isIPv4MappedAddress())
    return parsed.toIPv4Address().range() === 'loopback';
  return parsed?.range() === 'loopback';
}

/** Resolves a host name to all its addresses, like dns.lookup with `all: true`. */
export type Resolve = (hostname: string) => Promise<{ address: string; family: number }[]>;

export const resolveWithDns: Resolve = (hostname) => lookup(hostname, { all: true, verbatim: true });
