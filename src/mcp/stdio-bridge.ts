/**
 * `engram mcp`: MCP over standard input and output for desktop clients that only launch commands.
 * It holds no rule and opens no store: every request for tools, resources and prompts is answered
 * by the running server over /mcp-http with the developer key, so the HTTP server stays the only
 * enforcer.
 * Towards the desktop client it speaks both eras (the SDK's serveStdio: a `server/discover` probe
 * is answered, an `initialize` opens the 2025 handshake era); towards the server, whichever era the
 * server speaks (the client probes once, and falls back to the handshake for an older server).
 * Standard output carries protocol only; anything said to the person goes to standard error.
 */
import {
  Client,
  ProtocolError,
  StreamableHTTPClientTransport,
  SdkHttpError,
  UnauthorizedError,
} from '@modelcontextprotocol/client';
import {
  type CallToolResult,
  isJSONRPCRequest,
  type JSONRPCMessage,
  ProtocolErrorCode,
} from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import pkg from '../../package.json' with { type: 'json' };
import { MAX_BODY_BYTES } from '../http/middleware/body-limit';
import { hintOf } from '../ids';
import { MCP_PATH } from '../site';
import { REFUSED } from './rpc-errors';
import { engramServer } from './server';
import { StdioLines } from './stdio-lines';
import { INSTRUCTIONS, type ToolCallParams, toolCallProblem } from './tools';

export interface BridgeOptions {
  url: string;
  key: string;
  /** Where lines for the person go; standard error by default. */
  say?: (line: string) => void;
}

export async function runStdioBridge(options: BridgeOptions): Promise<void> {
  const say = options.say ?? ((line: string) => process.stderr.write(`engram mcp: ${line}\n`));
  const endpoint = new URL(MCP_PATH, options.url);
  const relay = new Relay(endpoint, options.key, say);
  const wire = new StdioLines({ maxLineBytes: MAX_BODY_BYTES, screen: refuseMalformedToolCall, say });
  // The desktop client keeps a list for as long as the bridge's answer says; the bridge keeps
  // nothing itself (every list bypasses its client's cache), so a revoked key is told at its next
  // request. Each answer is passed on without the server's era fields: the bridge's own server adds
  // those of the desktop client's era.
  const page = (params: { cursor?: string } | undefined) =>
    [params?.cursor ? { cursor: params.cursor } : undefined, BYPASS] as const;
  serveStdio(
    () =>
      engramServer(INSTRUCTIONS, {
        listTools: (params) =>
          relay.run((c) => c.listTools(...page(params))).then(({ tools, nextCursor }) => ({ tools, nextCursor })),
        callTool: (params) => relay.run((c) => c.callTool(forwarded(params))).then(asToolResult),
        listResources: (params) =>
          relay
            .run((c) => c.listResources(...page(params)))
            .then(({ resources, nextCursor }) => ({ resources, nextCursor })),
        listResourceTemplates: (params) =>
          relay
            .run((c) => c.listResourceTemplates(...page(params)))
            .then(({ resourceTemplates, nextCursor }) => ({ resourceTemplates, nextCursor })),
        readResource: ({ uri }) =>
          relay.run((c) => c.readResource({ uri }, BYPASS)).then(({ contents }) => ({ contents })),
        listPrompts: (params) =>
          relay.run((c) => c.listPrompts(...page(params))).then(({ prompts, nextCursor }) => ({ prompts, nextCursor })),
        getPrompt: ({ name, arguments: args }) =>
          relay
            .run((c) => c.getPrompt({ name, ...(args ? { arguments: args } : {}) }))
            .then(({ description, messages }) => ({ ...(description !== undefined ? { description } : {}), messages })),
      }),
    { transport: wire, onerror: (err) => say(err.message) },
  );
  say(`serving MCP on stdio for ${endpoint.href} with key ${hintOf(options.key)}`);
  await wire.closed;
  await relay.close();
}

const BYPASS = { cacheMode: 'bypass' } as const;

/**
 * A tools/call whose params the SDK would refuse with a dump of its schema: refused here in words,
 * as /mcp-http does.
 */
function refuseMalformedToolCall(message: JSONRPCMessage): JSONRPCMessage | undefined {
  if (!isJSONRPCRequest(message) || message.method !== 'tools/call') return undefined;
  const problem = toolCallProblem(message.params);
  return problem
    ? {
        jsonrpc: '2.0',
        id: message.id,
        error: { code: ProtocolErrorCode.InvalidParams, message: `Invalid params: ${problem}` },
      }
    : undefined;
}

/**
 * The call as the server should get it: the desktop client's own `_meta` keys (an idempotency key)
 * travel on, the protocol's per-request keys do not, since the bridge's client sets its own.
 */
