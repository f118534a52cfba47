/**
 * The URL reader the learning worker uses for a document added with a `url`: fetches it over http
 * or https behind an address guard, redirect by redirect, within a time and size budget, and
 * returns its text. It stores nothing and knows nothing of jobs; the caller records failures.
 */
import { decodeText, metaCharset, parseContentType } from './decode-text';
import { FetchError } from './fetch-error';
import { htmlToText } from './html-text';
import { readCapped } from './read-body';
import { resolveHost, systemLookup, type Lookup, type ResolvedAddress } from './resolve-host';
import { untilAborted } from './until-aborted';

export { FetchError } from './fetch-error';

/** How the reader sends one request: Bun's `fetch` unless a test hands in a stand-in that never leaves the machine. */
export type Transport = (url: string, init: BunFetchRequestInit) => Promise<Response>;

/** What the caller decides; everything but `allowPrivate` has a default in FETCH_DEFAULTS. */
export interface FetchOptions {
  /** Let loopback, private and other non-public addresses through: the operator's ENGRAM_FETCH_ALLOW_PRIVATE. */
  allowPrivate: boolean;
  /** Budget for the whole fetch (DNS, every redirect, the body), in ms. Default 15 000. */
  timeoutMs?: number;
  /** Largest body accepted, in bytes after decompression. Default 10 MiB. */
  maxBytes?: number;
  /** Redirects followed before giving up. Default 5. */
  maxRedirects?: number;
  /** Sent as User-Agent. Default "Engram/0.1 (+local memory server)". */
  userAgent?: string;
  /** Cancels the fetch, e.g. when the worker shuts down. */
  signal?: AbortSignal;
  /** Name resolution; the system resolver by default. A seam for tests. */
  lookup?: Lookup;
  /** The request primitive; the global fetch by default. A seam for tests. */
  fetch?: Transport;
}

/** A fetched document, ready to be split into passages. */
export interface FetchedDocument {
  /** Readable text: HTML converted, any other text/* type as sent. */
  text: string;
  /** The HTML `<title>`; null for other types or when the page has none. */
  title: string | null;
  /** The media type without parameters, e.g. "text/html". */
  contentType: string;
  /** The URL the text came from, after redirects. */
  finalUrl: string;
}

/** The limits used when FetchOptions leaves them out. */
const FETCH_DEFAULTS = {
  timeoutMs: 15_000,
  maxBytes: 10 * 1024 * 1024, // DECISIONS.md: a fetched url body 10 MiB
  maxRedirects: 5,
  userAgent: 'Engram/0.1 (+local memory server)',
} as const;

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml']);
const ACCEPT = 'text/html,application/xhtml+xml;q=0.9,text/plain;q=0.8,text/*;q=0.7';

