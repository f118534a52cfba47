/**
 * The reverse proxies whose X-Forwarded-For names the client (ENGRAM_TRUSTED_PROXIES): read by
 * config.ts when it checks the variable, held by the site (site.ts), and asked by
 * http/client-address.ts, which picks a request's address. Nothing here reads a request.
 */
import { BlockList, isIP } from 'node:net';

/** One entry of ENGRAM_TRUSTED_PROXIES: an address, or a network in CIDR form. */
export interface ProxyEntry {
  address: string;
  prefix: number;
  family: 'ipv4' | 'ipv6';
}

/** Parses `10.0.0.5`, `10.0.0.0/8` or `fd00::/8`; null for anything else. */
export function parseProxyEntry(entry: string): ProxyEntry | null {
  const [address = '', prefixText, ...rest] = entry.trim().split('/');
  const version = isIP(address);
  if (!version || rest.length) return null;
  const bits = version === 4 ? 32 : 128;
  const prefix = prefixText === undefined ? bits : /^\d{1,3}$/.test(prefixText) ? Number(prefixText) : -1;
  if (prefix < 0 || prefix > bits) return null;
  return { address, prefix, family: version === 4 ? 'ipv4' : 'ipv6' };
}

/** The reverse proxies whose X-Forwarded-For is believed; empty (the default) believes none. */
export class TrustedProxies {
  private readonly list = new BlockList();
  readonly size: number;

  /** `entries` were checked by loadConfig; one that does not parse is a programming error. */
  constructor(entries: readonly string[]) {
    for (const text of entries) {
      const entry = parseProxyEntry(text);
      if (!entry) throw new Error(`not an address or CIDR network: ${text}`);
      this.list.addSubnet(entry.address, entry.prefix, entry.family);
    }
    this.size = entries.length;
  }

  has(address: string): boolean {
    const version = isIP(address);
    return version !== 0 && this.list.check(address, version === 4 ? 'ipv4' : 'ipv6');
  }
}
