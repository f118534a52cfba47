/**
 * What learning one chat turn costs in a large store: the commit the learning runner makes for a
 * turn (its passage, its keyword entry, its context and the turn before it's), measured turn by
 * turn in process on a copy of a store (the store itself is never written). Embedding is left out
 * (no vectors are given): only the store's work is measured. Each turn is a document of one
 * message (`[1 April 2024, 09:00] Ann: ...`) added a minute after the one before, in a container
 * of its own, so each turn's neighbour is the turn learned before it.
 *
 *   bun bench/turn-learning.ts --store DIR [--turns 200] [--work DIR]
 *
 * DIR is a data directory, such as one kept by `bench/search-latency.ts --passages 100000 --keep
 * DIR`. Prints per turn the commit's wall time and this process's CPU time (median, p90, mean),
 * how many keyword entries were rewritten a turn (each a replace with FTS5's secure-delete), and
 * the load average. The same file runs on another tree's code when copied into it.
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { newId } from '../src/ids';
import { completeDocument, insertDocument } from '../src/learning/queue';
import { openDatabase } from '../src/storage/sqlite/open';
import { openSqliteStore } from '../src/storage/sqlite/sqlite-store';
import { documentText, percentile, seeded } from './lib/corpus';
import { queuedDocument } from './lib/queued-document';

const { values } = parseArgs({
  options: {
    store: { type: 'string' },
    turns: { type: 'string', default: '200' },
    work: { type: 'string' },
  },
});
if (!values.store) throw new Error('--store DIR is required');
const turns = Number(values.turns);
const dir = mkdtempSync(join(values.work ?? tmpdir(), 'engram-turns-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
cpSync(values.store, dir, { recursive: true });
rmSync(join(dir, 'server.lock'), { force: true });

const db = openDatabase(dir, Date.now());
const store = openSqliteStore(db);
const passages = db.query<{ n: number }, []>('SELECT count(*) AS n FROM passages').get()!.n;
const accountId = db.query<{ id: string }, []>('SELECT id FROM accounts LIMIT 1').get()!.id;
const containerId = newId('ctr');
const start = Date.now();
await store.containers.insert({
  id: containerId,
  accountId,
  name: `turns ${start}`,
  description: '',
  createdAt: start,
  updatedAt: start,
});
// Each rewrite of a passage's context, counted as it happens.
db.run('CREATE TEMP TABLE rewritten (id INTEGER)');
db.run(
  'CREATE TEMP TRIGGER context_rewritten AFTER UPDATE OF context ON main.passages BEGIN INSERT INTO rewritten VALUES (new.id); END',
);

const random = seeded(7);
const wall: number[] = [];
const cpu: number[] = [];
for (let i = 0; i < turns; i++) {
  const at = start + i * 60_000;
  const time = new Date(Date.UTC(2024, 3, 1, 9, i));
  const clock = `${String(time.getUTCHours()).padStart(2, '0')}:${String(time.getUTCMinutes()).padStart(2, '0')}`;
  const content = `[1 April 2024, ${clock}] ${i % 2 ? 'Bo' : 'Ann'}: ${documentText(random, 160).replace(/\s+/g, ' ')}`;
  const { document } = await insertDocument(
    store,
    queuedDocument({ id: newId('doc'), accountId, containerId, content }, at),
  );
  const job = (await store.jobs.claim(at, 100)).find((j) => j.documentId === document.id);
  if (!job) throw new Error('the turn’s job was not claimed');
  const cpuBefore = process.cpuUsage();
  const before = performance.now();
  await completeDocument(store, job, [{ position: 0, title: null, content }], null, at);
  wall.push(performance.now() - before);
  const used = process.cpuUsage(cpuBefore);
  cpu.push((used.user + used.system) / 1000);
}
const rewrites = db.query<{ n: number }, []>('SELECT count(*) AS n FROM temp.rewritten').get()!.n;
await store.close();

const summary = (ms: number[]) => {
  const sorted = [...ms].sort((a, b) => a - b);
  const mean = ms.reduce((a, b) => a + b, 0) / ms.length;
  return `median ${percentile(sorted, 50).toFixed(2)} ms, p90 ${percentile(sorted, 90).toFixed(2)} ms, mean ${mean.toFixed(2)} ms`;
};
console.log(`${turns} turns learned one by one into a store of ${passages.toLocaleString('en')} passages`);
console.log(`  a turn's commit, wall: ${summary(wall)}`);
console.log(`  a turn's commit, CPU:  ${summary(cpu)}`);
console.log(`  keyword entries rewritten a turn: ${(rewrites / turns).toFixed(2)}`);
console.log(
  `  load average: ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
