/**
 * One TypeScript client cell of bench/mcp-clients.sh, as mcp-client-cell.py does for Python: connect
 * with a Read & write key, list tools, resources and prompts; the owner lowers the key to Read;
 * call add_memory; print one JSON line of what the caller saw.
 *
 *   bun bench/lib/mcp-client-cell.ts v2|v1 http|stdio|remote
 *   (environment: ENGRAM_URL KEY OWNER ROOT FOOD; `remote` starts mcp-remote 0.15.1 with npx)
 */
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client';
import { StdioClientTransport as StdioV2 } from '@modelcontextprotocol/client/stdio';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as StdioV1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const [flavour, door] = process.argv.slice(2) as ['v2' | 'v1', 'http' | 'stdio' | 'remote'];
const env = (name: string) => process.env[name] ?? '';
const [url, key] = [env('ENGRAM_URL'), env('KEY')];
const endpoint = new URL(`${url}/mcp-http`);
const headers = { Authorization: `Bearer ${key}` };
// mcp-remote as docs/mcp.md configures it (the header from the environment, no space in the
// argument), run by npx (with this environment: npm needs its registry settings) on the
// repository's Node 22, first on the PATH; else the bridge.
const path = process.env.PATH ?? '';
const command: { command: string; args: string[]; cwd?: string; env: Record<string, string> } =
  door === 'remote'
    ? {
        command: 'npx',
        // biome-ignore lint/suspicious/noTemplateCurlyInString: mcp-remote expands ${ENGRAM_AUTH} itself.
        args: ['-y', 'mcp-remote@0.15.1', endpoint.href, '--header', 'Authorization:${ENGRAM_AUTH}'],
        env: {
          ...(process.env as Record<string, string>),
          ENGRAM_AUTH: `Bearer ${key}`,
          PATH: `${env('ROOT')}/node_modules/.bin:${path}`,
        },
      }
    : {
        command: process.execPath,
        args: [`${env('ROOT')}/src/main.ts`, 'mcp', '--url', url, '--key', key],
        cwd: '/',
        env: { PATH: path },
      };

async function lowerKey(): Promise<void> {
  const res = await fetch(`${url}/v1/api-keys/${key.split('_')[1]}`, {
    method: 'PATCH',
    headers: { Authorization: `Bearer ${env('OWNER')}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ level: 'read' }),
  });
  if (res.status !== 200) throw new Error(`lowering the key answered ${res.status}`);
}

const shown = (e: any) =>
  `${e?.constructor?.name}: ${e?.message}${e?.data === undefined ? '' : ` data=${JSON.stringify(e.data)}`}`;
const listed = (call: Promise<any>, field: string) =>
  call.then(
    (r) => r[field].map((item: { uri?: string; name: string }) => item.uri ?? item.name),
    (e) => shown(e).slice(0, 100),
  );

const client: any =
  flavour === 'v1'
    ? new ClientV1({ name: 'cell', version: '1' })
    : new ClientV2({ name: 'cell', version: '1' }, { versionNegotiation: { mode: 'auto' } });
const Http = flavour === 'v1' ? HttpV1 : HttpV2;
const Stdio = flavour === 'v1' ? StdioV1 : StdioV2;
const seen: Record<string, unknown> = { cell: `ts ${flavour} ${door}` };
try {
  await client.connect(
    door === 'http' ? new Http(endpoint, { requestInit: { headers } }) : new Stdio({ ...command, stderr: 'ignore' }),
  );
  seen.resources = await listed(client.listResources(), 'resources');
  seen.prompts = await listed(client.listPrompts(), 'prompts');
  await lowerKey();
  seen.refusal = await client
    .callTool({ name: 'add_memory', arguments: { content: 'Likes jazz.', container: env('FOOD') } })
    .then((r: unknown) => `NOT REFUSED: ${JSON.stringify(r).slice(0, 200)}`, shown);
  seen.after = await client.listTools().then(
    () => 'session goes on',
    (e: unknown) => `session ended: ${shown(e)}`,
  );
} catch (e) {
  seen.failed = shown(e);
}
console.log(JSON.stringify(seen));
await client.close().catch(() => {});
process.exit(0);
