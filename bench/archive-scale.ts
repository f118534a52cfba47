/**
 * A large archive on one machine: a store of `--passages` passages (a million by default) built as
 * the import of a big ChatGPT archive builds it, then the figures a person lives with. Phases:
 *
 *   1. a generated ChatGPT export (bench/lib/chatgpt-export.ts) of as many conversations as make
 *      the passages, imported with `engram import` (its own process, as a person runs it);
 *   2. `engram serve` with the fast tier alone learns the queue: every passage searchable;
 *   3. the strong tier's vectors, SYNTHETIC (bench/lib/synthetic-strong.ts: the units refinement
 *      would make, projected from the fast tier's): refining a million passages with the real model
 *      takes hours here. Search cost, memory, start-up and disk depend on how many units the index
 *      holds, not on which model made them; the strong tier's scores are not meaningful over them;
 *   4. `engram serve` (both tiers) builds its indexes from the store once and saves them at its stop;
 *   5. measured: start to first search from the saved indexes, searches over HTTP one at a time
 *      (p50/p95/p99, the server's CPU a search), the server's peak memory (VmHWM) and the store's
 *      size on disk;
 *   6. refinement at this size: the strong vectors of the newest `--refine` passages removed by an
 *      outside program, the server refines them (the real model), rate and CPU read from /healthz
 *      and /proc; its plan of the work list is one pass over a million passages.
 *
 *   bun bench/archive-scale.ts [--passages 1000000] [--queries 1000] [--refine 3000] [--keep DIR]
 *
 * `--keep DIR` builds the store once (phases 1–4, each written down as it ends, so a build stopped
 * midway resumes at the next phase) and later runs measure it again.
 */
import { Database } from 'bun:sqlite';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config';
import { createEmbedders } from '../src/embedders/create-embedders';
import { useEmbeddingModels } from '../src/learning/queue';
import { openStore } from '../src/storage/open-store';
import { sweepThenRemove } from '../test/helpers/secret-sweep';
import { writeChatGptArchive } from './lib/chatgpt-export';
import { percentile, query, seeded } from './lib/corpus';
import { engram, type Served, spawnServer } from './lib/engram-process';
import { claimStrongVectors, fillStrongVectors } from './lib/synthetic-strong';

const { values } = parseArgs({
  options: {
    passages: { type: 'string', default: '1000000' },
    queries: { type: 'string', default: '1000' },
    refine: { type: 'string', default: '3000' },
    keep: { type: 'string' },
  },
});
const dir = values.keep ?? mkdtempSync(join(tmpdir(), 'engram-archive-scale-'));
mkdirSync(dir, { recursive: true });
const data = join(dir, 'store');
const logFile = join(dir, 'serve.log');
const builtFile = join(dir, 'built.json');
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
const seconds = (since: number) => (performance.now() - since) / 1000;
const say = (line: string) => console.log(`${line} (load ${load()})`);

/** One message's text and how many a conversation holds: ~40 passages a conversation (26,859 from 667 conversations, 974,800 from 24,192). */
const SHAPE = { messages: 20, messageBytes: 1100, photos: 0 };
const PASSAGES_A_CONVERSATION = 40;

interface Built {
  passages: number;
  key: string;
  phases: Record<string, string>;
}

const proc = (pid: number, field: string) =>
  Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
const cpuSeconds = (pid: number) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
};
async function stop(served: Served): Promise<void> {
  served.proc.kill('SIGTERM');
  await served.proc.exited;
}
async function learning(url: string, key: string) {
  const res = await fetch(`${url}/healthz`, { headers: { Authorization: `Bearer ${key}` } });
  return ((await res.json()) as { learning: { queue: number; passages: number; refined: number | null } }).learning;
}
const search = async (url: string, key: string, q: string) => {
  const res = await fetch(`${url}/v1/search`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ q, limit: 10 }),
  });
  await res.json();
  return res.status;
};
const serveEnv = (embedder: string) => ({ ENGRAM_EMBEDDER: embedder, ENGRAM_LOG_LEVEL: 'info' });

