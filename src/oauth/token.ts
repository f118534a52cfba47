/**
 * The token endpoint (authorization_code only, public clients, PKCE) and token revocation
 * (RFC 7009). Requests are form-encoded as RFC 6749 says; a JSON body is read too, since some
 * clients send one. Answers are never cached.
 */
import type { Context } from 'hono';
import { exchangeCode, GrantError, revokeConsentToken } from '../auth/oauth-codes';
import type { AppEnv } from '../http/app-env';
import type { Services } from '../operations/operation';
import type { Site } from '../site';
import type { OAuthClients } from './clients';
import { oauthError } from './errors';
import { audienceFor } from './metadata';

export interface TokenDeps {
  services: Services;
  site: Site;
  clients: OAuthClients;
  consentTtlDays: number;
}

/** The request's parameters, form-encoded or JSON; only string values count. */
async function paramsOf(c: Context<AppEnv>): Promise<Record<string, string> | null> {
  const type = c.req.header('Content-Type') ?? '';
  const raw = await c.req.text();
  let entries: [string, unknown][];
  if (type.includes('application/json')) {
    try {
      const body = JSON.parse(raw) as unknown;
      if (typeof body !== 'object' || body === null || Array.isArray(body)) return null;
      entries = Object.entries(body);
    } catch {
      return null;
    }
  } else {
    const form = new URLSearchParams(raw);
    // RFC 6749 §3.2: a parameter may not be sent twice.
    if ([...form.keys()].some((k, i, all) => all.indexOf(k) !== i)) return null;
    entries = [...form.entries()];
  }
  return Object.fromEntries(entries.filter((e): e is [string, string] => typeof e[1] === 'string'));
}

/** A Basic header that does not decode: RFC 6749 §5.2 `invalid_client`, never a 500. */
const BAD_BASIC = Symbol('bad Basic credentials');

/**
 * The client_id: in the body, or as the user name of HTTP Basic (a secret, if any, is ignored: none
 * was issued). RFC 6749 §2.3.1 form-encodes the user name before Basic encodes it, so it is
 * decoded as a form value; one that does not decode (`%zz`) makes the credentials bad.
 */
function clientIdOf(c: Context<AppEnv>, params: Record<string, string>): string | null | typeof BAD_BASIC {
  const basic = c.req.header('Authorization')?.match(/^Basic\s+([A-Za-z0-9+/=]+)\s*$/i);
  if (basic) {
    const decoded = Buffer.from(basic[1]!, 'base64').toString('utf8');
    let user: string;
    try {
      user = decodeURIComponent((decoded.split(':')[0] ?? '').replaceAll('+', ' '));
    } catch {
      return BAD_BASIC;
    }
    if (user) return user;
  }
  return params.client_id || null;
}

const badBasic = (c: Context<AppEnv>) =>
  oauthError(
    c,
    401,
    'invalid_client',
    'The client credentials in the Authorization header do not decode: the user name must be form-encoded.',
  );

export function tokenHandlers(deps: TokenDeps) {
  const { services, site } = deps;

  async function token(c: Context<AppEnv>): Promise<Response> {
    const params = await paramsOf(c);
    if (!params)
      return oauthError(c, 400, 'invalid_request', 'The body must be form-encoded parameters, each given once.');
    if (!params.grant_type) return oauthError(c, 400, 'invalid_request', 'grant_type is required.');
    if (params.grant_type !== 'authorization_code') {
      return oauthError(
        c,
        400,
        'unsupported_grant_type',
        'Only authorization_code is supported; there are no refresh tokens.',
      );
    }
    const clientId = clientIdOf(c, params);
    if (clientId === BAD_BASIC) return badBasic(c);
    if (!clientId) return oauthError(c, 401, 'invalid_client', 'client_id is required.');
    const client = await deps.clients.stored(clientId);
    if (!client) return oauthError(c, 401, 'invalid_client', 'The client is not known to this server.');
    if (!params.code) return oauthError(c, 400, 'invalid_request', 'code is required.');
    const resource = params.resource ? audienceFor(site, params.resource) : null;
    if (params.resource && !resource)
      return oauthError(c, 400, 'invalid_target', `resource must be ${site.baseUrl}/mcp-http (or ${site.baseUrl}).`);
    try {
      const issued = await exchangeCode(services.store, services.clock, {
        code: params.code,
        clientId,
        redirectUri: params.redirect_uri ?? null,
        codeVerifier: params.code_verifier ?? null,
        resource,
        clientName: client.name,
        ttlDays: deps.consentTtlDays,
      });
      services.log.info('consent token issued', {
        client_id: clientId,
        token_id: issued.credential.id,
        hint: issued.credential.hint,
      });
      c.header('Cache-Control', 'no-store');
      c.header('Pragma', 'no-cache');
      return c.json({
        access_token: issued.token,
        token_type: 'Bearer',
        expires_in: issued.expiresIn,
        scope: issued.scope,
      });
    } catch (err) {
      if (err instanceof GrantError) {
        services.log.info('token request refused', { client_id: clientId, error: err.error, reason: err.message });
        return oauthError(c, 400, err.error, err.message);
      }
      throw err;
    }
  }

  async function revoke(c: Context<AppEnv>): Promise<Response> {
    const params = await paramsOf(c);
    if (!params?.token) return oauthError(c, 400, 'invalid_request', 'token is required.');
    const clientId = clientIdOf(c, params);
    if (clientId === BAD_BASIC) return badBasic(c);
    await revokeConsentToken(services.store, services.clock, params.token, clientId);
    // RFC 7009 §2.2: 200 whether or not there was anything to revoke.
    c.header('Cache-Control', 'no-store');
    return c.body(null, 200);
  }

  return { token, revoke };
}
