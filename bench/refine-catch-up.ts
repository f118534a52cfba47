/**
 * How long the server takes to refine a whole store with the strong tier, as it does after an
 * upgrade or an import: `--passages` passages of generated 1 KiB documents are learned by the fast
 * tier only (bench/lib/seed.ts), then `engram serve` (the default configuration) refines them in
 * the background while `/healthz` is polled. Every `--every` seconds `--probe` searches are sent
 * `--gap` ms apart, as a person or an agent asks, to show what search costs meanwhile; refinement
 * yields to each (search/search-activity.ts), so they slow it a little, and the figures say how
 * much time they took. Printed once a minute and at the end: passages refined, the rate, the
 * server's CPU time (so that other work on the machine can be told apart), RSS and the peak.
 *
 * A kept store has its strong vectors removed at each run, so the same catch-up runs again.
 *
 *   bun bench/refine-catch-up.ts --passages 100000 [--every 60] [--probe 20] [--gap 200] [--keep DIR]
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { openDatabase } from '../src/storage/sqlite/open';
import { percentile, query, seeded } from './lib/corpus';
import { serve } from './lib/engram-process';
import { seedStore } from './lib/seed';

const { values } = parseArgs({
  options: {
    passages: { type: 'string', default: '10000' },
    every: { type: 'string', default: '60' },
    probe: { type: 'string', default: '20' },
    gap: { type: 'string', default: '200' },
    keep: { type: 'string' },
  },
});
const dir = values.keep ?? mkdtempSync(join(tmpdir(), 'engram-catch-up-'));
const seed = await seedStore(dir, Number(values.passages), 'builtin', values.keep !== undefined);
if (seed.reused) {
  const db = openDatabase(dir, Date.now());
  db.run("DELETE FROM passage_vectors WHERE tier = 'strong'");
  db.close();
}
const documents = (() => {
  const db = openDatabase(dir, Date.now());
  const { n } = db.query('SELECT count(*) AS n FROM documents').get() as { n: number };
  db.close();
  return n;
})();

const server = await serve(dir, { ENGRAM_EMBEDDER: 'builtin' });
const started = performance.now();
const elapsed = () => (performance.now() - started) / 1000;
const headers = { Authorization: `Bearer ${seed.key}`, 'Content-Type': 'application/json' };
const health = async () =>
  (
    (await (await fetch(`${server.url}/healthz`, { headers })).json()) as {
      learning: { refined: number; passages: number };
    }
  ).learning;
const random = seeded(11);
const probe = async () => {
  const times: number[] = [];
  for (let i = 0; i < Number(values.probe); i++) {
    const t = performance.now();
    const res = await fetch(`${server.url}/v1/search`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ q: query(random), limit: 10 }),
    });
    await res.json();
    if (!res.ok) throw new Error(`search answered ${res.status}`);
    times.push(performance.now() - t);
    await Bun.sleep(Number(values.gap));
  }
  return times;
};
const figures = (times: number[]) => {
  const sorted = times.toSorted((a, b) => a - b);
  return `${times.length} searches p50 ${percentile(sorted, 50).toFixed(1)} / p95 ${percentile(sorted, 95).toFixed(1)} ms`;
};

const during: number[] = [];
let probing = 0;
let nextProbe = 0;
let nextLine = 60;
let last = await health();
console.log(`${last.passages} passages in ${documents} documents; ${last.refined} refined at start`);
while (last.refined < last.passages) {
  if (elapsed() >= nextProbe) {
    const t = performance.now();
    during.push(...(await probe()));
    probing += (performance.now() - t) / 1000;
    nextProbe += Number(values.every);
  }
  await Bun.sleep(2000);
  last = await health();
  if (elapsed() >= nextLine || last.refined >= last.passages) {
    const s = elapsed();
    console.log(
      `${(s / 60).toFixed(1)} min: ${last.refined} of ${last.passages} refined (${(last.refined / s).toFixed(1)} passages/s), server CPU ${server.cpuSeconds().toFixed(0)} s, RSS ${server.rssMiB().toFixed(0)} MiB, peak ${server.peakMiB().toFixed(0)} MiB`,
    );
    nextLine += 60;
  }
}
const seconds = elapsed();
const cpu = server.cpuSeconds();
const after = await probe();
const peak = server.peakMiB();
const rss = server.rssMiB();
await server.stop();
if (!values.keep) rmSync(dir, { recursive: true, force: true });

console.log(`load average ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);
console.log(
  `refined ${last.passages} passages (${documents} documents of 1 KiB) in ${(seconds / 60).toFixed(1)} min of wall time (${(documents / seconds).toFixed(1)} documents/s); the server used ${cpu.toFixed(0)} s of CPU (${(documents / cpu).toFixed(1)} documents a CPU second)`,
);
console.log(
  `probe searches took ${probing.toFixed(0)} s of it: while refining ${figures(during)}; once refined ${figures(after)}`,
);
console.log(`RSS at the end ${rss.toFixed(0)} MiB; peak (VmHWM) ${peak.toFixed(0)} MiB`);
