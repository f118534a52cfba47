/**
 * Which IP addresses the URL reader refuses to connect to, by range. Only canonical address text
 * arrives here (the WHATWG URL parser has already turned 0177.1, 0x7f000001 and friends into
 * 127.0.0.1, and DNS answers are canonical); host names are resolved elsewhere.
 */

/** A refused range: its first address as a number (IPv4) or groups (IPv6), its prefix length, what to call it. */
type V4Range = readonly [base: number, bits: number, label: string];
type V6Range = readonly [base: readonly number[], bits: number, label: string];

const LOOPBACK = 'a loopback address (this machine)';
const PRIVATE = 'a private network address';
const LINK_LOCAL = 'a link-local address (where cloud metadata services live)';
const RESERVED = 'a reserved address';

const v4 = (a: number, b: number, c: number, d: number) => ((a << 24) | (b << 16) | (c << 8) | d) >>> 0;

// RFC 6890 special-purpose ranges; what is not listed is treated as public.
const V4_REFUSED: readonly V4Range[] = [
  [v4(255, 255, 255, 255), 32, 'the broadcast address'],
  [v4(0, 0, 0, 0), 8, 'an unspecified address'],
  [v4(10, 0, 0, 0), 8, PRIVATE],
  [v4(100, 64, 0, 0), 10, 'a shared carrier-grade NAT address'],
  [v4(127, 0, 0, 0), 8, LOOPBACK],
  [v4(169, 254, 0, 0), 16, LINK_LOCAL],
  [v4(172, 16, 0, 0), 12, PRIVATE],
  [v4(192, 0, 0, 0), 24, RESERVED],
  [v4(192, 0, 2, 0), 24, RESERVED],
  [v4(192, 88, 99, 0), 24, RESERVED],
  [v4(192, 168, 0, 0), 16, PRIVATE],
  [v4(198, 18, 0, 0), 15, RESERVED],
  [v4(198, 51, 100, 0), 24, RESERVED],
  [v4(203, 0, 113, 0), 24, RESERVED],
  [v4(224, 0, 0, 0), 4, 'a multicast address'],
  [v4(240, 0, 0, 0), 4, RESERVED],
];

// Checked only after the forms that wrap an IPv4 address have been unwrapped.
const V6_REFUSED: readonly V6Range[] = [
  [[0, 0, 0, 0, 0, 0, 0, 0], 128, 'an unspecified address'],
  [[0, 0, 0, 0, 0, 0, 0, 1], 128, LOOPBACK],
  [[0x64, 0xff9b, 1], 48, PRIVATE], // local-use NAT64 (RFC 8215)
  [[0x100], 64, RESERVED], // discard-only
  [[0x2001], 23, RESERVED], // IETF protocol assignments, Teredo included
  [[0x2001, 0xdb8], 32, RESERVED], // documentation
  [[0x3fff], 20, RESERVED], // documentation (RFC 9637)
  [[0xfc00], 7, PRIVATE], // unique local
  [[0xfe80], 10, LINK_LOCAL],
  [[0xfec0], 10, PRIVATE], // the retired site-local range, still routed inside some networks
  [[0xff00], 8, 'a multicast address'],
];

/** Strict dotted-decimal IPv4 as a 32-bit number, or null. No octal, hex or short forms: those never reach here. */
export function parseIPv4(text: string): number | null {
  const parts = text.split('.');
  if (parts.length !== 4) return null;
  let value = 0;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part) || Number(part) > 255) return null;
    value = value * 256 + Number(part);
  }
  return value;
}

/**
 * IPv6 text (brackets allowed, `::` and a dotted IPv4 tail understood) as eight 16-bit groups, or
 * null. A zone id (`fe80::1%eth0`) is refused as unreadable: public DNS never answers with one.
 */
export function parseIPv6(text: string): number[] | null {
  let s = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  if (!s.includes(':') || s.includes('%')) return null;
  const lastColon = s.lastIndexOf(':');
  if (s.includes('.', lastColon)) {
    // A dotted IPv4 tail (::ffff:127.0.0.1) is the last two groups written another way.
    const embedded = parseIPv4(s.slice(lastColon + 1));
    if (embedded == null) return null;
    s = `${s.slice(0, lastColon + 1)}${(embedded >>> 16).toString(16)}:${(embedded & 0xffff).toString(16)}`;
  }
  const halves = s.split('::');
  if (halves.length > 2) return null;
  const groups = (half: string): number[] | null => {
    if (half === '') return [];
    const out: number[] = [];
    for (const g of half.split(':')) {
      if (!/^[0-9a-f]{1,4}$/i.test(g)) return null;
      out.push(parseInt(g, 16));
    }
    return out;
  };
  const head = groups(halves[0]!);
  const rest = halves.length === 2 ? groups(halves[1]!) : [];
  if (!head || !rest) return null;
  const given = head.length + rest.length;
  if (halves.length === 1) return given === 8 ? head : null;
  if (given > 7) return null;
  return [...head, ...new Array<number>(8 - given).fill(0), ...rest];
}

function inV4(address: number, [base, bits]: V4Range): boolean {
  const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
  return (address & mask) >>> 0 === base;
}

function inV6(groups: readonly number[], [base, bits]: V6Range): boolean {
  for (let i = 0; i < 8 && bits > 0; i++, bits -= 16) {
    const mask = bits >= 16 ? 0xffff : (0xffff << (16 - bits)) & 0xffff;
    if ((groups[i]! & mask) !== ((base[i] ?? 0) & mask)) return false;
  }
  return true;
}

function refusedV4(address: number): string | null {
  return V4_REFUSED.find((range) => inV4(address, range))?.[2] ?? null;
}

/** The IPv4 address an IPv6 form carries on to, when it is one that does: mapped, translated, NAT64, 6to4. */
function embeddedV4(g: readonly number[]): number | null {
  const zeros = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  const join = (hi: number, lo: number) => ((hi << 16) | lo) >>> 0;
  if (zeros(0, 5) && g[5] === 0xffff) return join(g[6]!, g[7]!); // ::ffff:a.b.c.d, IPv4-mapped
  if (zeros(0, 4) && g[4] === 0xffff && g[5] === 0) return join(g[6]!, g[7]!); // ::ffff:0:a.b.c.d, SIIT
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) return join(g[6]!, g[7]!); // 64:ff9b::a.b.c.d, NAT64
  if (g[0] === 0x2002) return join(g[1]!, g[2]!); // 2002:aabb:ccdd::, 6to4
  return null;
}

/**
 * Why an address may not be fetched, as a phrase for the owner ("a loopback address (this
 * machine)"), or null when it is public. IPv4 ranges follow RFC 6890; an IPv6 form that wraps an
 * IPv4 address (mapped, SIIT, NAT64 64:ff9b::/96, 6to4) is judged by the address inside it; any
 * other IPv6 address outside global unicast 2000::/3 is reserved. Text that is not an address is
 * refused too, so a parsing gap can only ever refuse, never let through.
 */
export function refusedRange(address: string): string | null {
  const four = parseIPv4(address);
  if (four != null) return refusedV4(four);
  const six = parseIPv6(address);
  if (six == null) return 'not an address Engram can check';
  const inner = embeddedV4(six);
  if (inner != null) return refusedV4(inner);
  const listed = V6_REFUSED.find((range) => inV6(six, range));
  if (listed) return listed[2];
  return (six[0]! & 0xe000) === 0x2000 ? null : RESERVED;
}
