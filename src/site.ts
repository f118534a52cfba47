/**
 * Where the server is, as its clients see it: known only once it listens (the port may be 0). Its
 * MCP endpoint is the one resource consent tokens are issued for, so its address is here too.
 */
import type { Config } from './config';
import { TrustedProxies } from './trusted-proxies';

export const MCP_PATH = '/mcp-http';
/**
 * Every path the MCP door answers as MCP_PATH: its own, with a trailing slash, and `/mcp`, which
 * clients and people try. Consent tokens are still issued for MCP_PATH alone.
 */
export const MCP_PATHS = [MCP_PATH, `${MCP_PATH}/`, '/mcp'];

export interface Site {
  /** `{base_url}`: ENGRAM_PUBLIC_URL, or the address it listens on. */
  baseUrl: string;
  /** Browser origins allowed on /mcp-http: the server's own, in every loopback spelling, plus the configured ones. */
  origins: ReadonlySet<string>;
  /**
   * The server's own origins alone (its address, the public URL, every loopback spelling): the
   * owner's pages post only from these.
   */
  ownOrigins: ReadonlySet<string>;
  /** Reverse proxies whose X-Forwarded-For names the client (ENGRAM_TRUSTED_PROXIES); none by default. */
  trustedProxies: TrustedProxies;
}

export function siteFor(config: Config, port: number): Site {
  const listening = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  const baseUrl = config.publicUrl ?? listening;
  const loopback = ['127.0.0.1', 'localhost', '[::1]'].map((h) => `http://${h}:${port}`);
  const own = [baseUrl, listening, ...loopback];
  return {
    baseUrl,
    origins: new Set([...own, ...config.allowedOrigins]),
    ownOrigins: new Set(own),
    trustedProxies: new TrustedProxies(config.trustedProxies),
  };
}

/** The audience every consent token is bound to: `{base_url}/mcp-http`. */
export const resourceOf = (site: Pick<Site, 'baseUrl'>): string => `${site.baseUrl}${MCP_PATH}`;

/** Whether clients reach the server over https: its cookies are then sent only over https (Secure). */
export const servesHttps = (site: Pick<Site, 'baseUrl'>): boolean => site.baseUrl.startsWith('https://');
