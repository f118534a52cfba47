/**
 * How the OAuth door answers errors: RFC 6749 §5.2 bodies (`error`, `error_description`) for the
 * token, registration and revocation endpoints, never the REST envelope, and never cached.
 */
import type { Context } from 'hono';

export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'unsupported_token_type'
  | 'invalid_target'
  | 'invalid_redirect_uri'
  | 'invalid_client_metadata'
  | 'rate_limited';

/** A JSON error answer; invalid_client carries the Basic challenge RFC 6749 asks for. */
export function oauthError(c: Context, status: 400 | 401 | 429, error: OAuthErrorCode, description: string): Response {
  c.header('Cache-Control', 'no-store');
  c.header('Pragma', 'no-cache');
  if (status === 401) c.header('WWW-Authenticate', 'Basic realm="engram"');
  return c.json({ error, error_description: description }, status);
}
