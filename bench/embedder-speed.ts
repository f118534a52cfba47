/**
 * How fast each built-in embedder turns text into vectors on one thread: load time, a short query,
 * a 1 KiB document, 1 KiB documents in batches, a document's sentences (the max-sim workload),
 * peak RSS, and how long the calling thread's event loop stalls while a batch embeds. Each embedder
 * runs in its own process so that its RSS is its own. Wall-clock figures move with the machine's
 * load; the CPU figures (this process's user + system time per operation) move much less.
 *
 *   bun bench/embedder-speed.ts [--embedders static,onnx] [--threads 1] [--batch-tokens 512]
 */
import { parseArgs } from 'node:util';
import type { Embedder } from '../src/embedders/embedder';
import { loadOnnxEmbedder } from '../src/embedders/onnx-embedder';
import { loadStaticEmbedder } from '../src/embedders/static-embedder';
import { percentile } from './lib/corpus';
import { documents, QUERIES } from './lib/english';

const { values } = parseArgs({
  options: {
    embedders: { type: 'string', default: 'static,onnx' },
    threads: { type: 'string', default: '1' },
    'batch-tokens': { type: 'string', default: '512' },
    case: { type: 'string' },
  },
});

interface CaseResult {
  embedder: string;
  id: string;
  loadMs: number;
  queryMs: number;
  queryCpuMs: number;
  docMs: number;
  docCpuMs: number;
  batchDocsPerS: number;
  batchDocsPerCpuS: number;
  sentencesPerS: number;
  maxSimDocsPerS: number;
  eventLoopStallMs: number;
  peakRssMiB: number;
}

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** Median wall time and mean CPU time of `f` over `runs` calls. */
async function time(runs: number, f: (i: number) => unknown): Promise<{ wall: number; cpu: number }> {
  const walls: number[] = [];
  const cpu0 = cpuMs();
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await f(i);
    walls.push(performance.now() - t);
  }
  return {
    wall: percentile(
      walls.sort((a, b) => a - b),
      50,
    ),
    cpu: (cpuMs() - cpu0) / runs,
  };
}

async function runCase(name: string): Promise<CaseResult> {
  let peakRss = 0;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 5);
  const t0 = performance.now();
  const threads = Number(values.threads);
  const embedder: Embedder =
    name === 'static'
      ? loadStaticEmbedder()
      : await loadOnnxEmbedder(undefined, { threads, batchTokens: Number(values['batch-tokens']) });
  const loadMs = performance.now() - t0;
  const docs = documents(32, 1024);
  const embed = async (texts: string[]) => embedder.embed(texts);
  await embed([...QUERIES, ...docs.slice(0, 4)]); // warm-up

  const query = await time(60, (i) => embed([`${QUERIES[i % QUERIES.length]} ${i}`]));
  const doc = await time(12, (i) => embed([docs[i]!]));
  const batch = await time(4, (i) => embed(docs.slice(i * 8, i * 8 + 8)));
  // Max-sim: each document embedded whole and sentence by sentence, in one call per document.
  const split = docs.slice(0, 12).map((d) => d.split(/(?<=[.!?])\s+/).filter((s) => s.trim()));
  const sentences = split.reduce((n, s) => n + s.length, 0);
  const tSent = performance.now();
  for (const s of split) await embed(s);
  const sentenceMs = performance.now() - tSent;
  const tMax = performance.now();
  for (let i = 0; i < split.length; i++) await embed([docs[i]!, ...split[i]!]);
  const maxSimMs = performance.now() - tMax;

  // The longest gap between 1 ms timer ticks while one batch of 8 documents embeds.
  let stall = 0;
  let last = performance.now();
  const ticker = setInterval(() => {
    const now = performance.now();
    stall = Math.max(stall, now - last);
    last = now;
  }, 1);
  await Bun.sleep(20);
  stall = 0;
  last = performance.now();
  await embed(docs.slice(0, 8));
  await Bun.sleep(5);
  clearInterval(ticker);
  clearInterval(sampler);
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
  return {
    embedder:
      name === 'static' ? 'static (TypeScript)' : `onnx (onnxruntime-node, ${threads} thread${threads > 1 ? 's' : ''})`,
    id: embedder.id,
    loadMs,
    queryMs: query.wall,
    queryCpuMs: query.cpu,
    docMs: doc.wall,
    docCpuMs: doc.cpu,
    batchDocsPerS: 8000 / batch.wall,
    batchDocsPerCpuS: 8000 / batch.cpu,
    sentencesPerS: (sentences * 1000) / sentenceMs,
    maxSimDocsPerS: (split.length * 1000) / maxSimMs,
    eventLoopStallMs: stall,
    peakRssMiB: peakRss / 1048576,
  };
}

if (values.case) {
  console.log(JSON.stringify(await runCase(values.case)));
} else {
  const results: CaseResult[] = [];
  for (const name of values.embedders!.split(',')) {
    const args = [
      process.execPath,
      import.meta.path,
      '--case',
      name,
      '--threads',
      values.threads!,
      '--batch-tokens',
      values['batch-tokens']!,
    ];
    const child = Bun.spawnSync(args, { stderr: 'inherit' });
    if (child.exitCode !== 0) throw new Error(`${name} failed`);
    results.push(JSON.parse(child.stdout.toString()));
  }
  const f = (x: number, digits = 1) => x.toFixed(digits);
  console.log(
    `load average ${(
      await Bun.file('/proc/loadavg')
        .text()
        .catch(() => '?')
    )
      .split(' ')
      .slice(0, 3)
      .join(' ')}, ${navigator.hardwareConcurrency} cores\n`,
  );
  console.log(
    '| embedder | load ms | query ms (CPU) | 1 KiB doc ms (CPU) | 1 KiB docs/s in batches of 8 (per CPU s) | sentences/s | max-sim docs/s | event-loop stall ms, batch of 8 | peak RSS MiB |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (const r of results) {
    console.log(
      `| ${r.embedder} | ${f(r.loadMs, 0)} | ${f(r.queryMs, 2)} (${f(r.queryCpuMs, 2)}) | ${f(r.docMs)} (${f(r.docCpuMs)}) | ${f(r.batchDocsPerS)} (${f(r.batchDocsPerCpuS)}) | ${f(r.sentencesPerS, 0)} | ${f(r.maxSimDocsPerS)} | ${f(r.eventLoopStallMs, 0)} | ${f(r.peakRssMiB, 0)} |`,
    );
  }
  console.log(`\nids: ${results.map((r) => r.id).join(', ')}`);
}
