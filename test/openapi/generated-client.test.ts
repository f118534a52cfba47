/**
 * A typed client can be generated from the served OpenAPI document: openapi-typescript turns it
 * into a .d.ts, a small program calls search through fetch typed only by those generated types,
 * and the TypeScript compiler must accept it (and must refuse a wrong use, so the check has teeth).
 * The program then runs against the server, so the generated types describe what comes back.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { OPENAPI_PATH } from '../../src/http/openapi';
import { addDocument, makeAccount, keyFor } from '../helpers/rest';
import { startTestServer, type TestServer } from '../helpers/server';

const ROOT = resolve(import.meta.dir, '../..');
const OPENAPI_TYPESCRIPT = join(ROOT, 'node_modules/openapi-typescript/bin/cli.js');
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');

/**
 * Runs a JS or TS program with this runtime (both tools are plain JS), in `cwd`. Not spawnSync:
 * the server answering the program runs in this process and must keep serving meanwhile.
 */
async function run(args: string[], cwd: string, env: Record<string, string> = {}) {
  const child = Bun.spawn([process.execPath, ...args], {
    cwd,
    env: { ...process.env, ...env },
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const [out, err, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  return { code, out, err };
}

const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    module: 'ESNext',
    moduleResolution: 'bundler',
    lib: ['ES2022', 'DOM'],
    types: [],
    strict: true,
    noEmit: true,
    noUncheckedIndexedAccess: true,
    skipLibCheck: false,
  },
  include: ['*.ts'],
};

/** A program that calls search with nothing but fetch and the generated `paths`/`components` types. */
const PROGRAM = `import type { components, paths } from './agent-protocol';

type Search = paths['/v1/search']['post'];
type SearchBody = Search['requestBody']['content']['application/json'];
type SearchAnswer = Search['responses'][200]['content']['application/json'];
type ErrorEnvelope = components['schemas']['ErrorEnvelope'];
// The program needs no runtime's own types: fetch comes from the DOM library.
declare const process: { env: Record<string, string | undefined> };

export async function search(baseUrl: string, key: string, body: SearchBody): Promise<SearchAnswer> {
  const res = await fetch(\`\${baseUrl}/v1/search\`, {
    method: 'POST',
    headers: { Authorization: \`Bearer \${key}\`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!res.ok) {
    const error = (await res.json()) as ErrorEnvelope;
    throw new Error(\`\${res.status} \${error.code}: \${error.message} (trace \${error.trace_id})\`);
  }
  return (await res.json()) as SearchAnswer;
}

const found = await search(process.env.BASE_URL ?? '', process.env.API_KEY ?? '', { q: 'breakfast', container: '*', limit: 5 });
const hits: { container: string; content: string; score: number; document: string | null; position: number }[] = found.results.map((hit) => ({
  container: hit.container_name, content: hit.content, score: hit.score, document: hit.document_id, position: hit.position,
}));
const failed: string[] = found.containers.flatMap((c) => (c.error ? [\`\${c.name}: \${c.error.code}\`] : []));

// @ts-expect-error q is required
const noQuery: SearchBody = { container: '*' };
// @ts-expect-error limit is an integer or null, not a string
const textLimit: SearchBody = { q: 'tea', limit: '5' };
void noQuery;
void textLimit;

console.log(JSON.stringify({ hits, failed }));
`;

describe('a client generated from the OpenAPI document with openapi-typescript', () => {
  let server: TestServer;
  let key: string;
  let dir: string;
  beforeAll(async () => {
    server = await startTestServer();
    const account = await makeAccount(server, ['Food', 'Work']);
    key = await keyFor(server, account.owner, { level: 'read', all_views: true });
    await addDocument(server, account.owner, {
      container: account.containers.Food,
      content: 'She eats oatmeal for breakfast.',
    });
    await server.learning.drain();

    dir = mkdtempSync(join(tmpdir(), 'engram-openapi-ts-'));
    const doc = await (await fetch(`${server.url}${OPENAPI_PATH}`)).text();
    writeFileSync(join(dir, 'agent-protocol.json'), doc);
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(TSCONFIG, null, 2));
  });
  afterAll(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('generates the types, and a program calling search with them type-checks and runs', async () => {
    const generated = await run([OPENAPI_TYPESCRIPT, 'agent-protocol.json', '--output', 'agent-protocol.d.ts'], dir);
    expect(generated.err).not.toContain('Error');
    expect(generated.code).toBe(0);

    writeFileSync(join(dir, 'program.ts'), PROGRAM);
    const checked = await run([TSC, '-p', 'tsconfig.json'], dir);
    expect(checked.out + checked.err).toBe('');
    expect(checked.code).toBe(0);

    const ran = await run(['program.ts'], dir, { BASE_URL: server.url, API_KEY: key });
    expect(ran.err).toBe('');
    expect(JSON.parse(ran.out)).toEqual({
      hits: [
        {
          container: 'Food',
          content: 'She eats oatmeal for breakfast.',
          score: expect.any(Number),
          document: expect.stringMatching(/^doc_/),
          position: 0,
        },
      ],
      failed: [],
    });
  }, 60_000);

  it('refuses a program that misuses the generated types', async () => {
    writeFileSync(join(dir, 'program.ts'), PROGRAM.replace('hit.container_name', 'hit.container_title'));
    const checked = await run([TSC, '-p', 'tsconfig.json'], dir);
    expect(checked.code).not.toBe(0);
    expect(checked.out).toContain("Property 'container_title' does not exist");
  }, 60_000);
});
