/**
 * A stand-in for DNS and the web, for the server's fetches of OAuth client metadata documents:
 * names resolve to the addresses a test gives, and requests (which arrive at a checked IP address,
 * with the name in the Host header) are answered by the test's handlers. Nothing leaves the machine.
 */
import type { ResolvedAddress } from '../../src/fetch/resolve-host';

export type Handler = (request: {
  url: string;
  headers: Record<string, string>;
  redirect: string | undefined;
}) => Response | Promise<Response>;

export class FakeInternet {
  readonly dns = new Map<string, string[]>();
  readonly pages = new Map<string, Handler>();
  /** Every request that reached the network: the document URL (by its name) and the address connected to. */
  readonly requests: { url: string; address: string }[] = [];

  /** Serves `body` as JSON at `url`, its host resolving to a public address. */
  serveJson(url: string, body: unknown, headers: Record<string, string> = {}): void {
    const host = new URL(url).hostname;
    if (!this.dns.has(host)) this.dns.set(host, ['93.184.215.14']);
    this.pages.set(url, () => Response.json(body, { headers }));
  }

  lookup = async (hostname: string): Promise<ResolvedAddress[]> => {
    const addresses = this.dns.get(hostname);
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };

  fetch = async (target: string, init: BunFetchRequestInit): Promise<Response> => {
    const headers = Object.fromEntries(
      Object.entries((init.headers ?? {}) as Record<string, string>).map(([k, v]) => [k.toLowerCase(), v]),
    );
    const pinned = new URL(target);
    const url = `${pinned.protocol}//${headers.host}${pinned.pathname}${pinned.search}`;
    this.requests.push({ url, address: pinned.hostname });
    const handler = this.pages.get(url);
    if (!handler) return new Response('not found', { status: 404 });
    return handler({ url, headers, redirect: init.redirect as string | undefined });
  };

  fetchesOf(url: string): number {
    return this.requests.filter((r) => r.url === url).length;
  }
}
