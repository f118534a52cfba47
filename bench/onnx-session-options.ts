/**
 * What ONNX Runtime's session options cost the strong embedder in memory and time: each
 * configuration loads all-MiniLM-L6-v2 in a fresh process and reports RSS after load and after
 * embedding 100 texts (VmRSS; VmHWM = the process's peak), CPU time (user + system) for a query
 * and for a 1 KiB document, and the lowest cosine to the Python reference vectors. `shipped` is
 * `loadOnnxEmbedder()` itself; the others open the model file through the same runtime
 * (onnx-runtime.ts, which trims glibc's heap after load and after each run) with the options listed.
 *
 *   bun bench/onnx-session-options.ts [--only name,name] [--model other.onnx]
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { Embedder } from '../src/embedders/embedder';
import {
  DEFAULT_ONNX_MODEL_DIR,
  loadOnnxEmbedder,
  OnnxEmbedder,
  type OnnxModelConfig,
} from '../src/embedders/onnx-embedder';
import { gatherBeforeDequantize } from '../src/embedders/onnx-gather-first';
import { openOnnxSession, type OnnxSessionOptions } from '../src/embedders/onnx-runtime';
import { documents, QUERIES, SENTENCES } from './lib/english';

const { values } = parseArgs({
  options: { only: { type: 'string' }, model: { type: 'string' }, case: { type: 'string' } },
});

interface Configuration {
  /** Passed to openOnnxSession beside one thread. */
  readonly options?: Omit<OnnxSessionOptions, 'threads'>;
  /** Rewrite the embedding lookups to gather int8 rows (onnx-gather-first.ts). */
  readonly gatherFirst?: boolean;
}

const CONFIGURATIONS: Record<string, Configuration | 'shipped'> = {
  'arena on': { options: { arena: true } },
  'arena off (the default)': {},
  'memory pattern off': { options: { memoryPattern: false } },
  'session.disable_prepacking': { options: { config: { 'session.disable_prepacking': '1' } } },
  'session.use_device_allocator_for_initializers': {
    options: { config: { 'session.use_device_allocator_for_initializers': '1' } },
  },
  basic: { options: { optimization: 'basic' } },
  extended: { options: { optimization: 'extended' } },
  'disabled (weights stay int8)': { options: { optimization: 'disabled' } },
  'ConstantFolding off (weights stay int8)': {
    options: { config: { 'optimization.disable_specified_optimizers': 'ConstantFolding' } },
  },
  'int8 embedding tables': { gatherFirst: true },
  shipped: 'shipped',
};

const status = () => {
  const s = readFileSync('/proc/self/status', 'utf8');
  const mib = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(s)![1]) / 1024;
  return { rss: mib('VmRSS'), peak: mib('VmHWM') };
};
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** An embedder over a session opened with `c`'s options. */
async function openWith(c: Configuration, modelPath: string): Promise<Embedder> {
  const bytes = await Bun.file(modelPath).bytes();
  const model = c.gatherFirst ? gatherBeforeDequantize(bytes) : bytes;
  const session = await openOnnxSession(model, { threads: 1, ...c.options });
  const config = JSON.parse(readFileSync(join(DEFAULT_ONNX_MODEL_DIR, 'config.json'), 'utf8')) as OnnxModelConfig;
  return new OnnxEmbedder(config, readFileSync(join(DEFAULT_ONNX_MODEL_DIR, 'vocab.txt'), 'utf8'), session, 'bench');
}

async function runCase(name: string) {
  const c = CONFIGURATIONS[name]!;
  // The ORT_DISABLE_TELEMETRY the parent sets is in this process's C environment from the start.
  const start = status();
  const cpu0 = cpuMs();
  const embedder =
    c === 'shipped'
      ? await loadOnnxEmbedder()
      : await openWith(c, values.model ?? join(DEFAULT_ONNX_MODEL_DIR, 'model.onnx'));
  const loadCpuMs = cpuMs() - cpu0;
  Bun.gc(true);
  const loaded = status();

  const fixture = (
    JSON.parse(
      readFileSync(join(import.meta.dir, '..', 'test', 'learning', 'embedder', 'fixtures', 'onnx-parity.json'), 'utf8'),
    ) as { cases: { text: string; vector: number[] }[] }
  ).cases;
  let minCosine = 1;
  for (const [i, v] of (await embedder.embed(fixture.map((f) => f.text))).entries())
    minCosine = Math.min(minCosine, cosine(v, fixture[i]!.vector));
  for (const f of fixture) minCosine = Math.min(minCosine, cosine((await embedder.embed([f.text]))[0]!, f.vector));

  const docs = documents(24, 1024);
  await embedder.embed([...QUERIES, docs[0]!]);
  let t = cpuMs();
  for (let i = 0; i < 40; i++) await embedder.embed([`${QUERIES[i % QUERIES.length]} ${i}`]);
  const queryCpuMs = (cpuMs() - t) / 40;
  t = cpuMs();
  for (let i = 0; i < 6; i++) await embedder.embed([docs[i]!]);
  const docCpuMs = (cpuMs() - t) / 6;
  // 100 texts as the learning worker sends them: a document whole and 8 sentences, 2 documents a call.
  for (let i = 0; i < 10; i++) await embedder.embed([docs[2 * i]!, docs[2 * i + 1]!, ...SENTENCES.slice(0, 8)]);
  Bun.gc(true);
  const after = status();
  return {
    name,
    startMiB: start.rss,
    loadedMiB: loaded.rss,
    after100MiB: after.rss,
    peakMiB: after.peak,
    loadCpuMs,
    queryCpuMs,
    docCpuMs,
    minCosine,
  };
}

function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let dot = 0,
    na = 0,
    nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return dot / Math.sqrt(na * nb);
}

if (values.case) {
  console.log(JSON.stringify(await runCase(values.case)));
} else {
  const names = values.only ? values.only.split(',') : Object.keys(CONFIGURATIONS);
  console.log(
    `load average ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}; MiB of RSS; CPU ms per call\n`,
  );
  console.log(
    '| configuration | RSS before load | after load | after 100 texts | peak | load CPU | query CPU | 1 KiB doc CPU | min cosine |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (const name of names) {
    if (!(name in CONFIGURATIONS)) throw new Error(`no configuration ${name}`);
    const args = [
      process.execPath,
      import.meta.path,
      '--case',
      name,
      ...(values.model ? ['--model', values.model] : []),
    ];
    const child = Bun.spawnSync(args, { stderr: 'inherit', env: { ...process.env, ORT_DISABLE_TELEMETRY: '1' } });
    if (child.exitCode !== 0) throw new Error(`${name} failed`);
    const r = JSON.parse(child.stdout.toString());
    const f = (x: number, d = 0) => x.toFixed(d);
    console.log(
      `| ${name} | ${f(r.startMiB)} | ${f(r.loadedMiB)} | ${f(r.after100MiB)} | ${f(r.peakMiB)} | ${f(r.loadCpuMs)} | ${f(r.queryCpuMs, 1)} | ${f(r.docCpuMs)} | ${r.minCosine.toFixed(4)} |`,
    );
  }
}