/** The build's progress so far: each phase done is written down, so a build stopped midway resumes at the next. */
const progress = (): Built =>
  existsSync(builtFile) ? (JSON.parse(readFileSync(builtFile, 'utf8')) as Built) : { passages: 0, key: '', phases: {} };
const record = (built: Built) => writeFileSync(builtFile, JSON.stringify(built, null, 2));

async function build(built: Built): Promise<Built> {
  const { phases } = built;
  let t = performance.now();
  if (!phases.import) {
    const conversations = Math.ceil(Number(values.passages) / PASSAGES_A_CONVERSATION);
    const archive = join(dir, 'chatgpt-export.zip');
    if (!existsSync(archive)) await writeChatGptArchive(archive, { conversations, ...SHAPE });
    phases.archive = `${conversations} conversations, ${(statSync(archive).size / 1e6).toFixed(0)} MB, made in ${seconds(t).toFixed(0)} s`;
    rmSync(data, { recursive: true, force: true });
    engram(data, ['owner', 'create', '--email', 'bench@example.org'], 'benchmark password\n');
    built.key = engram(data, ['keys', 'create', '--name', 'bench', '--level', 'manage', '--all', '--profile']);
    t = performance.now();
    engram(data, ['import', archive, '--from', 'chatgpt']);
    phases.import = `engram import: ${seconds(t).toFixed(0)} s`;
    say(`import: ${phases.import}`);
    record(built);
  }

  if (!phases.learning) {
    t = performance.now();
    const learner = await spawnServer(data, serveEnv('fast'), logFile);
    let state = await learning(learner.url, built.key);
    while (state.queue > 0) {
      await Bun.sleep(2000);
      state = await learning(learner.url, built.key);
    }
    const cpu = cpuSeconds(learner.proc.pid);
    await stop(learner);
    built.passages = state.passages;
    phases.learning = `the fast tier learned ${state.passages} passages in ${seconds(t).toFixed(0)} s (${(state.passages / seconds(t)).toFixed(0)} a second, ${(state.passages / cpu).toFixed(0)} a CPU second)`;
    say(`learning: ${phases.learning}`);
    record(built);
  }

  if (!phases.synthetic) {
    // The strong model recorded as a server with both tiers records it, or its first start would drop
    // the vectors below as another model's.
    const config = loadConfig({ ...process.env, ENGRAM_EMBEDDER: 'builtin', ENGRAM_DATA_DIR: data });
    const { store } = await openStore(config, Date.now());
    await useEmbeddingModels(store, await createEmbedders(config), Date.now());
    await store.close();
    t = performance.now();
    const filled = fillStrongVectors(data);
    phases.synthetic = `synthetic strong vectors for ${filled} passages in ${seconds(t).toFixed(0)} s`;
    say(phases.synthetic);
    record(built);
  }

  t = performance.now();
  const first = await spawnServer(data, serveEnv('builtin'), logFile);
  while ((await search(first.url, built.key, 'warm the indexes')) !== 200) await Bun.sleep(200);
  phases.indexesBuilt = `indexes built from the store: first search ${seconds(t).toFixed(1)} s after spawn, peak ${proc(first.proc.pid, 'VmHWM').toFixed(0)} MiB`;
  await stop(first);
  say(phases.indexesBuilt);
  record(built);
  return built;
}

const saved = progress();
const built = saved.phases.indexesBuilt ? saved : await build(saved);
const { key } = built;
// A store built by another tree may name another strong model: its vectors are this tree's too.
const { strong } = await createEmbedders(
  loadConfig({ ...process.env, ENGRAM_EMBEDDER: 'builtin', ENGRAM_DATA_DIR: data }),
);
claimStrongVectors(data, { id: strong!.id, dimensions: strong!.dimensions });