function forwarded(params: ToolCallParams): ToolCallParams {
  const meta = Object.fromEntries(
    Object.entries(params._meta ?? {}).filter(
      ([key]) => !key.startsWith('io.modelcontextprotocol/') && key !== 'progressToken',
    ),
  );
  return { name: params.name, arguments: params.arguments, ...(Object.keys(meta).length ? { _meta: meta } : {}) };
}

/** A tool result without the server's era fields (`resultType`, `_meta`): the bridge's own server adds its era's. */
function asToolResult(result: Awaited<ReturnType<Client['callTool']>>): CallToolResult {
  const { content, structuredContent, isError } = result as CallToolResult;
  return {
    content,
    ...(structuredContent !== undefined ? { structuredContent } : {}),
    ...(isError ? { isError } : {}),
  };
}

/**
 * The bridge's one client of the server, connected on first use and again after a failure, so the
 * server may start later.
 */
class Relay {
  private client: Client | null = null;

  constructor(
    private readonly endpoint: URL,
    private readonly key: string,
    private readonly say: (line: string) => void,
  ) {}

  /** Runs a call on the server; a failure becomes an MCP error a person can act on, said once on stderr. */
  async run<T>(call: (client: Client) => Promise<T>): Promise<T> {
    try {
      return await call(await this.connected());
    } catch (err) {
      const problem = explain(err, this.endpoint.origin, hintOf(this.key));
      if (problem.reconnect) void this.close();
      this.say(problem.message);
      throw new ProtocolError(problem.code, problem.message, problem.data);
    }
  }

  async close(): Promise<void> {
    const stale = this.client;
    this.client = null;
    await stale?.close().catch(() => {});
  }

  private async connected(): Promise<Client> {
    if (this.client) return this.client;
    const client = new Client(
      { name: 'engram-stdio-bridge', version: pkg.version },
      { versionNegotiation: { mode: 'auto' } },
    );
    const transport = new StreamableHTTPClientTransport(this.endpoint, {
      requestInit: { headers: { Authorization: `Bearer ${this.key}` } },
    });
    await client.connect(transport);
    this.client = client;
    return client;
  }
}

interface Problem {
  message: string;
  code: number;
  data?: unknown;
  /** Whether the connection to the server must be made anew on the next call. */
  reconnect: boolean;
}

/**
 * What went wrong, in words a person can act on; never with the key, only its hint. An error the
 * server answered in JSON-RPC (in a result, or as the body of a 403 or 429) keeps its code, message
 * and data as they were: the desktop client's SDK adds its own prefix once.
 */
function explain(err: unknown, origin: string, hint: string): Problem {
  if (err instanceof ProtocolError) return { message: err.message, code: err.code, data: err.data, reconnect: false };
  const status = err instanceof SdkHttpError ? err.status : err instanceof UnauthorizedError ? 401 : undefined;
  if (status === 401) {
    return {
      message: `The Engram server at ${origin} refused the key ${hint}: it is unknown, expired or revoked. Make a new key with \`engram keys create\`.`,
      code: ProtocolErrorCode.InvalidRequest,
      reconnect: true,
    };
  }
  if (status !== undefined) {
    const refusal = refusalIn((err as SdkHttpError).data);
    if (refusal) return { ...refusal, reconnect: false };
    return {
      message: `The Engram server at ${origin} answered ${status}.`,
      code: ProtocolErrorCode.InternalError,
      reconnect: true,
    };
  }
  return {
    message: `Cannot reach the Engram server at ${origin}: is it running? Start it with \`engram serve\`. (${(err as Error).message ?? err})`,
    code: ProtocolErrorCode.InternalError,
    reconnect: true,
  };
}

/**
 * The JSON-RPC error in an HTTP error answer's body, or the contract's envelope (docs/protocol.md) that a server of an
 * earlier release answered instead (its message, its other fields as data), or null.
 */
function refusalIn(data: unknown): Pick<Problem, 'message' | 'code' | 'data'> | null {
  const text = (data as { text?: unknown } | undefined)?.text;
  if (typeof text !== 'string') return null;
  let body: { error?: { code?: unknown; message?: unknown; data?: unknown }; message?: unknown };
  try {
    body = JSON.parse(text);
  } catch {
    return null;
  }
  const { error } = body ?? {};
  if (typeof error?.code === 'number' && typeof error.message === 'string')
    return { code: error.code, message: error.message, data: error.data };
  if (typeof body?.message !== 'string') return null;
  const { message, ...rest } = body as Record<string, unknown>;
  return { code: REFUSED, message: message as string, data: rest };
}
