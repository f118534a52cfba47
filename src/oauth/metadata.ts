/** Protected-resource metadata (RFC 9728) for /mcp-http, naming this server as its authorization server. */
import type { Site } from '../site';

export const MCP_PATH = '/mcp-http';
export const RESOURCE_METADATA_PATH = `/.well-known/oauth-protected-resource${MCP_PATH}`;

export function protectedResourceMetadata(site: Site, resource: string) {
  return {
    resource,
    authorization_servers: [site.baseUrl],
    bearer_methods_supported: ['header'],
    resource_name: 'Engram memory',
    scopes_supported: ['memory.read'],
  };
}
