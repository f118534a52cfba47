/**
 * The server's peak memory with both embedding tiers at a given number of passages. Refining
 * 100,000 passages with the strong model takes many hours of CPU on small machines, so the
 * strong tier's vectors here are random unit vectors, as many a passage as refinement would store
 * (its embedding units): the index holds the same number of vectors of the same size, which is what
 * its memory depends on; their values are not measured. The last `--unrefined` passages are left
 * for the server's own refinement, so its learning thread loads the strong model and refines while
 * queries are answered, as at the end of a catch-up. Read from /proc: RSS after start and the
 * peak (VmHWM) after the queries and the refinement.
 *
 *   bun bench/peak-memory.ts --passages 100000 [--unrefined 40] [--queries 300] [--keep DIR]
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { embeddingUnits } from '../src/learning/embedding-units';
import { openDatabase } from '../src/storage/sqlite/open';
import { openSqliteStore } from '../src/storage/sqlite/sqlite-store';
import { percentile, query, seeded } from './lib/corpus';
import { serve } from './lib/engram-process';
import { seedStore } from './lib/seed';

const { values } = parseArgs({
  options: {
    passages: { type: 'string', default: '100000' },
    unrefined: { type: 'string', default: '40' },
    queries: { type: 'string', default: '300' },
    keep: { type: 'string' },
  },
});
const dir = values.keep ?? mkdtempSync(join(tmpdir(), 'engram-memory-'));
const seed = await seedStore(dir, Number(values.passages), 'builtin', values.keep !== undefined);

if (!seed.reused) {
  const store = openSqliteStore(openDatabase(dir, Date.now()));
  const random = seeded(3);
  const unitVector = () => {
    const v = Float32Array.from({ length: 384 }, () => random() - 0.5);
    const norm = Math.hypot(...v);
    return v.map((x) => x / norm);
  };
  const all = store.listPassagesWithoutVectors('strong', 0, Number.MAX_SAFE_INTEGER);
  const synthetic = all.slice(0, Math.max(0, all.length - Number(values.unrefined)));
  for (let i = 0; i < synthetic.length; i += 500) {
    const batch = synthetic.slice(i, i + 500);
    store.transaction(() => store.storeVectors('strong', batch.map((p) => ({ passageId: p.id, vectors: embeddingUnits(p, 'strong').map(unitVector) }))));
  }
  store.close();
}

const status = (pid: number) => {
  const s = readFileSync(`/proc/${pid}/status`, 'utf8');
  const mib = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(s)![1]) / 1024;
  return { rss: mib('VmRSS'), peak: mib('VmHWM') };
};
const started = performance.now();
const server = await serve(dir, { ENGRAM_EMBEDDER: 'builtin' });
const startMs = performance.now() - started;
const afterStart = status(server.pid);
const headers = { Authorization: `Bearer ${seed.key}`, 'Content-Type': 'application/json' };
const health = async () => (await (await fetch(`${server.url}/healthz`)).json()) as { learning?: { refined?: number; passages?: number } };
const random = seeded(7);
const times: number[] = [];
for (let i = 0; i < Number(values.queries); i++) {
  const t = performance.now();
  const res = await fetch(`${server.url}/v1/search`, { method: 'POST', headers, body: JSON.stringify({ q: query(random), limit: 10 }) });
  await res.json();
  if (!res.ok) throw new Error(`search answered ${res.status}`);
  times.push(performance.now() - t);
}
// The refinement of the passages left over, if it is still going.
for (let h = await health(); (h.learning?.refined ?? 0) < (h.learning?.passages ?? 0); h = await health()) await Bun.sleep(500);
const end = status(server.pid);
const learning = (await health()).learning;
await server.stop();
if (!values.keep) rmSync(dir, { recursive: true, force: true });

times.sort((a, b) => a - b);
console.log(`load average ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}; ${seed.passages} passages (${learning?.refined} refined, ${values.unrefined} of them by the server during the run)`);
console.log(`start to first /healthz: ${startMs.toFixed(0)} ms; RSS then ${afterStart.rss.toFixed(0)} MiB`);
console.log(`${times.length} searches while refining: p50 ${percentile(times, 50).toFixed(1)} ms, p95 ${percentile(times, 95).toFixed(1)} ms`);
console.log(`RSS at the end ${end.rss.toFixed(0)} MiB; peak (VmHWM) ${end.peak.toFixed(0)} MiB`);
