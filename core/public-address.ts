import { isIPv4, isIPv6 } from 'node:net';

/** IPv4 blocks that are not globally reachable (IANA special-purpose registry), as [first, prefix]. */
const NON_PUBLIC_V4: [string, number][] = [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata services
  ['172.16.0.0', 12],
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.88.99.0', 24], // 6to4 relay anycast
  ['192.168.0.0', 16],
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, and the broadcast address
];

function v4Number(bytes: number[]): number {
  return ((bytes[0]! << 24) | (bytes[1]! << 16) | (bytes[2]! << 8) | bytes[3]!) >>> 0;
}

const v4Blocks = NON_PUBLIC_V4.map(([first, prefix]) => {
  const mask = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
  return { base: (v4Number(first.split('.').map(Number)) & mask) >>> 0, mask };
});

function isPublicV4(bytes: number[]): boolean {
  const n = v4Number(bytes);
  return !v4Blocks.some((b) => (n & b.mask) >>> 0 === b.base);
}

/** The 16 bytes of an IPv6 address (which may end in a dotted IPv4 part); undefined if malformed. */
function v6Bytes(address: string): number[] | undefined {
  let text = address;
  const tail: number[] = [];
  const dotted = /:(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    if (!isIPv4(dotted[1]!)) return undefined;
    tail.push(...dotted[1]!.split('.').map(Number));
    text = `${text.slice(0, dotted.index)}:0:0`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const groups = (part: string) => (part === '' ? [] : part.split(':'));
  const head = groups(halves[0]!);
  const rest = halves.length === 2 ? groups(halves[1]!) : [];
  const missing = 8 - head.length - rest.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined;
  const all = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...rest];
  const bytes: number[] = [];
  for (const group of all) {
    if (!/^[0-9a-f]{1,4}$/i.test(group)) return undefined;
    const value = Number.parseInt(group, 16);
    bytes.push(value >> 8, value & 0xff);
  }
  if (tail.length) bytes.splice(12, 4, ...tail);
  return bytes;
}

function isPublicV6(bytes: number[]): boolean {
  const zeros = (from: number, to: number) => bytes.slice(from, to).every((b) => b === 0);
  const embedded = (at: number) => bytes.slice(at, at + 4);
  // IPv4-mapped ::ffff:a.b.c.d and NAT64 64:ff9b::a.b.c.d reach the IPv4 address they carry.
  if (zeros(0, 10) && bytes[10] === 0xff && bytes[11] === 0xff) return isPublicV4(embedded(12));
  if (bytes[0] === 0 && bytes[1] === 0x64 && bytes[2] === 0xff && bytes[3] === 0x9b && zeros(4, 12))
    return isPublicV4(embedded(12));
  // Only global unicast 2000::/3 is public: this leaves out ::, ::1, IPv4-compatible, local-use NAT64,
  // unique-local fc00::/7, link-local fe80::/10, site-local and multicast ff00::/8.
  if ((bytes[0]! & 0xe0) !== 0x20) return false;
  if (bytes[0] === 0x20 && bytes[1] === 0x01 && (bytes[2]! & 0xfe) === 0) return false; // 2001::/23 incl. Teredo
  if (bytes[0] === 0x20 && bytes[1] === 0x01 && bytes[2] === 0x0d && bytes[3] === 0xb8) return false; // documentation
  if (bytes[0] === 0x3f && bytes[1] === 0xff && (bytes[2]! & 0xf0) === 0) return false; // documentation 3fff::/20
  if (bytes[0] === 0x20 && bytes[1] === 0x02) return isPublicV4(embedded(2)); // 6to4 carries an IPv4 address
  return true;
}

/** Whether an IP address is globally reachable; false for any private, special or malformed one. */
export function isPublicAddress(address: string): boolean {
  if (isIPv4(address)) return isPublicV4(address.split('.').map(Number));
  // A zone index (fe80::1%eth0) only exists on link-local addresses.
  if (!isIPv6(address) || address.includes('%')) return false;
  const bytes = v6Bytes(address.toLowerCase());
  return bytes !== undefined && isPublicV6(bytes);
}

/** Whether an IP address is a loopback address (127/8, ::1, or an IPv4-mapped 127/8). */
export function isLoopbackAddress(address: string): boolean {
  if (isIPv4(address)) return address.startsWith('127.');
  const bytes = isIPv6(address) ? v6Bytes(address.toLowerCase()) : undefined;
  if (!bytes) return false;
  if (bytes.slice(0, 15).every((b) => b === 0) && bytes[15] === 1) return true;
  return (
    bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff && bytes[12] === 127
  );
}
