/**
 * What the importers' end-to-end tests share: the fixtures (test/fixtures/imports/, built from
 * each product's documented export shape), zip archives made of them, and a running server with
 * an owner and a key to look at what an import stored.
 */
import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ZipFile } from 'yazl';
import { call, makeKey, makeOwner, startTestServer, type TestServer } from '../../helpers/server';
import { engram } from './engram-command';

export const FIXTURES = join(import.meta.dir, '../../fixtures/imports');

/** A folder for one test file's archives and copies, removed by the caller. */
export const workDir = (name: string) => mkdtempSync(join(tmpdir(), `engram-${name}-`));

/** Writes a zip archive of `entries` (name → text or bytes) at `path`. */
export async function writeZip(path: string, entries: Record<string, string | Uint8Array>): Promise<string> {
  const zip = new ZipFile();
  for (const [name, data] of Object.entries(entries))
    zip.addBuffer(Buffer.from(data), name, { mtime: new Date('2025-01-01T00:00:00Z') });
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
  await Bun.write(path, Buffer.concat(chunks));
  return path;
}

/** A copy of a fixture folder under `dir`, to change without touching the fixture. */
export function copyFixture(from: string, dir: string): string {
  const to = join(dir, from.split('/').at(-1)!);
  cpSync(join(FIXTURES, from), to, { recursive: true });
  return to;
}

export interface World {
  server: TestServer;
  /** The owner's session token, and a Full access key. */
  owner: string;
  key: string;
  accountId: string;
  /** `engram import FILE ...args` into the server's data directory, its learning clock moved up to the command's time. */
  importing(file: string, ...args: string[]): { code: number; stdout: string; stderr: string };
  documents(): Promise<any[]>;
  containers(): Promise<any[]>;
  /** What a search of every container finds. */
  search(q: string): Promise<any[]>;
}

/** A server with an owner and a Full access key that reaches every container. */
export async function world(): Promise<World> {
  const server = await startTestServer();
  const owner = (await makeOwner(server)).token;
  const key = (await makeKey(server, owner, { level: 'manage', all_views: true, profile: true })).key;
  const accountId = (await server.services.store.accounts.list())[0]!.id;
  return {
    server,
    owner,
    key,
    accountId,
    importing(file, ...args) {
      const run = engram(['import', file, '--data', server.dataDir, ...args]);
      server.clock.advance(Math.max(0, Date.now() - server.clock.now()));
      return run;
    },
    async documents() {
      const listed = (await call(server, 'GET', '/v1/documents?limit=100', key)).body.documents;
      return Promise.all(listed.map(async (d: any) => (await call(server, 'GET', `/v1/documents/${d.id}`, key)).body));
    },
    containers: async () => (await call(server, 'GET', '/v1/containers', key)).body.containers,
    search: async (q) => (await call(server, 'POST', '/v1/search', key, { q, container: '*' })).body.results,
  };
}
