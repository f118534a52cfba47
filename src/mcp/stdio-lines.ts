/**
 * The stdio transport of `engram mcp`: one JSON-RPC message a line on standard input, one a line
 * on standard output, as the MCP stdio binding says. Unlike the SDK's own transport, which stops
 * reading at a line over its buffer, a line that is too long, not JSON, or not JSON-RPC is answered
 * with a JSON-RPC error, said once on standard error, and the next line is read as usual.
 */
import {
  type JSONRPCMessage,
  parseJSONRPCMessage,
  serializeMessage,
  type Transport,
} from '@modelcontextprotocol/server';

type RpcId = string | number | null;

export interface StdioLinesOptions {
  /** The longest line read, in bytes; a longer one is refused without being held in memory. */
  maxLineBytes: number;
  /**
   * Answers a message itself instead of delivering it (a malformed request the SDK would answer
   * badly), or undefined.
   */
  screen?: (message: JSONRPCMessage) => JSONRPCMessage | undefined;
  /** Where a refused line is told to the person. */
  say(line: string): void;
  stdin?: NodeJS.ReadableStream;
  stdout?: NodeJS.WritableStream;
}

/** How much of a refused line's start and end is kept to find its id. */
const EDGE_BYTES = 1024;

export class StdioLines implements Transport {
  onmessage?: Transport['onmessage'];
  onclose?: () => void;
  onerror?: (error: Error) => void;
  /** Settles once the transport is closed: standard input ended, or close() was called. */
  readonly closed: Promise<void>;

  private readonly stdin: NodeJS.ReadableStream;
  private readonly stdout: NodeJS.WritableStream;
  private parts: Buffer[] = [];
  private size = 0;
  /** Set while the rest of a line over the limit is being skipped: its first and latest bytes. */
  private refused: { head: Buffer; tail: Buffer } | null = null;
  private ended = false;
  private markClosed!: () => void;

  constructor(private readonly options: StdioLinesOptions) {
    this.stdin = options.stdin ?? process.stdin;
    this.stdout = options.stdout ?? process.stdout;
    this.closed = new Promise((resolve) => {
      this.markClosed = resolve;
    });
  }

  async start(): Promise<void> {
    this.stdin.on('data', this.onData);
    this.stdin.on('end', this.onEnd);
    this.stdin.on('close', this.onEnd);
    this.stdin.on('error', this.onStreamError);
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.ended) return;
    if (this.stdout.write(serializeMessage(message))) return;
    await new Promise<void>((resolve) => this.stdout.once('drain', resolve));
  }

  async close(): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    this.stdin.off('data', this.onData);
    this.stdin.off('end', this.onEnd);
    this.stdin.off('close', this.onEnd);
    this.stdin.off('error', this.onStreamError);
    this.stdin.pause();
    this.parts = [];
    this.onclose?.();
    this.markClosed();
  }

  private readonly onEnd = () => void this.close();
  private readonly onStreamError = (err: Error) => this.onerror?.(err);

  private readonly onData = (data: Buffer | string) => {
    let chunk = typeof data === 'string' ? Buffer.from(data) : data;
    for (let newline = chunk.indexOf(10); newline >= 0; newline = chunk.indexOf(10)) {
      this.append(chunk.subarray(0, newline));
      this.endLine();
      chunk = chunk.subarray(newline + 1);
    }
    this.append(chunk);
  };

  /** Adds bytes to the current line; past the limit, keeps only its first and latest bytes. */
  private append(part: Buffer): void {
    if (part.length === 0) return;
    if (this.refused) {
      this.refused.tail = Buffer.concat([this.refused.tail, part]).subarray(-EDGE_BYTES);
      return;
    }
    if (this.size + part.length <= this.options.maxLineBytes) {
      this.parts.push(part);
      this.size += part.length;
      return;
    }
    const held = Buffer.concat([...this.parts, part]);
    this.refused = { head: held.subarray(0, EDGE_BYTES), tail: held.subarray(-EDGE_BYTES) };
    this.parts = [];
    this.size = 0;
  }

  private endLine(): void {
    if (this.refused) {
      const { head, tail } = this.refused;
      this.refused = null;
      const limit = this.options.maxLineBytes;
      this.refuse(
        idAtEdges(head.toString('utf8'), tail.toString('utf8')),
        -32600,
        `The message is larger than ${limit} bytes, the most engram mcp reads on one line; it was not read.`,
        { limit_bytes: limit },
      );
      return;
    }
    const line = Buffer.concat(this.parts).toString('utf8').trim();
    this.parts = [];
    this.size = 0;
    if (line) this.read(line);
  }

  private read(line: string): void {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      this.refuse(null, -32700, 'Parse error: the line is not valid JSON.');
      return;
    }
    let message: JSONRPCMessage;
    try {
      message = parseJSONRPCMessage(value);
    } catch {
      const id = (value as { id?: unknown } | null)?.id;
      this.refuse(
        typeof id === 'string' || typeof id === 'number' ? id : null,
        -32600,
        'Invalid request: the line is not a JSON-RPC 2.0 message.',
      );
      return;
    }
    const answer = this.options.screen?.(message);
    if (answer) void this.send(answer);
    else this.onmessage?.(message);
  }

  private refuse(id: RpcId, code: number, message: string, data?: Record<string, unknown>): void {
    this.options.say(message);
    void this.send({ jsonrpc: '2.0', id, error: data ? { code, message, data } : { code, message } } as JSONRPCMessage);
  }
}

const ID = String.raw`(-?\d+|"(?:[^"\\]|\\.)*")`;
/** `{"id": …` or `{"jsonrpc": "2.0", "id": …` at the start of a line: the top-level id. */
const ID_AT_START = new RegExp(String.raw`^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*${ID}`);
/** `…, "id": …}` at the end of a line: the top-level object's last key, so its id. */
const ID_AT_END = new RegExp(String.raw`[{,]\s*"id"\s*:\s*${ID}\s*\}\s*$`);

/**
 * The id of a message too long to parse, read from its first or last bytes where the common
 * serializations put it (first or second key, or last), so the client's waiting request gets its
 * error at once; null when it is not found there.
 */
function idAtEdges(head: string, tail: string): RpcId {
  const found = ID_AT_START.exec(head)?.[1] ?? ID_AT_END.exec(tail)?.[1];
  if (found === undefined) return null;
  return found.startsWith('"') ? (JSON.parse(found) as string) : Number(found);
}
