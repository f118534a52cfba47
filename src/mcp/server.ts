/**
 * The SDK server that answers one request (on /mcp-http) or one connection (the stdio bridge), in
 * whichever era the request speaks: the 2025 handshake revisions or 2026-07-28. Its tools are the
 * table's (tools.ts); the SDK adds what each era asks of the wire (`initialize` and its version
 * negotiation, `server/discover`, `resultType`, the caching fields, `serverInfo` in `_meta`).
 */
import { type CacheHint, type CallToolResult, type ListToolsResult, Server } from '@modelcontextprotocol/server';
import pkg from '../../package.json' with { type: 'json' };
import type { Context } from '../operations/operation';
import { callTool, instructionsFor, listTools, type ToolCallParams } from './tools';

/**
 * How long a 2026-07-28 client may keep a tools/list or server/discover answer: a minute, so a
 * level the owner raised shows within one. Private: both depend on the credential. A shortened
 * list never widens anything; the server checks every call.
 */
const CACHE_HINT: CacheHint = { ttlMs: 60_000, cacheScope: 'private' };

export interface ToolHandlers {
  list(
    params: { cursor?: string } | undefined,
  ): Promise<Pick<ListToolsResult, 'tools' | 'nextCursor'>> | Pick<ListToolsResult, 'tools'>;
  call(params: ToolCallParams): Promise<CallToolResult>;
}

/**
 * An Engram MCP server offering tools only, with these instructions, answering tools/list and
 * tools/call with `handlers`.
 */
export function engramServer(instructions: string, handlers: ToolHandlers): Server {
  const server = new Server(
    { name: 'engram', version: pkg.version },
    {
      capabilities: { tools: {} },
      instructions,
      cacheHints: { 'tools/list': CACHE_HINT, 'server/discover': CACHE_HINT },
    },
  );
  server.setRequestHandler('tools/list', (request) => handlers.list(request.params));
  server.setRequestHandler('tools/call', (request) => handlers.call(request.params as ToolCallParams));
  return server;
}

/** The server for one request on /mcp-http: the caller's tools and instructions. */
export function mcpServerFor(ctx: Context): Server {
  return engramServer(instructionsFor(ctx), {
    list: () => ({ tools: listTools(ctx) }),
    call: (params) => callTool(ctx, params),
  });
}
