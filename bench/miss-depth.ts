/**
 * Where the server's misses on REALTALK-odd sit (docs/performance.md, issue 39's error analysis):
 * for each evidence turn the server's default search leaves out of its top 10, its rank in each
 * list fusion takes (keyword, fast tier, strong tier: the first CANDIDATES each), in the fused
 * candidates, and how deep in each list it lies when looked for further (up to 500). A turn in the
 * fused candidates is the levers' to reach; one only below the candidates' depth, fusion's; one
 * in no list's 500, a wording gap. Then each question with an evidence turn missed, by what kind of
 * miss it is (read from the turns' text; a question can be of several kinds).
 *
 *   bun bench/miss-depth.ts --realtalk DIR
 */
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config';
import { createEmbedders } from '../src/embedders/create-embedders';
import { createLogger } from '../src/log';
import { askingShare } from '../src/search/asking';
import { contentWords, ownWords, wordsIn } from '../src/search/content-poor';
import { convexFusion } from '../src/search/fusion';
import { CANDIDATES, FUSION_WEIGHTS, SearchEngine } from '../src/search/search-engine';
import { speakerOf } from '../src/search/speaker';
import { scratchDir } from '../test/helpers/scratch';
import { ACCOUNT, CONTAINER, learnCorpus, tierIndex } from './lib/learned-corpus';
import { realtalkSet, turnText } from './lib/realtalk';

const { values } = parseArgs({ options: { realtalk: { type: 'string' } } });
if (!values.realtalk) throw new Error('--realtalk DIR: the odd-numbered REALTALK chats');
const DEEP = 500;
const set = realtalkSet(values.realtalk);
const embedders = await createEmbedders(loadConfig({ ...process.env, ENGRAM_DATA_DIR: '/nonexistent' }));
if (!embedders.fast || !embedders.strong) throw new Error('both tiers are needed');
const corpus = await learnCorpus(set.documents, embedders);
const { store, keyOf } = corpus;
const engine = await SearchEngine.open({ store, log: createLogger('warn'), embedders, dataDir: scratchDir() });
const index = {
  fast: await tierIndex(store, 'fast', embedders.fast.dimensions),
  strong: await tierIndex(store, 'strong', embedders.strong.dimensions),
};

/** A list's passages (their keys) best first, and their scores. */
const vectorList = async (tier: 'fast' | 'strong', q: string, k: number) => {
  const [query] = await embedders[tier]!.embed([q]);
  const floor = embedders[tier]!.similarityFloor ?? 0;
  return index[tier]
    .search(query!, [CONTAINER.id], k)
    .filter((h) => h.score > floor)
    .map((h) => ({ item: h.passageId, score: h.score }));
};
const rankIn = (list: { item: number }[], key: string) => {
  const i = list.findIndex((h) => keyOf(h.item) === key);
  return i < 0 ? null : i + 1;
};
/** Counts by row and question kind (and in all). */
const counter = () => {
  const rows: Record<string, Record<string, number>> = {};
  const add = (kind: string, row: string) => {
    rows[row] ??= {};
    rows[row][kind] = (rows[row][kind] ?? 0) + 1;
    rows[row].all = (rows[row].all ?? 0) + 1;
  };
  return { rows, add };
};
const { rows: where, add: count } = counter();
const { rows: kindsOfMiss, add: tally } = counter();

const turnOf = new Map(set.turns.map((t) => [t.key, t]));
const chatTurns = Map.groupBy(set.turns, (t) => t.chat);
const before = new Map(
  [...chatTurns.values()].flatMap((turns) => turns.slice(1).map((t, i) => [t.key, turns[i]!] as const)),
);
const speakersOf = new Map(
  [...chatTurns].map(([chat, turns]) => [chat, new Set(turns.map((t) => speakerOf(turnText(t))))]),
);
/** A crude stem, enough to say whether two words are one: "hobbies" and "hobby" are not, "plays" and "play" are. */
const stem = (w: string) => w.replace(/(ing|ed|es|s)$/, '');
const meaningful = (text: string) =>
  ownWords(text)
    .filter((w) => contentWords([w]) === 1)
    .map(stem);

