/** The `engram` command spawned as a person runs it, and what the export/import tests compare its files by. */
import { join } from 'node:path';
import type { TestServer } from '../../helpers/server';

const ROOT = join(import.meta.dir, '../../..');

export function engram(args: string[], stdin?: string): { code: number; stdout: string; stderr: string } {
  const run = Bun.spawnSync([process.execPath, join(ROOT, 'src/main.ts'), ...args], {
    stdin: stdin === undefined ? 'ignore' : new TextEncoder().encode(stdin),
    env: process.env,
  });
  return { code: run.exitCode ?? -1, stdout: run.stdout.toString(), stderr: run.stderr.toString() };
}

/**
 * Runs `engram import` into a running test server. The command queues learning at the real time;
 * the server's clock is moved up to it so that its next drain finds the jobs ready.
 */
export function importInto(server: TestServer, file: string): { code: number; stdout: string; stderr: string } {
  const run = engram(['import', file, '--data', server.dataDir]);
  server.clock.advance(Math.max(0, Date.now() - server.clock.now()));
  return run;
}

export const parse = (jsonl: string): any[] =>
  jsonl
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));

/**
 * An export with ids, export time and exporting account taken out, so two exports of the same memory
 * compare equal: a container is named by its name, a fact's source document by its place among the
 * document lines.
 */
export function normalized(jsonl: string): any[] {
  const lines = parse(jsonl);
  const names = new Map(lines.filter((l) => l.type === 'container').map((l) => [l.id, l.name]));
  const documents = new Map(lines.filter((l) => l.type === 'document').map((l, i) => [l.id, `document ${i + 1}`]));
  return lines.map(({ id: _id, exported_at: _at, account: _account, ...rest }) => ({
    ...rest,
    ...(rest.container ? { container: names.get(rest.container) } : {}),
    ...(rest.source
      ? { source: { ...rest.source, document: documents.get(rest.source.document) ?? 'not in the file' } }
      : {}),
  }));
}

/** What the account holds (the server's only one, unless named), counted straight from the store. */
export async function holdings(server: TestServer, named?: string) {
  const store = server.services.store;
  const accountId = named ?? (await store.accounts.list())[0]!.id;
  return {
    containers: (await store.containers.list(accountId)).length,
    documents: (await store.documents.listInInsertOrder(accountId, 0, 1000)).documents.length,
    facts: (await store.facts.list(accountId)).length,
    rules: (await store.rules.list(accountId, null)).length,
  };
}