// Start to first search from the saved indexes (the stop above, or a kept store's last run, saved them).
const spawned = performance.now();
const server = await spawnServer(data, serveEnv('builtin'), logFile);
const healthyMs = performance.now() - spawned;
while ((await search(server.url, key, 'the first search')) !== 200) await Bun.sleep(20);
const firstSearchMs = performance.now() - spawned;
const readAsSaved = readFileSync(logFile, 'utf8').includes('"msg":"search indexes read as last saved"');

const random = seeded(7);
for (let i = 0; i < 50; i++) await search(server.url, key, query(random));
const times: number[] = [];
const cpu0 = cpuSeconds(server.proc.pid);
for (let i = 0; i < Number(values.queries); i++) {
  const t = performance.now();
  if ((await search(server.url, key, query(random))) !== 200) throw new Error('a search failed');
  times.push(performance.now() - t);
}
const cpuPerSearch = ((cpuSeconds(server.proc.pid) - cpu0) * 1000) / Number(values.queries);
times.sort((a, b) => a - b);
const peak = proc(server.proc.pid, 'VmHWM');
const rss = proc(server.proc.pid, 'VmRSS');
await stop(server);
const bytes = (d: string): number =>
  readdirSync(d, { withFileTypes: true }).reduce(
    (n, e) => n + (e.isDirectory() ? bytes(join(d, e.name)) : statSync(join(d, e.name)).size),
    0,
  );

// Refinement at this size: the newest passages lose their strong vectors, as if just learned.
const refine = Number(values.refine);
const db = new Database(join(data, 'engram.db'));
db.run("DELETE FROM passage_vectors WHERE tier = 'strong' AND passage_id > (SELECT max(id) FROM passages) - ?", [
  refine,
]);
db.close();
const refiner = await spawnServer(data, serveEnv('builtin'), logFile);
let state = await learning(refiner.url, key);
while (state.refined === null || state.refined < state.passages - refine) {
  await Bun.sleep(500);
  state = await learning(refiner.url, key);
}
const from = state.refined!;
const refineStarted = performance.now();
const refineCpu0 = cpuSeconds(refiner.proc.pid);
while (state.refined! < state.passages) {
  await Bun.sleep(1000);
  state = await learning(refiner.url, key);
}
const refineSeconds = seconds(refineStarted);
const refineCpu = cpuSeconds(refiner.proc.pid) - refineCpu0;
const refinePeak = proc(refiner.proc.pid, 'VmHWM');
await stop(refiner);

const ms = (x: number) => x.toFixed(1);
console.log(`\n${built.passages} passages; ${Object.values(built.phases).join('; ')}`);
say(
  `start to first search: ${ms(firstSearchMs)} ms (healthy after ${ms(healthyMs)} ms; ${readAsSaved ? 'indexes read as saved' : 'indexes REBUILT'})`,
);
say(
  `search over HTTP, ${values.queries} one at a time: p50 ${ms(percentile(times, 50))} ms, p95 ${ms(percentile(times, 95))} ms, p99 ${ms(percentile(times, 99))} ms; server CPU ${ms(cpuPerSearch)} ms a search`,
);
say(`server memory: peak (VmHWM) ${peak.toFixed(0)} MiB, resident after the searches ${rss.toFixed(0)} MiB`);
say(`disk: ${(bytes(data) / 2 ** 30).toFixed(2)} GiB (the store and its saved indexes)`);
say(
  `refinement of the newest ${state.passages - from} passages: ${refineSeconds.toFixed(0)} s, ${((state.passages - from) / refineSeconds).toFixed(1)} a second, ${((state.passages - from) / refineCpu).toFixed(1)} a CPU second; peak ${refinePeak.toFixed(0)} MiB`,
);
sweepThenRemove(
  { harness: 'bench:archive-scale', stores: [data], logs: [logFile] },
  ...(values.keep ? [logFile] : [dir]),
);