/** What kind of miss a question with missed evidence turns is; a question can be of several kinds. */
function missKinds(question: string, evidence: string[], missed: string[], top: (string | undefined)[]): string[] {
  const asked = new Set(meaningful(question));
  const text = (key: string) => turnText(turnOf.get(key)!);
  const chat = turnOf.get(evidence[0]!)!.chat;
  const kinds = [missed.length < evidence.length ? 'part of its evidence found' : 'none of its evidence found'];
  if (missed.every((e) => !meaningful(text(e)).some((w) => asked.has(w))))
    kinds.push('no missed turn shares a content word with the question (the wording gap)');
  if (missed.some((e) => before.has(e) && askingShare(before.get(e)!.text) > 0))
    kinds.push('a missed turn answers the turn before it, which asks');
  if (missed.every((e) => contentWords(ownWords(text(e))) < 4))
    kinds.push('every missed turn has under 4 content words');
  if (evidence.length >= 4) kinds.push('4 or more evidence turns');
  if (top.filter((k) => k && turnOf.get(k)!.chat !== chat).length >= 3)
    kinds.push('3 or more of the top 10 from another chat');
  if (!wordsIn(question).some((w) => speakersOf.get(chat)!.has(w)))
    kinds.push("the question names neither speaker by the headers' name");
  return kinds;
}
for (const q of set.questions) {
  const top = (await engine.search(ACCOUNT, [CONTAINER], q.question, 10, 'bench')).hits.map((h) => keyOf(h.passageId));
  const deep = {
    keyword: (await store.passages.search(ACCOUNT, [CONTAINER.id], q.question, DEEP)).map((h) => ({
      item: h.passageId,
      score: h.score,
    })),
    fast: await vectorList('fast', q.question, DEEP),
    strong: await vectorList('strong', q.question, DEEP),
  };
  const w = FUSION_WEIGHTS.withStrong;
  const fused = convexFusion([
    { hits: deep.keyword.slice(0, CANDIDATES), weight: w.keyword },
    { hits: deep.fast.slice(0, CANDIDATES), weight: w.fast },
    { hits: deep.strong.slice(0, CANDIDATES), weight: w.strong },
  ]);
  for (const e of q.evidence) {
    if (top.includes(e)) {
      count(q.kind, 'found (top 10)');
      continue;
    }
    const ranks = { keyword: rankIn(deep.keyword, e), fast: rankIn(deep.fast, e), strong: rankIn(deep.strong, e) };
    const f = rankIn(fused, e);
    const best = Math.min(...Object.values(ranks).map((r) => r ?? Infinity));
    const place =
      f !== null && f <= 30
        ? "fused 1-30 (the levers' pool)"
        : f !== null
          ? "fused 31+ (in a list's first 50)"
          : best <= 150
            ? "a list's 51-150"
            : best <= DEEP
              ? "a list's 151-500"
              : "no list's first 500";
    count(q.kind, place);
    console.log(JSON.stringify({ kind: q.kind, question: q.question, evidence: e, fused: f, ...ranks }));
  }
  const missed = q.evidence.filter((e) => !top.includes(e));
  if (missed.length) for (const tag of missKinds(q.question, q.evidence, missed, top)) tally(q.kind, tag);
}
const kinds = [...new Set(set.questions.map((q) => q.kind)), 'all'];
for (const [title, rows] of [
  ['where an evidence turn is', where],
  ['what kind of miss a question is', kindsOfMiss],
] as const) {
  console.log(`\n| ${title} | ${kinds.join(' | ')} |\n|---|${kinds.map(() => '---|').join('')}`);
  for (const [row, c] of Object.entries(rows)) console.log(`| ${row} | ${kinds.map((k) => c[k] ?? 0).join(' | ')} |`);
}
console.log(
  `(load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')})`,
);
await engine.indexes.settle();
await corpus.close();
