/**
 * The SDK server that answers one request (on /mcp-http) or one connection (the stdio bridge), in
 * whichever era the request speaks: the 2025 handshake revisions or 2026-07-28. Its tools, resources
 * and prompts are the caller's (tools.ts, resources.ts, prompts.ts); the SDK adds what each era asks
 * of the wire (`initialize` and its version negotiation, `server/discover`, `resultType`, the
 * caching fields, `serverInfo` in `_meta`).
 */
import {
  type CacheHint,
  type CallToolResult,
  type GetPromptResult,
  type ListPromptsResult,
  type ListResourcesResult,
  type ListResourceTemplatesResult,
  type ListToolsResult,
  type ReadResourceResult,
  Server,
} from '@modelcontextprotocol/server';
import pkg from '../../package.json' with { type: 'json' };
import type { Context } from '../operations/operation';
import { getPrompt, listPrompts } from './prompts';
import { listResources, listResourceTemplates, readResource } from './resources';
import { callTool, instructionsFor, listTools, type ToolCallParams } from './tools';

/**
 * How long a 2026-07-28 client may keep a list or server/discover answer: a minute, so a level the
 * owner raised shows within one. Private: each depends on the credential. A shortened list never
 * widens anything; the server checks every call. A resource read is not cached (the default): a
 * container's documents change as they are added.
 */
const CACHE_HINT: CacheHint = { ttlMs: 60_000, cacheScope: 'private' };
const CACHED = ['tools/list', 'resources/list', 'resources/templates/list', 'prompts/list', 'server/discover'] as const;

type Page<R, K extends keyof R> = Promise<Pick<R, K> & { nextCursor?: string }> | Pick<R, K>;
type Cursor = { cursor?: string } | undefined;

/** What answers each request the server serves: the caller's own (mcpServerFor), or the server's through the bridge. */
export interface Handlers {
  listTools(params: Cursor): Page<ListToolsResult, 'tools'>;
  callTool(params: ToolCallParams): Promise<CallToolResult>;
  listResources(params: Cursor): Page<ListResourcesResult, 'resources'>;
  listResourceTemplates(params: Cursor): Page<ListResourceTemplatesResult, 'resourceTemplates'>;
  readResource(params: { uri: string }): Promise<Pick<ReadResourceResult, 'contents'>>;
  listPrompts(params: Cursor): Page<ListPromptsResult, 'prompts'>;
  getPrompt(params: { name: string; arguments?: Record<string, string> }): Promise<GetPromptResult>;
}

/** An Engram MCP server offering tools, resources and prompts, with these instructions, answering with `handlers`. */
export function engramServer(instructions: string, handlers: Handlers): Server {
  const server = new Server(
    { name: 'engram', version: pkg.version },
    {
      capabilities: { tools: {}, resources: {}, prompts: {} },
      instructions,
      cacheHints: Object.fromEntries(CACHED.map((method) => [method, CACHE_HINT])),
    },
  );
  server.setRequestHandler('tools/list', (request) => handlers.listTools(request.params));
  server.setRequestHandler('tools/call', (request) => handlers.callTool(request.params as ToolCallParams));
  server.setRequestHandler('resources/list', (request) => handlers.listResources(request.params));
  server.setRequestHandler('resources/templates/list', (request) => handlers.listResourceTemplates(request.params));
  server.setRequestHandler('resources/read', (request) => handlers.readResource(request.params));
  server.setRequestHandler('prompts/list', (request) => handlers.listPrompts(request.params));
  server.setRequestHandler('prompts/get', (request) => handlers.getPrompt(request.params));
  return server;
}

/** The server for one request on /mcp-http: the caller's tools, resources, prompts and instructions. */
export function mcpServerFor(ctx: Context): Server {
  return engramServer(instructionsFor(ctx), {
    listTools: () => ({ tools: listTools(ctx) }),
    callTool: (params) => callTool(ctx, params),
    listResources: async () => ({ resources: await listResources(ctx) }),
    listResourceTemplates: () => ({ resourceTemplates: listResourceTemplates(ctx) }),
    readResource: (params) => readResource(ctx, params.uri),
    listPrompts: () => ({ prompts: listPrompts(ctx) }),
    getPrompt: (params) => getPrompt(ctx, params.name, params.arguments),
  });
}
