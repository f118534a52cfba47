/**
 * The strong tier's refinement rate: documents of about 1 KiB of generated text (its made-up words
 * cost the tokenizer about 1.5 times what English does), of English prose (the older evaluation
 * set's sentences) and, with `--turns`, chat turns from the conversational benchmark are learned by the fast tier into a scratch store, then the
 * server's own Refiner embeds every passage with the strong model, batch by batch, as the learning
 * thread does when its queue is empty. Reported per CPU second of this process (the model runs on
 * the calling thread, one intra-op thread), which moves less with the machine's load than wall time;
 * also the units and model tokens a passage costs.
 *
 * `--threads N` runs the model on N threads (the learning thread and N − 1 lanes, as
 * ENGRAM_REFINE_THREADS does in the server), `--batch N` refines N passages a step (REFINE_BATCH):
 * passages a second (wall) is what the threads give; per CPU second what each costs.
 *
 *   bun bench/refine-throughput.ts [--documents 60] [--prose 60] [--turns 300] [--threads 1] [--batch 16]
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config';
import { createEmbedders } from '../src/embedders/create-embedders';
import { embeddingUnits } from '../src/learning/embedding-units';
import { loadOnnxEmbedder, OnnxEmbedder } from '../src/embedders/onnx-embedder';
import { refineLanes } from '../src/learning/refine-lane';
import { REFINE_BATCH, Refiner } from '../src/learning/refiner';
import { generateConversations, turnDocument } from './conversations/generate';
import longSet from '../test/embedders/quality/eval-set-long.json';
import { documentText, seeded } from './lib/corpus';
import { ACCOUNT, learnCorpus } from './lib/learned-corpus';

const { values } = parseArgs({
  options: {
    documents: { type: 'string', default: '60' },
    prose: { type: 'string', default: '60' },
    turns: { type: 'string', default: '0' },
    threads: { type: 'string', default: '1' },
    batch: { type: 'string', default: String(REFINE_BATCH) },
  },
});
const threads = Number(values.threads);
const batch = Number(values.batch);

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

const { fast } = await createEmbedders(
  loadConfig({ ...process.env, ENGRAM_EMBEDDER: 'fast', ENGRAM_DATA_DIR: '/nonexistent' }),
);
// As the server runs it: one session, taken up by the learning thread with its lanes beside it.
const tokenizer = await loadOnnxEmbedder();
const shared = tokenizer.share();
const strong = await OnnxEmbedder.attach(shared, { lanes: () => refineLanes(shared, threads) });
// The model and the lanes' threads are loaded before timing, as a running server has them.
await strong.embed(Array.from({ length: 16 * threads }, (_, i) => documentText(seeded(i), 300)));

async function measure(name: string, documents: { key: string; text: string }[]): Promise<void> {
  const corpus = await learnCorpus(documents, { fast, strong: null });
  const passages = await corpus.store.passages.listWithoutVectors('strong', 0, 1_000_000);
  const units = passages.map((p) => embeddingUnits(p, 'strong'));
  const tokens = units.flat().reduce((n, u) => n + tokenizer.encode(u).length, 0);
  const refiner = new Refiner(corpus.store, strong, () => {}, { batch });
  const cpu0 = cpuMs();
  const t0 = performance.now();
  let refined = 0;
  for (let n = await refiner.step(); n > 0; n = await refiner.step()) refined += n;
  const cpu = (cpuMs() - cpu0) / 1000;
  const wall = (performance.now() - t0) / 1000;
  if (refined !== passages.length || (await corpus.store.passages.listWithoutVectors('strong', 0, 1)).length)
    throw new Error('not every passage was refined');
  await corpus.close();
  const f = (x: number, d = 1) => x.toFixed(d);
  console.log(
    `| ${name} | ${documents.length} | ${passages.length} | ${f(units.flat().length / passages.length, 2)} | ${f(tokens / documents.length, 0)} | ` +
      `${f(cpu)} s (${f(wall)} s) | ${f(passages.length / wall)} | ${f(passages.length / cpu)} | ${f(documents.length / cpu, 2)} | ${f(tokens / cpu, 0)} |`,
  );
}

console.log(
  `load average ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}; ${strong.id}; ${threads} thread(s), ${batch} passages a step; account ${ACCOUNT}\n`,
);
console.log(
  '| documents | count | passages | units a passage | model tokens a document | CPU (wall) | passages a second | passages per CPU s | documents per CPU s | tokens per CPU s |',
);
console.log('|---|---|---|---|---|---|---|---|---|---|');
const random = seeded(11);
const docs = Number(values.documents);
if (docs > 0)
  await measure(
    '1 KiB generated text',
    Array.from({ length: docs }, (_, i) => ({ key: `d${i}`, text: documentText(random, 1024) })),
  );
const prose = Number(values.prose);
if (prose > 0) {
  // Each document: the set's passages' sentences, in order, up to 1 KiB.
  const sentences = longSet.passages.flatMap((p) => p.text.match(/[^.!?]+[.!?]+\s*/g) ?? []);
  const documents: { key: string; text: string }[] = [];
  for (let text = '', i = 0; documents.length < prose && i < sentences.length; i++) {
    if (text.length + sentences[i]!.length > 1024) {
      documents.push({ key: `p${documents.length}`, text: text.trim() });
      text = '';
    }
    text += sentences[i];
  }
  await measure('1 KiB English prose', documents);
}
const turns = Number(values.turns);
if (turns > 0) {
  const data = generateConversations(17);
  await measure(
    'chat turns',
    data.turns.slice(0, turns).map((t) => ({ key: t.id, text: turnDocument(t) })),
  );
}
strong.close();
tokenizer.close();
