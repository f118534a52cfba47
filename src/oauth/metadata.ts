/**
 * The discovery documents: protected-resource metadata (RFC 9728) and authorization-server metadata
 * (RFC 8414), and the paths and resource identifiers they name. Every URL is built from the
 * configured `{base_url}` (site.baseUrl), never from the request's Host header.
 */
import { MCP_PATH, resourceOf, type Site } from '../site';

export const RESOURCE_METADATA_PATH = `/.well-known/oauth-protected-resource${MCP_PATH}`;
export const ROOT_RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource';
export const AUTHORIZATION_SERVER_METADATA_PATH = '/.well-known/oauth-authorization-server';

export const AUTHORIZE_PATH = '/oauth/authorize';
export const TOKEN_PATH = '/oauth/token';
export const REGISTER_PATH = '/oauth/register';
export const REVOKE_PATH = '/oauth/revoke';

/** The one scope there is: reading the ticked containers (and the profile, when ticked). */
export const SCOPE = 'memory.read';
const SCOPES_SUPPORTED = [SCOPE] as const;

/**
 * The audience a `resource` parameter (RFC 8707) asks for, or null when it names something this
 * server does not serve. Absent means our one resource; the origin form (with or without a final
 * slash, as `URL.href` writes it) and the /mcp-http form name the same audience.
 */
export function audienceFor(site: Site, resource: string | undefined | null): string | null {
  if (resource == null || resource === '') return resourceOf(site);
  const forms = [site.baseUrl, `${site.baseUrl}/`, resourceOf(site)];
  return forms.includes(resource) ? resourceOf(site) : null;
}

export function protectedResourceMetadata(site: Site, resource: string) {
  return {
    resource,
    authorization_servers: [site.baseUrl],
    bearer_methods_supported: ['header'],
    resource_name: 'Engram memory',
    scopes_supported: [...SCOPES_SUPPORTED],
  };
}

export function authorizationServerMetadata(site: Site) {
  const base = site.baseUrl;
  return {
    issuer: base,
    authorization_endpoint: `${base}${AUTHORIZE_PATH}`,
    token_endpoint: `${base}${TOKEN_PATH}`,
    registration_endpoint: `${base}${REGISTER_PATH}`,
    revocation_endpoint: `${base}${REVOKE_PATH}`,
    scopes_supported: [...SCOPES_SUPPORTED],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none'],
    revocation_endpoint_auth_methods_supported: ['none'],
    authorization_response_iss_parameter_supported: true,
    client_id_metadata_document_supported: true,
  };
}
