/**
 * Which redirect URIs an app may register, and whether a requested one matches a registration.
 * Accepted: https; http on a loopback host (localhost, 127.0.0.1, [::1]); private-use schemes of
 * native apps (RFC 8252 §7.1, e.g. Cursor's `cursor://…`). Refused: script-bearing or local schemes,
 * fragments, user info, and plain http anywhere else. An app that says it is a web application
 * (`application_type: "web"`, OpenID Connect Registration) may register https on a host of its own
 * only; a native one, and one that does not say, anything above (RFC 8252: loopback, its own
 * scheme, or a claimed https URI, as VS Code registers `https://vscode.dev/redirect`).
 */

/**
 * What an app says it is at registration (OpenID Connect Registration 1.0 §2; MCP 2026-07-28 asks
 * every client to say).
 */
export type ApplicationType = 'native' | 'web';
export const APPLICATION_TYPES: readonly ApplicationType[] = ['native', 'web'];

/** Schemes that could run code or read local files in the owner's browser. */
const REFUSED_SCHEMES = new Set(['javascript:', 'data:', 'file:', 'vbscript:', 'blob:', 'about:']);
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);
const MAX_URI_CHARS = 2000;
export const MAX_REDIRECT_URIS = 20;

const isLoopbackHost = (hostname: string): boolean => LOOPBACK_HOSTS.has(hostname.toLowerCase());

/** Why a redirect URI cannot be registered by an app of this type (undefined: it did not say), or null when it can. */
export function redirectUriProblem(uri: unknown, applicationType?: ApplicationType): string | null {
  const problem = schemeProblem(uri);
  if (problem || applicationType !== 'web') return problem;
  const url = new URL(uri as string);
  return url.protocol === 'https:' && !isLoopbackHost(url.hostname)
    ? null
    : `${uri} is a native app's redirect URI; a web application (application_type "web") redirects to https on a host of its own. Register a desktop, command-line or locally served app with application_type "native"`;
}

function schemeProblem(uri: unknown): string | null {
  if (typeof uri !== 'string' || uri.length === 0) return 'a redirect URI must be a non-empty string';
  if (uri.length > MAX_URI_CHARS) return `a redirect URI must be at most ${MAX_URI_CHARS} characters`;
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return `${uri} is not an absolute URI`;
  }
  const scheme = url.protocol.toLowerCase();
  if (REFUSED_SCHEMES.has(scheme)) return `the ${scheme.slice(0, -1)} scheme is not allowed for a redirect URI`;
  if (uri.includes('#')) return `${uri} has a fragment, which a redirect URI may not have (RFC 6749 §3.1.2)`;
  if (/[\s<>"]/.test(uri)) return `${uri} contains characters a URI may not contain`;
  if (url.username || url.password) return `${uri} carries a user name or password`;
  if (scheme === 'https:') return url.hostname ? null : `${uri} has no host`;
  if (scheme === 'http:') {
    return isLoopbackHost(url.hostname) ? null : `${uri} uses plain http on a host other than loopback; use https`;
  }
  // A private-use scheme (RFC 8252 §7.1): the app's own, e.g. cursor://anysphere.cursor-mcp/oauth/callback.
  return /^[a-z][a-z0-9+.-]*:$/.test(scheme) ? null : `${uri} has a scheme that is not allowed`;
}

/**
 * Whether `requested` is one of the registered redirect URIs: compared exactly, except that on a
 * loopback http URI the port may differ, as RFC 8252 §7.3 requires for native apps that take an
 * ephemeral port (VS Code registers `http://127.0.0.1` and sends `http://127.0.0.1:59656/`).
 */
export function redirectUriMatches(registered: readonly string[], requested: string): boolean {
  if (registered.includes(requested)) return true;
  const want = loopbackParts(requested);
  if (!want) return false;
  return registered.some((r) => {
    const have = loopbackParts(r);
    return have !== null && have.host === want.host && have.path === want.path && have.query === want.query;
  });
}

/** The parts of a loopback http URI that must match (everything but the port), or null for any other URI. */
function loopbackParts(uri: string): { host: string; path: string; query: string } | null {
  if (uri.includes('#')) return null;
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' || !isLoopbackHost(url.hostname) || url.username || url.password) return null;
  return { host: url.hostname.toLowerCase(), path: url.pathname, query: url.search };
}
