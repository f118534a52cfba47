/**
 * How fast the server takes in and learns documents of about 1 KiB.
 * 1. Adds: concurrent clients add documents over HTTP while the server learns them; the rate of
 *    acknowledged (durably committed) adds.
 * 2. Learning: a backlog of queued documents (written to the store while the server is stopped,
 *    exactly as add_document writes them) is learned by the worker after a start; the clock stops
 *    when the last is learned, read from the store read-only.
 *
 *   bun bench/learning-throughput.ts [--documents 2000] [--clients 8] [--embedder builtin|none]
 */
import { Database } from 'bun:sqlite';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { newId } from '../src/ids';
import { insertDocument } from '../src/learning/queue';
import { openDatabase } from '../src/storage/sqlite/open';
import { openSqliteStore } from '../src/storage/sqlite/sqlite-store';
import { documentText, seeded } from './lib/corpus';
import { serve, setUp } from './lib/engram-process';
import { queuedDocument } from './lib/queued-document';

const { values } = parseArgs({
  options: {
    documents: { type: 'string', default: '2000' },
    clients: { type: 'string', default: '8' },
    embedder: { type: 'string', default: 'builtin' },
  },
});
const total = Number(values.documents);
const clients = Number(values.clients);
const env = { ENGRAM_EMBEDDER: values.embedder! };
const random = seeded(1);
const texts = Array.from({ length: total }, () => documentText(random, 1024));

async function untilLearned(dir: string): Promise<number> {
  const db = new Database(join(dir, 'engram.db'), { readonly: true });
  const queued = db.query<{ n: number }, []>("SELECT count(*) AS n FROM documents WHERE status = 'queued'");
  while (queued.get()!.n > 0) await Bun.sleep(10);
  const failed = db.query<{ n: number }, []>("SELECT count(*) AS n FROM documents WHERE status = 'failed'").get()!.n;
  db.close();
  return failed;
}

// 1. Adds over HTTP.
{
  const dir = mkdtempSync(join(tmpdir(), 'engram-bench-'));
  const { key } = setUp(dir);
  const server = await serve(dir, env);
  const headers = { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' };
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (next < total) {
        const res = await fetch(`${server.url}/v1/documents`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ content: texts[next++] }),
        });
        if (res.status !== 202) throw new Error(`add answered ${res.status}`);
      }
    }),
  );
  const added = performance.now();
  const failed = await untilLearned(dir);
  const learned = performance.now();
  console.log(`${total} documents of 1 KiB, ${clients} clients over HTTP, embedder: ${values.embedder}`);
  console.log(
    `adds acknowledged: ${(total / ((added - started) / 1000)).toFixed(0)} a second; all learned ${((learned - added) / 1000).toFixed(2)} s after the last add; failed: ${failed}`,
  );
  // The server's CPU moves less than wall time with what else a shared host runs.
  console.log(`server CPU, start-up to all learned: ${server.cpuSeconds().toFixed(2)} s`);
  console.log(`server peak memory (VmHWM): ${server.peakMiB().toFixed(0)} MiB`);
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}

// 2. Learning a backlog.
{
  const dir = mkdtempSync(join(tmpdir(), 'engram-bench-'));
  setUp(dir);
  const store = openSqliteStore(openDatabase(dir, Date.now()));
  const [account] = await store.accounts.list();
  const [container] = await store.containers.list(account!.id);
  await store.transaction(async (tx) => {
    for (const content of texts) {
      const now = Date.now();
      await insertDocument(
        tx,
        queuedDocument({ id: newId('doc'), accountId: account!.id, containerId: container!.id, content }, now),
      );
    }
  });
  await store.close();
  const started = performance.now();
  const server = await serve(dir, env);
  const failed = await untilLearned(dir);
  const seconds = (performance.now() - started) / 1000;
  console.log(
    `learning a backlog of ${total}: ${(total / seconds).toFixed(0)} documents a second (start-up included); failed: ${failed}`,
  );
  console.log(`server CPU, start-up to all learned: ${server.cpuSeconds().toFixed(2)} s`);
  console.log(`server peak memory (VmHWM): ${server.peakMiB().toFixed(0)} MiB`);
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}
