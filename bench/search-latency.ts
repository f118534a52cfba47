/**
 * Search latency over HTTP, peak server memory and store size at a given number of passages.
 * The corpus is learned through the real learning path (split, embed, store) before the server
 * starts; then 1,000 queries are sent one at a time from this process and timed end to end.
 *
 *   bun bench/search-latency.ts --passages 100000 [--queries 1000] [--embedder builtin|none] [--keep DIR]
 *
 * --keep DIR seeds DIR once and keeps it; a later run with the same DIR skips the seeding.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config';
import { createEmbedder } from '../src/learning/create-embedder';
import { splitPassages } from '../src/learning/passages';
import { newId } from '../src/ids';
import { openDatabase } from '../src/storage/sqlite/open';
import { SqliteStore } from '../src/storage/sqlite/sqlite-store';
import { documentText, percentile, query, seeded } from './lib/corpus';
import { serve, setUp } from './lib/engram-process';

const { values } = parseArgs({ options: { passages: { type: 'string', default: '10000' }, queries: { type: 'string', default: '1000' }, embedder: { type: 'string', default: 'builtin' }, keep: { type: 'string' } } });
const target = Number(values.passages);
const queries = Number(values.queries);
const dir = values.keep ?? mkdtempSync(join(tmpdir(), 'engram-bench-'));
const seeded_ = values.keep !== undefined && existsSync(join(dir, 'bench-key'));
const env = { ENGRAM_EMBEDDER: values.embedder! };
const config = loadConfig({ ...process.env, ...env, ENGRAM_DATA_DIR: dir });

const key = seeded_ ? await Bun.file(join(dir, 'bench-key')).text() : setUp(dir).key;
const store = new SqliteStore(openDatabase(dir, Date.now()));
const embedder = await createEmbedder(config);
if (embedder) store.setEmbeddingModel({ id: embedder.id, dimensions: embedder.dimensions }, Date.now());
const [account] = store.listAccounts();
const [container] = store.listContainers(account!.id);
const random = seeded(42);


let passages = seeded_ ? target : 0;
const seedStart = performance.now();
while (passages < target) {
  const text = documentText(random, 1024);
  const now = Date.now();
  store.insertDocument({
    id: newId('doc'), accountId: account!.id, containerId: container!.id, title: null, content: text, url: null, customId: null,
    metadata: null, status: 'queued', error: null, createdAt: now, updatedAt: now, learnedAt: null,
  });
  const job = store.claimJobs(now, 1)[0]!;
  const parts = splitPassages(text, null);
  const vectors = embedder ? await embedder.embed(parts.map((p) => p.content)) : null;
  store.completeDocument(job, parts, vectors, now);
  passages += parts.length;
}
store.close();
if (values.keep) await Bun.write(join(dir, 'bench-key'), key);
const seedSeconds = (performance.now() - seedStart) / 1000;

const server = await serve(dir, env);
const headers = { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' };
const ask = async (q: string) => {
  const started = performance.now();
  const res = await fetch(`${server.url}/v1/search`, { method: 'POST', headers, body: JSON.stringify({ q, limit: 10 }) });
  await res.json();
  if (!res.ok) throw new Error(`search answered ${res.status}`);
  return performance.now() - started;
};
const qrandom = seeded(7);
for (let i = 0; i < 50; i++) await ask(query(qrandom)); // warm-up
const times: number[] = [];
for (let i = 0; i < queries; i++) times.push(await ask(query(qrandom)));
times.sort((a, b) => a - b);
const peak = server.peakMiB();
await server.stop();
const bytes = readdirSync(dir).reduce((n, f) => n + statSync(join(dir, f)).size, 0);
if (!values.keep) rmSync(dir, { recursive: true, force: true });

const ms = (x: number) => x.toFixed(2);
console.log(`passages: ${passages} (seeded in ${seedSeconds.toFixed(1)} s), embedder: ${values.embedder}`);
console.log(`search over HTTP, ${queries} queries one at a time: p50 ${ms(percentile(times, 50))} ms, p95 ${ms(percentile(times, 95))} ms, p99 ${ms(percentile(times, 99))} ms`);
console.log(`server peak memory (VmHWM): ${peak.toFixed(0)} MiB`);
console.log(`store on disk: ${(bytes / 1024 / 1024).toFixed(1)} MiB`);
