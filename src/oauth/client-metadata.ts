/**
 * Client ID metadata documents (draft-ietf-oauth-client-id-metadata-document, MCP SEP-991): an app
 * may present an https URL as its client_id (claude.ai, Claude Code and ChatGPT do); the document
 * at that URL is its registration. Fetching an app-chosen URL is the risk, so the fetch goes
 * through the URL reader's address guard (resolve-host, ip-ranges): public addresses only, the
 * connection pinned to the checked address, no redirects, a small size cap and a short deadline.
 * Documents are cached in the store and served stale when a later fetch fails.
 */
import type { Clock } from '../clock';
import type { Logger } from '../log';
import { FetchError, type Transport } from '../fetch/fetch-document';
import { readCapped } from '../fetch/read-body';
import { type Lookup, resolveHost, type ResolvedAddress, systemLookup } from '../fetch/resolve-host';
import { untilAborted } from '../fetch/until-aborted';
import { withoutInvisible } from '../names';
import type { OAuthClient, Repositories } from '../storage/store';
import { APPLICATION_TYPES, type ApplicationType, MAX_REDIRECT_URIS, redirectUriProblem } from './redirect-uris';

export interface ClientMetadataOptions {
  /** The operator's ENGRAM_FETCH_ALLOW_PRIVATE: also fetch documents from private addresses. */
  allowPrivate: boolean;
  /** Name resolution; the system's by default. A seam for tests. */
  lookup?: Lookup;
  /** The request primitive; the global fetch by default. A seam for tests. */
  fetch?: Transport;
  timeoutMs?: number;
  maxBytes?: number;
}

const DEFAULT_TIMEOUT_MS = 5_000;
/** The draft suggests documents stay under 5 KB; 16 KiB leaves room without inviting abuse. */
const DEFAULT_MAX_BYTES = 16 * 1024;
/** Cache lifetime: the document's Cache-Control max-age, held between these bounds; one hour without one. */
const MIN_FRESH_MS = 5 * 60_000;
const MAX_FRESH_MS = 24 * 3_600_000;
const DEFAULT_FRESH_MS = 3_600_000;
/** A cached document is used this long after its last fetch when fetching again fails. */
const STALE_MAX_MS = 7 * 24 * 3_600_000;
const MAX_CLIENT_ID_CHARS = 2000;

/** Why a metadata document cannot be used. `transient`: fetching again later may work (a stale copy may stand in). */
export class ClientMetadataError extends Error {
  constructor(
    message: string,
    readonly transient: boolean,
  ) {
    super(message);
  }
}

/** Whether a client_id is a metadata document URL: https, a path beyond "/", no fragment or user info. */
export function isMetadataDocumentClientId(clientId: string): boolean {
  if (!clientId.startsWith('https://') || clientId.length > MAX_CLIENT_ID_CHARS || clientId.includes('#')) return false;
  try {
    const url = new URL(clientId);
    return url.pathname !== '/' && !url.username && !url.password;
  } catch {
    return false;
  }
}

/** Checks a fetched document against the URL it came from; returns what the registration needs. */
function validateClientMetadata(doc: unknown, clientId: string): { name: string; redirectUris: string[] } {
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc))
    throw new ClientMetadataError('The client metadata document is not a JSON object.', false);
  const d = doc as Record<string, unknown>;
  // Simple string comparison, as the draft requires: no normalization that could let one URL stand for another.
  if (d.client_id !== clientId) {
    throw new ClientMetadataError(
      `The client metadata document names client_id ${JSON.stringify(d.client_id)}, not the URL it was fetched from.`,
      false,
    );
  }
  // The fields MCP requires of a document: client_id (above), client_name and redirect_uris.
  if (typeof d.client_name !== 'string' || !d.client_name.trim())
    throw new ClientMetadataError('The client metadata document has no client_name.', false);
  const uris = d.redirect_uris;
  if (!Array.isArray(uris) || uris.length === 0)
    throw new ClientMetadataError('The client metadata document lists no redirect_uris.', false);
  if (uris.length > MAX_REDIRECT_URIS)
    throw new ClientMetadataError(
      `The client metadata document lists more than ${MAX_REDIRECT_URIS} redirect_uris.`,
      false,
    );
  const applicationType = (d.application_type ?? undefined) as ApplicationType | undefined;
  if (applicationType !== undefined && !APPLICATION_TYPES.includes(applicationType)) {
    throw new ClientMetadataError(
      'The client metadata document gives an application_type other than "native" or "web".',
      false,
    );
  }
  for (const uri of uris) {
    const problem = redirectUriProblem(uri, applicationType);
    if (problem)
      throw new ClientMetadataError(`The client metadata document has a bad redirect URI: ${problem}.`, false);
  }
  const method = d.token_endpoint_auth_method;
  if (typeof method === 'string' && method.startsWith('client_secret')) {
    throw new ClientMetadataError(
      `A client metadata document cannot use ${method}: there is no secret to share.`,
      false,
    );
  }
  // As for a registration (register.ts): invisible characters that could disguise the name are dropped.
  const shown = withoutInvisible(d.client_name).trim();
  const name = shown ? shown.slice(0, 200) : new URL(clientId).host;
  return { name, redirectUris: uris as string[] };
}

