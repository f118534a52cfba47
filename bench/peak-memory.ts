/**
 * The server's memory and search latency with both embedding tiers at a given number of passages.
 * Refining 100,000 passages with the strong model takes many hours of CPU on small machines, so the
 * strong tier's vectors here are random unit vectors, as many a passage as refinement would store
 * (its embedding units): the index holds the same number of vectors of the same size, which is what
 * its memory and scan time depend on; their values are not measured. The last `--unrefined`
 * passages are left for the server's own refinement (again at each run on a kept store), so its
 * learning thread loads the strong model at start, as at the end of a catch-up.
 *
 * Then, over HTTP: `--queries` searches once everything is refined (the default configuration,
 * strong query embedding included), and the same again while the server refines `--added` new
 * documents of 1 KiB once it has learned them, with how far refinement got meanwhile. Read from
 * /proc: RSS after start and at the end, the peak (VmHWM) as it stands after each step, and the
 * CPU the server uses while idle, once refined.
 *
 * `--gap` spaces the searches, as a person or an agent between two questions would.
 *
 * On a kept store the server reads its indexes as its last run saved them at stop, unless vectors
 * were removed since: `--unrefined` above 0 removes some, so the start rebuilds them from the store;
 * `--unrefined 0` measures a start that reads them as saved (docs/decisions.md).
 *
 *   bun bench/peak-memory.ts --passages 100000 [--unrefined 40] [--queries 300] [--added 40] [--gap 0] [--keep DIR]
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { embeddingUnits } from '../src/learning/embedding-units';
import { openDatabase } from '../src/storage/sqlite/open';
import { openSqliteStore } from '../src/storage/sqlite/sqlite-store';
import { documentText, percentile, query, seeded } from './lib/corpus';
import { serve } from './lib/engram-process';
import { seedStore } from './lib/seed';

const { values } = parseArgs({
  options: {
    passages: { type: 'string', default: '100000' },
    unrefined: { type: 'string', default: '40' },
    gap: { type: 'string', default: '0' },
    queries: { type: 'string', default: '300' },
    added: { type: 'string', default: '40' },
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
  const all = await store.passages.listWithoutVectors('strong', 0, Number.MAX_SAFE_INTEGER);
  const synthetic = all.slice(0, Math.max(0, all.length - Number(values.unrefined)));
  for (let i = 0; i < synthetic.length; i += 500) {
    const batch = synthetic.slice(i, i + 500);
    await store.vectors.put(
      'strong',
      batch.map((p) => ({ passageId: p.id, vectors: embeddingUnits(p, 'strong').map(unitVector) })),
    );
  }
  await store.close();
} else {
  // A kept store was refined to the end by its last run: the same passages wait again.
  const db = openDatabase(dir, Date.now());
  db.run(
    "DELETE FROM passage_vectors WHERE tier = 'strong' AND passage_id IN (SELECT id FROM passages ORDER BY id DESC LIMIT ?)",
    [Number(values.unrefined)],
  );
  db.close();
}

const started = performance.now();
const server = await serve(dir, { ENGRAM_EMBEDDER: 'builtin' });
const startMs = performance.now() - started;
const status = () => ({ rss: server.rssMiB(), peak: server.peakMiB() });
const afterStart = status();
const headers = { Authorization: `Bearer ${seed.key}`, 'Content-Type': 'application/json' };
const health = async () =>
  (await (await fetch(`${server.url}/healthz`, { headers })).json()) as {
    learning: { queue: number; refined: number; passages: number };
  };
const refining = async () => {
  const { learning } = await health();
  return learning.queue > 0 || learning.refined < learning.passages;
};
const random = seeded(7);
// The first search waits for the indexes, which the server reads while it answers.
const firstSearch = await fetch(`${server.url}/v1/search`, {
  method: 'POST',
  headers,
  body: JSON.stringify({ q: query(random), limit: 10 }),
});
if (!firstSearch.ok) throw new Error(`search answered ${firstSearch.status}`);
await firstSearch.json();
const firstSearchMs = performance.now() - started;
/** Searches one at a time, `--gap` ms apart, `count` of them or, with `until`, as long as it holds. */
const searches = async (count: number, until?: () => Promise<boolean>) => {
  const times: number[] = [];
  while (times.length < count && (!until || (await until()))) {
    const t = performance.now();
    const res = await fetch(`${server.url}/v1/search`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ q: query(random), limit: 10 }),
    });
    await res.json();
    if (!res.ok) throw new Error(`search answered ${res.status}`);
    times.push(performance.now() - t);
    if (Number(values.gap) > 0) await Bun.sleep(Number(values.gap));
  }
  return times.sort((a, b) => a - b);
};
const figures = (times: number[]) =>
  `${times.length} searches, p50 ${percentile(times, 50).toFixed(1)} ms, p95 ${percentile(times, 95).toFixed(1)} ms`;

// The leftovers refined first, so that the next searches are the default configuration at rest.
while (await refining()) await Bun.sleep(250);
const afterCatchUp = status();
const idleFrom = server.cpuSeconds();
await Bun.sleep(5000);
const idleCpu = (server.cpuSeconds() - idleFrom) / 5;
const settled = await searches(Number(values.queries));
const afterSearches = status();
for (let i = 0; i < Number(values.added); i++) {
  const res = await fetch(`${server.url}/v1/documents`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ content: documentText(random, 1024) }),
  });
  if (!res.ok) throw new Error(`add answered ${res.status}`);
}
// Refinement yields to searches sent back to back (search/search-activity.ts): how far it got
// while they ran, and how long the rest took once they stopped.
while ((await health()).learning.queue > 0) await Bun.sleep(50);
const unrefinedBefore = await health();
const refiningStarted = performance.now();
const whileRefining = await searches(Number(values.queries), refining);
const refiningSeconds = (performance.now() - refiningStarted) / 1000;
const unrefinedAfter = await health();
const restStarted = performance.now();
while (await refining()) await Bun.sleep(50);
const restSeconds = (performance.now() - restStarted) / 1000;
const end = status();
const { learning } = await health();
await server.stop();
if (!values.keep) rmSync(dir, { recursive: true, force: true });

console.log(
  `load average ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}; ${learning.passages} passages at the end (${values.unrefined} refined by the server at start, ${values.added} documents added)`,
);
console.log(
  `start to first /healthz: ${startMs.toFixed(0)} ms; RSS then ${afterStart.rss.toFixed(0)} MiB; to the first search's answer ${firstSearchMs.toFixed(0)} ms`,
);
console.log(
  `peak (VmHWM) after start ${afterStart.peak.toFixed(0)} MiB, after the start's refinement ${afterCatchUp.peak.toFixed(0)} MiB, after the searches at rest ${afterSearches.peak.toFixed(0)} MiB`,
);
console.log(`idle once refined: ${(idleCpu * 100).toFixed(1)} % of a core over 5 s`);
console.log(`all refined: ${figures(settled)}`);
console.log(`while refining the added documents (${refiningSeconds.toFixed(1)} s): ${figures(whileRefining)}`);
const toRefine = ({ learning: l }: typeof unrefinedBefore) => l.passages - l.refined;
console.log(
  `refined meanwhile: ${toRefine(unrefinedBefore) - toRefine(unrefinedAfter)} of ${toRefine(unrefinedBefore)} passages; the rest in ${restSeconds.toFixed(1)} s once the searches stopped`,
);
console.log(`RSS at the end ${end.rss.toFixed(0)} MiB; peak (VmHWM) ${end.peak.toFixed(0)} MiB`);
