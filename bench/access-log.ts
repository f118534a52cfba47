/**
 * What the access log costs a logged call: the same key's search through `invoke`, with and without
 * its `accessed` (paired, alternating), the in-memory record alone, and the batched write per entry.
 * In process over a real server's services (fast embedder, a few hundred passages), no HTTP.
 *
 *   bun bench/access-log.ts [--docs 300] [--searches 2000]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { authenticate } from '../src/auth/credentials';
import { createAccount, startSession } from '../src/auth/owner';
import { systemClock } from '../src/clock';
import { loadConfig } from '../src/config';
import * as ops from '../src/operations';
import { hitsReturned } from '../src/operations/calls/access-items';
import { contextFor, invoke } from '../src/operations/operation';
import { startServer } from '../src/server';

const { values } = parseArgs({
  options: { docs: { type: 'string', default: '300' }, searches: { type: 'string', default: '2000' } },
});
const WORDS =
  'garden tomato budget roadmap travel knee exercise review planning kitchen window seat train ticket meeting notes recipe soup'.split(
    ' ',
  );
const sentence = (i: number) =>
  Array.from({ length: 40 }, (_, j) => WORDS[(i * 7 + j * 3 + (i >> 2)) % WORDS.length]).join(' ');

const dir = mkdtempSync(join(tmpdir(), 'engram-bench-access-'));
const server = await startServer(
  loadConfig({ ENGRAM_DATA_DIR: dir, ENGRAM_PORT: '0', ENGRAM_LOG_LEVEL: 'silent', ENGRAM_EMBEDDER: 'fast' }),
  { manualLearning: true },
);
const { services } = server;
try {
  const account = await createAccount(services.store, systemClock, 'bench@example.org', 'correct horse battery staple');
  const owner = await authenticate(
    services.store,
    systemClock,
    (await startSession(services.store, systemClock, account.id)).token,
  );
  const as = (caller: typeof owner) => contextFor(services, caller, 'bench');
  const container = (await invoke(ops.createContainer, as(owner), { name: 'bench' })).id;
  for (let i = 0; i < Number(values.docs); i++)
    await invoke(ops.addDocument, as(owner), { container, content: sentence(i) });
  await server.learning.drain();
  const key = await authenticate(
    services.store,
    systemClock,
    (await invoke(ops.createKey, as(owner), { name: 'bench', level: 'read', all_views: true })).key,
  );
  if (key.kind === 'owner') throw new Error('a key was expected');

  const logged = ops.searchMemories;
  const unlogged = { ...ops.searchMemories, accessed: undefined };
  const search = (op: typeof logged, i: number) =>
    invoke(op, as(key), { q: `${WORDS[i % WORDS.length]} ${WORDS[(i * 5) % WORDS.length]}`, container });
  for (let i = 0; i < 200; i++) await search(i % 2 ? logged : unlogged, i); // warm-up
  const on: number[] = [];
  const off: number[] = [];
  for (let i = 0; i < Number(values.searches); i++) {
    for (const [op, into] of (i % 2
      ? [
          [logged, on],
          [unlogged, off],
        ]
      : [
          [unlogged, off],
          [logged, on],
        ]) as [typeof logged, number[]][]) {
      const t = performance.now();
      await search(op, i);
      into.push(performance.now() - t);
    }
  }
  const median = (xs: number[]) => xs.toSorted((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

  // The record (ids out of a 10-hit answer, queued) with its share of the writes, then one batched write alone.
  const answer = await invoke(unlogged, as(key), { q: 'garden tomato', container });
  await services.accessLog.flush();
  const n = 20_000;
  let t = performance.now();
  for (let i = 0; i < n; i++) services.accessLog.record(key, 'search_memories', hitsReturned(answer.results));
  const recordUs = ((performance.now() - t) * 1000) / n;
  await services.accessLog.flush();
  const batches = 20;
  const flushMs: number[] = [];
  for (let b = 0; b < batches; b++) {
    for (let i = 0; i < 499; i++) services.accessLog.record(key, 'search_memories', hitsReturned(answer.results));
    t = performance.now();
    await services.accessLog.flush();
    flushMs.push(performance.now() - t);
  }

  console.log(
    `passages: ${Number(values.docs)} documents, ${answer.results.length} hits an answer; searches: ${on.length} each way, paired`,
  );
  console.log(`search via invoke, logged:   median ${median(on).toFixed(3)} ms, mean ${mean(on).toFixed(3)} ms`);
  console.log(`search via invoke, unlogged: median ${median(off).toFixed(3)} ms, mean ${mean(off).toFixed(3)} ms`);
  console.log(`difference of medians: ${((median(on) - median(off)) * 1000).toFixed(1)} µs`);
  console.log(`record with its share of the batched writes (a commit every 500): ${recordUs.toFixed(2)} µs a call`);
  console.log(
    `batched write of 499 entries (one commit): median ${median(flushMs).toFixed(2)} ms, ${((median(flushMs) * 1000) / 499).toFixed(1)} µs an entry`,
  );
} finally {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}
