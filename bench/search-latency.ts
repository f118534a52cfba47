/**
 * Search latency over HTTP, peak server memory and store size at a given number of passages.
 * The corpus is learned through the real learning path (split, embed, store) before the server
 * starts; then 1,000 queries are sent one at a time from this process and timed end to end.
 *
 *   bun bench/search-latency.ts --passages 100000 [--queries 1000] [--embedder builtin|fast|none] [--refine] [--keep DIR]
 *
 * --refine refines every passage with the strong tier before the server starts (slow: the strong
 * model embeds a few documents a second); without it a `builtin` server refines in the background
 * while it is measured.
 *
 * --keep DIR seeds DIR once and keeps it; a later run with the same DIR skips the seeding.
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { percentile, query, seeded } from './lib/corpus';
import { serve } from './lib/engram-process';
import { seedStore } from './lib/seed';

const { values } = parseArgs({
  options: {
    passages: { type: 'string', default: '10000' },
    queries: { type: 'string', default: '1000' },
    embedder: { type: 'string', default: 'builtin' },
    refine: { type: 'boolean', default: false },
    keep: { type: 'string' },
  },
});
const target = Number(values.passages);
const queries = Number(values.queries);
const dir = values.keep ?? mkdtempSync(join(tmpdir(), 'engram-bench-'));
const env = { ENGRAM_EMBEDDER: values.embedder! };
const seed = await seedStore(dir, target, values.embedder!, values.keep !== undefined, values.refine);
const { key, passages } = seed;

const server = await serve(dir, env);
const headers = { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' };
const ask = async (q: string) => {
  const started = performance.now();
  const res = await fetch(`${server.url}/v1/search`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ q, limit: 10 }),
  });
  await res.json();
  if (!res.ok) throw new Error(`search answered ${res.status}`);
  return performance.now() - started;
};
const qrandom = seeded(7);
for (let i = 0; i < 50; i++) await ask(query(qrandom)); // warm-up
const times: number[] = [];
// The server's CPU per search moves less than wall time with what else a shared host runs.
const cpuBefore = server.cpuSeconds();
for (let i = 0; i < queries; i++) times.push(await ask(query(qrandom)));
const cpuPerSearch = ((server.cpuSeconds() - cpuBefore) * 1000) / queries;
times.sort((a, b) => a - b);
const peak = server.peakMiB();
await server.stop();
const bytes = readdirSync(dir).reduce((n, f) => n + statSync(join(dir, f)).size, 0);
if (!values.keep) rmSync(dir, { recursive: true, force: true });

const ms = (x: number) => x.toFixed(2);
console.log(
  `passages: ${passages} (${seed.reused ? 'store reused' : `seeded in ${seed.seconds.toFixed(1)} s`}${seed.refineSeconds ? `, refined in ${seed.refineSeconds.toFixed(1)} s` : ''}), embedder: ${values.embedder}`,
);
console.log(
  `search over HTTP, ${queries} queries one at a time: p50 ${ms(percentile(times, 50))} ms, p95 ${ms(percentile(times, 95))} ms, p99 ${ms(percentile(times, 99))} ms`,
);
console.log(`server CPU per search: ${cpuPerSearch.toFixed(2)} ms`);
console.log(`server peak memory (VmHWM): ${peak.toFixed(0)} MiB`);
console.log(`store on disk: ${(bytes / 1024 / 1024).toFixed(1)} MiB`);
