/**
 * How fast the server learns: documents of about 1 KiB are added over HTTP by concurrent clients,
 * and the clock stops when the last one is learned (read from the store, read-only).
 *
 *   bun bench/learning-throughput.ts [--documents 2000] [--clients 8] [--embedder builtin|none]
 */
import { Database } from 'bun:sqlite';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { documentText, seeded } from './lib/corpus';
import { serve, setUp } from './lib/engram-process';

const { values } = parseArgs({ options: { documents: { type: 'string', default: '2000' }, clients: { type: 'string', default: '8' }, embedder: { type: 'string', default: 'builtin' } } });
const total = Number(values.documents);
const clients = Number(values.clients);
const dir = mkdtempSync(join(tmpdir(), 'engram-bench-'));
const env = { ENGRAM_EMBEDDER: values.embedder! };
const { key } = setUp(dir);
const server = await serve(dir, env);
const random = seeded(1);
const texts = Array.from({ length: total }, () => documentText(random, 1024));
const headers = { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' };

const started = performance.now();
let next = 0;
await Promise.all(Array.from({ length: clients }, async () => {
  while (next < total) {
    const content = texts[next++]!;
    const res = await fetch(`${server.url}/v1/documents`, { method: 'POST', headers, body: JSON.stringify({ content }) });
    if (res.status !== 202) throw new Error(`add answered ${res.status}`);
  }
}));
const added = performance.now();
const db = new Database(join(dir, 'engram.db'), { readonly: true });
const queued = db.query<{ n: number }, []>("SELECT count(*) AS n FROM documents WHERE status = 'queued'");
while (queued.get()!.n > 0) await Bun.sleep(20);
const learned = performance.now();
const failed = db.query<{ n: number }, []>("SELECT count(*) AS n FROM documents WHERE status = 'failed'").get()!.n;
db.close();
const peak = server.peakMiB();
await server.stop();
rmSync(dir, { recursive: true, force: true });

console.log(`${total} documents of 1 KiB, ${clients} clients, embedder: ${values.embedder}`);
console.log(`adds acknowledged: ${(total / ((added - started) / 1000)).toFixed(0)} a second`);
console.log(`learned (first add to last learned): ${(total / ((learned - started) / 1000)).toFixed(0)} documents a second; failed: ${failed}`);
console.log(`server peak memory (VmHWM): ${peak.toFixed(0)} MiB`);
