/**
 * The MCP clients users run, in each era they can speak, behind one small interface: the TypeScript
 * SDK v2 (`@modelcontextprotocol/client` 2.4) pinned to 2026-07-28, probing (auto) and in legacy
 * mode, and the v1 SDK (`@modelcontextprotocol/sdk` 1.32), which knows only the handshake era. Each
 * reaches Engram over /mcp-http or through `engram mcp` started from `/`, as desktop clients start it.
 */
import { expect } from 'bun:test';
import { join } from 'node:path';
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client';
import { StdioClientTransport as StdioV2 } from '@modelcontextprotocol/client/stdio';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as StdioV1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const ROOT = join(import.meta.dir, '../../..');

export type Flavour = 'client 2.4 pinned 2026-07-28' | 'client 2.4 auto' | 'client 2.4 legacy' | 'sdk 1.32';
export const FLAVOURS: readonly Flavour[] = [
  'client 2.4 pinned 2026-07-28',
  'client 2.4 auto',
  'client 2.4 legacy',
  'sdk 1.32',
];
/** The era each flavour lands in against this server. */
export const ERA_OF: Record<Flavour, 'modern' | 'legacy'> = {
  'client 2.4 pinned 2026-07-28': 'modern',
  'client 2.4 auto': 'modern',
  'client 2.4 legacy': 'legacy',
  'sdk 1.32': 'legacy',
};

export type Door = 'http' | 'stdio';

export interface ToolAnswer {
  isError?: boolean;
  content: { type: string; text?: string }[];
  structuredContent?: any;
}

export interface EraClient {
  /** The era the connection landed in. */
  era: 'modern' | 'legacy';
  /** The protocol version in use, where the SDK tells it. */
  version: string | undefined;
  instructions: string | undefined;
  tools(): Promise<string[]>;
  call(name: string, args: Record<string, unknown>): Promise<ToolAnswer>;
  resources(): Promise<{ uri: string; name: string; mimeType?: string }[]>;
  templates(): Promise<{ uriTemplate: string; name: string }[]>;
  /** A resource's contents, parsed from the JSON of its one text item. */
  read(uri: string): Promise<any>;
  prompts(): Promise<{ name: string; arguments?: { name: string; required?: boolean }[] }[]>;
  /** A prompt's one message, as text. */
  prompt(name: string, args?: Record<string, string>): Promise<string>;
  close(): Promise<void>;
}

interface CommonClient {
  listResources(params?: undefined, options?: object): Promise<{ resources: any[] }>;
  listResourceTemplates(params?: undefined, options?: object): Promise<{ resourceTemplates: any[] }>;
  readResource(params: { uri: string }, options?: object): Promise<{ contents: any[] }>;
  listPrompts(params?: undefined, options?: object): Promise<{ prompts: any[] }>;
  getPrompt(params: { name: string; arguments?: Record<string, string> }): Promise<{ messages: any[] }>;
}

/** Resources and prompts, the same calls on both SDKs' clients (`options` bypasses v2's cache). */
function resourcesAndPrompts(client: CommonClient, options?: object) {
  return {
    resources: async () => (await client.listResources(undefined, options)).resources,
    templates: async () => (await client.listResourceTemplates(undefined, options)).resourceTemplates,
    read: async (uri: string) => {
      const { contents } = await client.readResource({ uri }, options);
      expect(contents).toHaveLength(1);
      expect(contents[0]).toMatchObject({ uri, mimeType: 'application/json' });
      return JSON.parse(contents[0].text);
    },
    prompts: async () => (await client.listPrompts(undefined, options)).prompts,
    prompt: async (name: string, args?: Record<string, string>) => {
      const { messages } = await client.getPrompt({ name, ...(args ? { arguments: args } : {}) });
      expect(messages).toHaveLength(1);
      expect(messages[0]).toMatchObject({ role: 'user', content: { type: 'text' } });
      return messages[0].content.text as string;
    },
  };
}

/** The bridge as a desktop client starts it: `bun src/main.ts mcp`, from `/`, with the credential. */
function bridgeCommand(url: string, token: string) {
  return {
    command: process.execPath,
    args: [join(ROOT, 'src/main.ts'), 'mcp', '--url', url, '--key', token],
    cwd: '/',
    env: { PATH: process.env.PATH ?? '' },
  };
}

/**
 * Connects a client of this flavour to the server's /mcp-http (or `path`, one of its other spellings)
 * or through the bridge, with `token` as its bearer.
 */
export async function connectEraClient(
  flavour: Flavour,
  door: Door,
  url: string,
  token: string,
  path = '/mcp-http',
): Promise<EraClient> {
  if (flavour === 'sdk 1.32') {
    const client = new ClientV1({ name: 'engram-e2e-v1', version: '1.0.0' });
    const transport =
      door === 'http'
        ? new HttpV1(new URL(`${url}${path}`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } })
        : new StdioV1({ ...bridgeCommand(url, token), stderr: 'ignore' });
    await client.connect(transport);
    return {
      era: 'legacy',
      version: door === 'http' ? (transport as HttpV1).protocolVersion : undefined,
      instructions: client.getInstructions(),
      tools: async () => (await client.listTools()).tools.map((t) => t.name),
      call: async (name, args) => (await client.callTool({ name, arguments: args })) as ToolAnswer,
      ...resourcesAndPrompts(client as unknown as CommonClient),
      close: () => client.close(),
    };
  }
  const mode =
    flavour === 'client 2.4 pinned 2026-07-28'
      ? { pin: '2026-07-28' }
      : flavour === 'client 2.4 auto'
        ? 'auto'
        : 'legacy';
  const client = new ClientV2({ name: 'engram-e2e-v2', version: '1.0.0' }, { versionNegotiation: { mode } as never });
  const transport =
    door === 'http'
      ? new HttpV2(new URL(`${url}${path}`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } })
      : new StdioV2({ ...bridgeCommand(url, token), stderr: 'ignore' });
  await client.connect(transport);
  return {
    era: client.getProtocolEra()!,
    version: client.getNegotiatedProtocolVersion(),
    instructions: client.getInstructions(),
    tools: async () => (await client.listTools(undefined, { cacheMode: 'bypass' })).tools.map((t) => t.name),
    call: async (name, args) => (await client.callTool({ name, arguments: args })) as ToolAnswer,
    ...resourcesAndPrompts(client as unknown as CommonClient, { cacheMode: 'bypass' }),
    close: () => client.close(),
  };
}

/**
 * What the caller of a refused call can read, whichever way the client surfaced it: over HTTP the
 * SDKs raise on the 403 with its JSON-RPC body in the error (v1 in the message, v2 in `data.text`);
 * through the bridge the error is the server's JSON-RPC error, its message and its data.
 */
export function refusalText(err: unknown): string {
  const data = (err as { data?: unknown }).data;
  if (typeof (data as { text?: unknown } | undefined)?.text === 'string') return (data as { text: string }).text;
  return `${(err as Error).message}${data === undefined ? '' : ` ${JSON.stringify(data)}`}`;
}