/** A URL the reader is willing to request: http(s), no credentials, fragment dropped. */
function checkUrl(text: string, base?: URL): URL {
  let url: URL;
  try {
    url = new URL(text, base);
  } catch {
    throw new FetchError(
      base ? `${base.href} redirected to an invalid URL: ${text}` : `Not a valid URL: ${text}`,
      true,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    const where = base ? `${base.href} redirected to ${url.href}, but only` : 'Only';
    throw new FetchError(`${where} http and https URLs can be fetched, not ${url.protocol.slice(0, -1)}.`, true);
  }
  if (url.username || url.password) {
    // A password in a URL would end up in the document's record and in logs; public pages need none.
    throw new FetchError(`Refused to fetch ${url.host}: URLs with a user name or password are not fetched.`, true);
  }
  url.hash = '';
  return url;
}

/** The failure for a status that is neither a success nor a redirect, or null for a success. */
function statusError(status: number, url: URL): FetchError | null {
  if (status >= 200 && status < 300) return null;
  const at = `${url.href} answered ${status}`;
  if (status === 404 || status === 410) return new FetchError(`${at}: the page does not exist.`, true);
  if (status === 401 || status === 403)
    return new FetchError(`${at}: the site refused access; Engram fetches public pages only.`, true);
  if (status === 408 || status === 425 || status === 429)
    return new FetchError(`${at}: the site asked to try again later.`, false);
  if (status >= 500) return new FetchError(`${at}: the site had a server error.`, false);
  return new FetchError(`${at}, which Engram cannot read a document from.`, true);
}

const CONNECT_REASONS: Record<string, string> = {
  ECONNREFUSED: 'the connection was refused',
  ECONNRESET: 'the connection was reset',
  ETIMEDOUT: 'the connection timed out',
  ENETUNREACH: 'the network is unreachable',
  EHOSTUNREACH: 'the host is unreachable',
};

function reasonOf(error: unknown): string {
  const code = (error as { code?: unknown })?.code;
  if (typeof code === 'string' && Object.hasOwn(CONNECT_REASONS, code)) return CONNECT_REASONS[code]!;
  return typeof code === 'string' ? code : error instanceof Error ? error.message : String(error);
}

function isCertificateError(error: unknown): boolean {
  const code = String((error as { code?: unknown })?.code ?? '');
  return /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER|TLS/.test(code);
}

/**
 * One request for `url`, sent to a checked address and never to the name, so a second DNS answer
 * cannot swap in another address between the check and the connection (DNS rebinding). The name
 * still travels where the server needs it: the Host header, and for https the TLS server name
 * (SNI), against which Bun also verifies the certificate. Addresses are tried in turn while the
 * connection itself fails.
 */
async function send(url: URL, addresses: ResolvedAddress[], o: Resolved, signal: AbortSignal): Promise<Response> {
  let lastError: unknown;
  for (const { address, family } of addresses) {
    const target = new URL(url);
    const pinned = family === 6 ? `[${address}]` : address;
    target.hostname = pinned;
    // The setter ignores what it cannot parse (a zone id, say) and would leave the name in place.
    if (target.hostname !== pinned) {
      lastError = new Error(`${address} cannot be connected to`);
      continue;
    }
    const init: BunFetchRequestInit = {
      method: 'GET',
      redirect: 'manual', // every hop goes back through the guard
      signal,
      // No reuse: a pooled connection to this address may have been opened for another name's SNI and certificate.
      keepalive: false,
      headers: { host: url.host, 'user-agent': o.userAgent, accept: ACCEPT },
    };
    if (url.protocol === 'https:') {
      // Pinned to HTTP/1.1, where the Host header set here is verifiably what goes on the wire (Bun 1.4.5).
      init.protocol = 'http1.1';
      if (target.hostname !== url.hostname) init.tls = { serverName: url.hostname.replace(/\.$/, '') };
    }
    try {
      return await o.fetch(target.href, init);
    } catch (error) {
      if (signal.aborted) throw error;
      if (isCertificateError(error)) {
        throw new FetchError(`The TLS certificate of ${url.host} could not be verified (${reasonOf(error)}).`, true);
      }
      lastError = error;
    }
  }
  throw new FetchError(`Could not connect to ${url.host} for ${url.href}: ${reasonOf(lastError)}.`, false);
}

type Resolved = Required<Omit<FetchOptions, 'signal'>>;

async function run(start: URL, o: Resolved, signal: AbortSignal): Promise<FetchedDocument> {
  let url = start;
  for (let redirects = 0; ; redirects++) {
    // DNS cannot be cancelled, so the budget is kept by no longer waiting for it.
    const addresses = await untilAborted(resolveHost(url, o.allowPrivate, o.lookup), signal).catch((error) => {
      // The owner added `start`; say how a URL they never typed came into it.
      if (redirects === 0 || !(error instanceof FetchError)) throw error;
      throw new FetchError(`${error.message} (reached by a redirect from ${start.href})`, error.permanent);
    });
    const response = await send(url, addresses, o, signal);

    if (REDIRECTS.has(response.status)) {
      await response.body?.cancel().catch(() => {});
      const location = response.headers.get('location');
      if (!location) throw new FetchError(`${url.href} answered ${response.status} without saying where to go.`, true);
      if (redirects >= o.maxRedirects) {
        throw new FetchError(
          `${start.href} redirected more than ${o.maxRedirects} times; gave up at ${url.href}.`,
          true,
        );
      }
      // Relative to the URL as the owner knows it, not to the address it was sent to.
      url = checkUrl(location, url);
      continue;
    }

    const failure = statusError(response.status, url);
    if (failure) {
      await response.body?.cancel().catch(() => {});
      throw failure;
    }
    // Judged before reading, so a PDF or a video is never downloaded.
    const { mediaType, charset } = parseContentType(response.headers.get('content-type'));
    const isHtml = HTML_TYPES.has(mediaType);
    if (!isHtml && !mediaType.startsWith('text/')) {
      await response.body?.cancel().catch(() => {});
      const type = mediaType || '(none given)';
      throw new FetchError(
        `Unsupported content type ${type} at ${url.href}: Engram reads HTML and text documents.`,
        true,
      );
    }

    const bytes = await readCapped(response, url.href, o.maxBytes, signal);
    let page: { text: string; title: string | null };
    try {
      page = isHtml
        ? htmlToText(decodeText(bytes, charset ?? metaCharset(bytes)))
        : { text: decodeText(bytes, charset), title: null };
    } catch (error) {
      throw new FetchError(`Could not read the document at ${url.href}: ${reasonOf(error)}.`, true);
    }
    // An empty document would be "learned" with nothing in it; a reason serves the owner better.
    if (!page.text.trim()) {
      const hint = isHtml ? ' (the page may need JavaScript to show any)' : '';
      throw new FetchError(`The document at ${url.href} has no readable text${hint}.`, true);
    }
    return { ...page, contentType: mediaType, finalUrl: url.href };
  }
}

/**
 * Fetches `url` and returns its readable text. Carries out the spec's document `url`: http and
 * https only; every hop's host checked before connecting (see resolveHost), and the connection
 * made to the checked address; at most `maxRedirects` redirects; the body cut off past
 * `maxBytes` while streaming; the whole fetch within `timeoutMs`. text/html and XHTML become
 * text (title kept), other text/* types pass through, decoded by their charset (UTF-8 when
 * none is named). Throws FetchError only: `permanent` for refusals, 4xx, unsupported types and
 * oversized bodies; retryable for timeouts, 5xx, 408/429 and failed connections or lookups.
 */
export async function fetchDocument(url: string, options: FetchOptions): Promise<FetchedDocument> {
  const o: Resolved = {
    allowPrivate: options.allowPrivate,
    timeoutMs: options.timeoutMs ?? FETCH_DEFAULTS.timeoutMs,
    maxBytes: options.maxBytes ?? FETCH_DEFAULTS.maxBytes,
    maxRedirects: options.maxRedirects ?? FETCH_DEFAULTS.maxRedirects,
    userAgent: options.userAgent ?? FETCH_DEFAULTS.userAgent,
    lookup: options.lookup ?? systemLookup,
    fetch: options.fetch ?? fetch,
  };
  const start = checkUrl(url);
  const deadline = AbortSignal.timeout(o.timeoutMs);
  const signal = options.signal ? AbortSignal.any([deadline, options.signal]) : deadline;
  try {
    return await run(start, o, signal);
  } catch (error) {
    if (error instanceof FetchError) throw error;
    if (deadline.aborted) {
      throw new FetchError(
        `Timed out after ${o.timeoutMs / 1000} s fetching ${start.href}; the site was too slow to answer.`,
        false,
      );
    }
    if (options.signal?.aborted) throw new FetchError(`Fetching ${start.href} was cancelled.`, false);
    throw new FetchError(`Could not fetch ${start.href}: ${reasonOf(error)}.`, false);
  }
}