/** Fetches the document behind `clientId`; throws ClientMetadataError. */
async function fetchClientMetadata(
  clientId: string,
  options: ClientMetadataOptions,
): Promise<{ document: unknown; maxAgeMs: number | null }> {
  if (!isMetadataDocumentClientId(clientId))
    throw new ClientMetadataError(`${clientId} is not an https URL with a path.`, false);
  const url = new URL(clientId);
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    const addresses = await untilAborted(
      resolveHost(url, options.allowPrivate, options.lookup ?? systemLookup),
      signal,
    );
    const response = await send(url, addresses, options.fetch ?? fetch, signal);
    if (response.status >= 300 && response.status < 400) {
      await response.body?.cancel().catch(() => {});
      throw new ClientMetadataError(
        `${clientId} answered a redirect (${response.status}); a client metadata document is never fetched through redirects.`,
        false,
      );
    }
    if (response.status !== 200) {
      await response.body?.cancel().catch(() => {});
      const transient = response.status >= 500 || response.status === 429 || response.status === 408;
      throw new ClientMetadataError(`${clientId} answered ${response.status}.`, transient);
    }
    const bytes = await readCapped(response, clientId, options.maxBytes ?? DEFAULT_MAX_BYTES, signal);
    let document: unknown;
    try {
      document = JSON.parse(new TextDecoder().decode(bytes));
    } catch {
      throw new ClientMetadataError(`${clientId} did not answer JSON.`, false);
    }
    return { document, maxAgeMs: maxAge(response.headers.get('cache-control')) };
  } catch (err) {
    if (err instanceof ClientMetadataError) throw err;
    if (signal.aborted)
      throw new ClientMetadataError(`Fetching ${clientId} took longer than ${timeoutMs / 1000} s.`, true);
    if (err instanceof FetchError) throw new ClientMetadataError(err.message, !err.permanent);
    throw new ClientMetadataError(
      `Could not fetch ${clientId}: ${err instanceof Error ? err.message : String(err)}.`,
      true,
    );
  }
}

/**
 * One GET to a checked address, never to the name again (DNS rebinding cannot swap it): the name
 * travels in the Host header and, for https, as the TLS server name the certificate is checked
 * against. The same pinning as the URL reader's, for one small JSON document.
 */
async function send(
  url: URL,
  addresses: ResolvedAddress[],
  transport: Transport,
  signal: AbortSignal,
): Promise<Response> {
  let lastError: unknown = new Error('no address to connect to');
  for (const { address, family } of addresses) {
    const target = new URL(url);
    const pinned = family === 6 ? `[${address}]` : address;
    target.hostname = pinned;
    if (target.hostname !== pinned) continue;
    try {
      return await transport(target.href, {
        method: 'GET',
        redirect: 'manual',
        signal,
        keepalive: false,
        headers: {
          host: url.host,
          accept: 'application/json',
          'user-agent': 'Engram/0.1 (+local memory server; OAuth client metadata)',
        },
        protocol: 'http1.1',
        tls: { serverName: url.hostname.replace(/\.$/, '') },
      });
    } catch (err) {
      if (signal.aborted) throw err;
      lastError = err;
    }
  }
  throw lastError;
}

function maxAge(cacheControl: string | null): number | null {
  const match = cacheControl?.match(/(?:^|,)\s*max-age\s*=\s*"?(\d+)"?/i);
  return match ? Number(match[1]) * 1000 : null;
}

/**
 * The app behind a metadata-document client_id: fresh from the cache, else fetched, checked and
 * cached (its lifetime from Cache-Control, within bounds); when a fetch fails for a reason that
 * may pass, a copy fetched within the last week stands in. Concurrent resolutions share one fetch.
 */
export class ClientMetadataResolver {
  private readonly inFlight = new Map<string, Promise<OAuthClient>>();

  constructor(
    private readonly store: Repositories,
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly options: ClientMetadataOptions,
  ) {}

  async resolve(clientId: string): Promise<OAuthClient> {
    const cached = await this.store.oauth.getClient(clientId);
    const now = this.clock.now();
    if (cached?.kind === 'metadata_document' && (cached.freshUntil ?? 0) > now) return cached;
    let pending = this.inFlight.get(clientId);
    if (!pending) {
      pending = this.refresh(clientId, cached?.kind === 'metadata_document' ? cached : null).finally(() =>
        this.inFlight.delete(clientId),
      );
      this.inFlight.set(clientId, pending);
    }
    return pending;
  }

  private async refresh(clientId: string, cached: OAuthClient | null): Promise<OAuthClient> {
    try {
      const { document, maxAgeMs } = await fetchClientMetadata(clientId, this.options);
      const { name, redirectUris } = validateClientMetadata(document, clientId);
      const now = this.clock.now();
      const fresh = Math.min(MAX_FRESH_MS, Math.max(MIN_FRESH_MS, maxAgeMs ?? DEFAULT_FRESH_MS));
      const client: OAuthClient = {
        clientId,
        kind: 'metadata_document',
        name,
        redirectUris,
        metadata: document as Record<string, unknown>,
        createdAt: cached?.createdAt ?? now,
        lastUsedAt: cached?.lastUsedAt ?? null,
        expiresAt: null,
        fetchedAt: now,
        freshUntil: now + fresh,
      };
      await this.store.oauth.upsertClient(client);
      return client;
    } catch (err) {
      const usable =
        cached &&
        err instanceof ClientMetadataError &&
        err.transient &&
        this.clock.now() - (cached.fetchedAt ?? 0) < STALE_MAX_MS;
      if (usable) {
        this.log.warn('client metadata document unavailable; using the cached copy', {
          client_id: clientId,
          error: err.message,
        });
        return cached;
      }
      throw err;
    }
  }
}
