/**
 * `engram mcp`: MCP over standard input and output for desktop clients that only launch commands.
 * It holds no rule and opens no store: every tools/list and tools/call is answered by the running
 * server over /mcp-http with the developer key, so the HTTP server stays the only enforcer.
 * Standard output carries protocol only; anything said to the person goes to standard error.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import pkg from '../../package.json' with { type: 'json' };
import { hintOf } from '../ids';
import { MCP_PATH } from '../oauth/metadata';
import { INSTRUCTIONS } from './server';

export interface BridgeOptions {
  url: string;
  key: string;
  /** Where lines for the person go; standard error by default. */
  say?: (line: string) => void;
}

export async function runStdioBridge(options: BridgeOptions): Promise<void> {
  const say = options.say ?? ((line: string) => process.stderr.write(`engram mcp: ${line}\n`));
  const endpoint = new URL(MCP_PATH, options.url);
  const link: { remote: Client | null } = { remote: null };

  /** Connects to the server on first use and again after a failure, so the server may start later. */
  const connected = async (): Promise<Client> => {
    if (link.remote) return link.remote;
    const client = new Client({ name: 'engram-stdio-bridge', version: pkg.version });
    const transport = new StreamableHTTPClientTransport(endpoint, { requestInit: { headers: { Authorization: `Bearer ${options.key}` } } });
    await client.connect(transport);
    link.remote = client;
    return client;
  };

  /** Runs a call on the server; a failure becomes an MCP error a person can act on, said once on stderr. */
  const relay = async <T>(call: (client: Client) => Promise<T>): Promise<T> => {
    try {
      return await call(await connected());
    } catch (err) {
      const problem = explain(err, endpoint.origin, hintOf(options.key));
      if (problem.reconnect) {
        const stale = link.remote;
        link.remote = null;
        void stale?.close().catch(() => {});
      }
      say(problem.message);
      throw new McpError(problem.code, problem.message);
    }
  };

  const server = new Server({ name: 'engram', version: pkg.version }, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });
  server.setRequestHandler(ListToolsRequestSchema, (request) => relay((c) => c.listTools(request.params)));
  server.setRequestHandler(CallToolRequestSchema, (request) => relay((c) => c.callTool(request.params)));
  await server.connect(new StdioServerTransport());
  say(`serving MCP on stdio for ${endpoint.href} with key ${hintOf(options.key)}`);
  await new Promise<void>((resolve) => {
    server.onclose = resolve;
  });
  await link.remote?.close();
}

interface Problem {
  message: string;
  code: number;
  /** Whether the connection to the server must be made anew on the next call. */
  reconnect: boolean;
}

/** What went wrong, in words a person can act on; never with the key, only its hint. */
function explain(err: unknown, origin: string, hint: string): Problem {
  if (err instanceof McpError) return { message: err.message, code: err.code, reconnect: false };
  if (err instanceof StreamableHTTPError) {
    if (err.code === 401) {
      return { message: `The Engram server at ${origin} refused the key ${hint}: it is unknown, expired or revoked. Make a new key with \`engram keys create\`.`, code: ErrorCode.InvalidRequest, reconnect: true };
    }
    const envelope = parseEnvelope(err.message);
    if (err.code === 403 && envelope) return { message: envelope.message, code: ErrorCode.InvalidRequest, reconnect: false };
    return { message: `The Engram server at ${origin} answered ${err.code}${envelope ? `: ${envelope.message}` : ''}.`, code: ErrorCode.InternalError, reconnect: true };
  }
  return {
    message: `Cannot reach the Engram server at ${origin}: is it running? Start it with \`engram serve\`. (${(err as Error).message ?? err})`,
    code: ErrorCode.InternalError,
    reconnect: true,
  };
}

function parseEnvelope(text: string): { message: string } | null {
  const start = text.indexOf('{');
  if (start < 0) return null;
  try {
    const body = JSON.parse(text.slice(start)) as { message?: unknown };
    return typeof body.message === 'string' ? { message: body.message } : null;
  } catch {
    return null;
  }
}
