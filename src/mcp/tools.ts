/**
 * The MCP tool table, the same under every protocol revision: which operations a caller is offered
 * as tools, how each is described, what the instructions say, and how a call runs through `invoke`.
 * Nothing here knows about eras, transports or the SDK's server; server.ts and http.ts do.
 */
import type { CallToolResult, Tool } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { refusalOf, ServiceError } from '../errors';
import { envelope } from '../http/envelope';
import { SHARE_OPERATIONS, TOOLS } from '../operations';
import { idempotent } from '../operations/calls/idempotency';
import { type Context, invoke, isOffered, type Operation } from '../operations/operation';
import { currentName } from './retired-names';
import { INTERNAL } from './rpc-errors';

/**
 * The contract's tools (docs/protocol.md) that MCP serves: all but get_document, which is REST only, and the two
 * held by shares alone (ask_agent, workflow_invoke; `holdsTool` keeps them from anyone else).
 */
const MCP_TOOLS: readonly Operation[] = [...TOOLS.filter((op) => op.name !== 'get_document'), ...SHARE_OPERATIONS];

/** What the instructions say of each tool, in the order said: only the tools a caller holds are named. */
const GUIDANCE: readonly (readonly [tool: string, sentence: string])[] = [
  ['memory_rules', 'Call memory_rules first and follow the rules.'],
  ['search_memories', 'Use search_memories to find passages (retrieval, not an answer).'],
  ['list_containers', 'list_containers shows the topics you may use.'],
];

/**
 * The server's instructions for a caller, naming only tools it holds: a consent token holds no
 * memory_rules, and a share holds one tool, so each is told only of what it can call.
 */
export function instructionsFor(ctx: Context): string {
  const held = new Set(toolsFor(ctx).map((op) => op.name));
  if (held.has('ask_agent'))
    return "Engram answers questions from a person's shared memory: call ask_agent with a message; the reply cites its passages.";
  if (held.has('workflow_invoke') && ctx.caller.kind === 'share') {
    return `Engram runs the workflow "${ctx.caller.share.name}": call workflow_invoke with an input object.`;
  }
  return memoryInstructions(held);
}

function memoryInstructions(held: ReadonlySet<string>): string {
  return [
    "Engram holds the person's memory.",
    ...GUIDANCE.filter(([tool]) => held.has(tool)).map(([, sentence]) => sentence),
  ].join(' ');
}

/**
 * What a developer key is told (it holds every tool GUIDANCE names); the stdio bridge says it
 * before reaching the server.
 */
export const INSTRUCTIONS = memoryInstructions(new Set(GUIDANCE.map(([tool]) => tool)));

/** The tools/list of a caller: exactly the tools it holds, in the table's order. */
export function listTools(ctx: Context): Tool[] {
  return toolsFor(ctx).map(describe);
}

function toolsFor(ctx: Context): Operation[] {
  return MCP_TOOLS.filter((op) => isOffered(op, ctx.caller));
}

/** The MCP tool an incoming name stands for (retired names included), or undefined. */
export function findTool(name: string, args: Record<string, unknown>): Operation | undefined {
  const current = currentName(name, args);
  return MCP_TOOLS.find((op) => op.name === current);
}

function describe(op: Operation): Tool {
  const { $schema: _, ...inputSchema } = withoutNull(z.toJSONSchema(op.input, { io: 'input' })) as Record<
    string,
    unknown
  >;
  return {
    name: op.name,
    description: op.description,
    inputSchema: inputSchema as Tool['inputSchema'],
    annotations: { readOnlyHint: op.access === 'read', destructiveHint: op.access === 'manage', openWorldHint: false },
  };
}

/**
 * Drops `null` from the types a tool's schema allows: several model providers refuse type lists
 * and null branches in function schemas. A field that may be null may also be left out, and
 * the operation still accepts null from a client that sends it.
 */
function withoutNull(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withoutNull);
  if (typeof schema !== 'object' || schema === null) return schema;
  const { anyOf, type, ...rest } = schema as Record<string, unknown>;
  const out: Record<string, unknown> = Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, withoutNull(v)]));
  if (Array.isArray(type)) {
    const types = type.filter((t) => t !== 'null');
    out.type = types.length === 1 ? types[0] : types;
  } else if (type !== undefined) {
    out.type = type;
  }
  if (Array.isArray(anyOf)) {
    const branches = anyOf.filter((b) => (b as { type?: unknown }).type !== 'null').map(withoutNull);
    if (branches.length === 1) Object.assign(out, branches[0] as object);
    else out.anyOf = branches;
  }
  return out;
}

/** The params of a tools/call once `toolCallProblem` found nothing wrong with them. */
export interface ToolCallParams {
  name: string;
  arguments?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
}

/**
 * What is wrong with a tools/call's params, in words a person can act on, or null when they have
 * the shape the protocol gives them. The doors answer a problem with -32602 (invalid params)
 * before the SDK reads the request, whose own answer would be a dump of its schema's issues.
 */
export function toolCallProblem(params: unknown): string | null {
  if (!isObject(params)) return `tools/call needs params as an object; got ${kindOf(params)}.`;
  if (typeof params.name !== 'string')
    return `tools/call needs params.name, the tool's name, as a string; got ${kindOf(params.name)}.`;
  if (params.arguments !== undefined && !isObject(params.arguments)) {
    return `params.arguments must be an object holding the tool's arguments by name; got ${kindOf(params.arguments)}.`;
  }
  if (params._meta !== undefined && !isObject(params._meta))
    return `params._meta must be an object; got ${kindOf(params._meta)}.`;
  return null;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function kindOf(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/**
 * Runs a tools/call for a caller. An answer is the operation's JSON as text and as
 * `structuredContent`; a refusal, a broken rule or an unknown tool is a tool error with the
 * contract's envelope (docs/protocol.md, "Errors"), which a model can read and correct. The idempotency key of a write comes
 * from `_meta.idempotency_key`, in both eras.
 */
export async function callTool(ctx: Context, params: ToolCallParams): Promise<CallToolResult> {
  const args = params.arguments ?? {};
  const op = findTool(params.name, args);
  if (!op) return errorResult(new ServiceError('not_found', `No tool named ${params.name}.`), ctx.traceId);
  try {
    const once = idempotent(op, params._meta?.idempotency_key, '_meta.idempotency_key');
    const result = (await invoke(once.op, ctx, args)) as Record<string, unknown>;
    return { content: [{ type: 'text', text: JSON.stringify(result) }], structuredContent: result };
  } catch (err) {
    const refusal = refusalOf(err);
    if (refusal) return errorResult(refusal, ctx.traceId);
    ctx.log.error('tool failed', {
      trace_id: ctx.traceId,
      tool: op.name,
      error: String(err),
      stack: (err as Error).stack,
    });
    return errorResult(INTERNAL, ctx.traceId);
  }
}

/** A tool error a model can read and correct: `isError` with the error envelope. */
function errorResult(err: ServiceError, traceId: string): CallToolResult {
  const body = envelope(err, traceId);
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(body) }], structuredContent: body };
}
