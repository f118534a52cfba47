/**
 * The address a request came from, which every per-address limiter keys on: the direct peer, or,
 * when that peer is a reverse proxy listed in ENGRAM_TRUSTED_PROXIES, the client it names in
 * X-Forwarded-For. Nothing here trusts a header from a peer that is not listed.
 */
import { isIP } from 'node:net';
import type { Context } from 'hono';
import type { Site } from '../site';

/** An X-Forwarded-For entry as an address: plain, or with a port (`1.2.3.4:80`, `[::1]:80`). */
function forwardedAddress(entry: string): string | null {
  const bare = entry.trim();
  if (isIP(bare)) return bare;
  const withPort = /^\[([^\]]+)\](?::\d+)?$/.exec(bare) ?? /^(\d{1,3}(?:\.\d{1,3}){3}):\d+$/.exec(bare);
  return withPort && isIP(withPort[1]!) ? withPort[1]! : null;
}

/** The direct peer's address as Bun reports it, or 'unknown' (in-process requests have none). */
function peerAddress(c: Context): string {
  const server = c.env as { requestIP?: (req: Request) => { address: string } | null } | undefined;
  try {
    return server?.requestIP?.(c.req.raw)?.address ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

/**
 * The client's address. Only when the direct peer is a trusted proxy is X-Forwarded-For read: its
 * right-most entry that is not itself a trusted proxy is the client (every entry left of it could
 * have been written by the client). An entry that is not an address keys on the peer instead, so
 * made-up values cannot each get a limiter of their own.
 */
export function clientAddress(c: Context, site: Pick<Site, 'trustedProxies'>): string {
  const peer = peerAddress(c);
  if (!site.trustedProxies.size || !site.trustedProxies.has(peer)) return peer;
  const chain = (c.req.header('X-Forwarded-For') ?? '').split(',').filter((e) => e.trim());
  for (let i = chain.length - 1; i >= 0; i--) {
    const address = forwardedAddress(chain[i]!);
    if (!address) return peer;
    if (!site.trustedProxies.has(address) || i === 0) return address;
  }
  return peer;
}
