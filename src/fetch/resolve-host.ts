/**
 * Turns a URL's host into the checked addresses the reader may connect to: literal IPs are judged
 * as written, names are resolved once and refused if any answer is refused. Connecting happens in
 * fetch-document.ts, to one of these addresses and never to the name again.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import { FetchError } from './fetch-error';
import { parseIPv4, parseIPv6, refusedRange } from './ip-ranges';

/** One DNS answer, the shape node:dns `lookup(name, { all: true })` gives. */
export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Resolves a host name to all of its addresses; tests hand in one that never touches the network. */
export type Lookup = (hostname: string) => Promise<ResolvedAddress[]>;

/** The system resolver (getaddrinfo, so /etc/hosts counts), every answer in the order given. */
export const systemLookup: Lookup = (hostname) => dnsLookup(hostname, { all: true, order: 'verbatim' });

const ALLOW_HINT = 'Set ENGRAM_FETCH_ALLOW_PRIVATE=true to let Engram fetch from this machine and its network.';

function refuse(url: URL, address: string, why: string): never {
  const shown = address === url.hostname ? address : `${url.hostname}, which resolves to ${address},`;
  throw new FetchError(`Refused to fetch ${url.href}: ${shown} is ${why}. ${ALLOW_HINT}`, true);
}

/**
 * The addresses to try for `url`, IPv4 first, every one of them checked. Unless `allowPrivate`,
 * refuses (permanent FetchError) a literal IP in a refused range, any `localhost` name without
 * asking DNS (RFC 6761 reserves it for loopback), and a name when ANY of its answers is refused:
 * an attacker who controls a name's records may hand out one public and one private address.
 * A failed lookup is retryable, since an offline laptop fails the same way as a typo.
 */
export async function resolveHost(url: URL, allowPrivate: boolean, lookup: Lookup): Promise<ResolvedAddress[]> {
  const host = url.hostname;
  if (host.startsWith('[')) {
    const address = host.slice(1, -1);
    const why = parseIPv6(address) ? refusedRange(address) : 'not an address Engram can check';
    if (why && !allowPrivate) refuse(url, host, why);
    return [{ address, family: 6 }];
  }
  if (parseIPv4(host) != null) {
    const why = refusedRange(host);
    if (why && !allowPrivate) refuse(url, host, why);
    return [{ address: host, family: 4 }];
  }
  const name = host.replace(/\.$/, '');
  if (!allowPrivate && (name === 'localhost' || name.endsWith('.localhost')))
    refuse(url, host, 'a loopback name (this machine)');

  let answers: ResolvedAddress[];
  try {
    answers = await lookup(name);
  } catch (error) {
    const code = (error as { code?: string }).code;
    throw new FetchError(`Could not find the host ${host} for ${url.href}${code ? ` (${code})` : ''}.`, false);
  }
  if (answers.length === 0) throw new FetchError(`The host ${host} for ${url.href} has no addresses.`, false);
  if (!allowPrivate) {
    for (const { address } of answers) {
      const why = refusedRange(address);
      if (why) refuse(url, address, why);
    }
  }
  // IPv4 first: a machine with a broken IPv6 route is commoner than one without IPv4.
  return [...answers.filter((a) => a.family === 4), ...answers.filter((a) => a.family !== 4)];
}
