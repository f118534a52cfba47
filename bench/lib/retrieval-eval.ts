/**
 * Scoring a retrieval benchmark, in one place: each search variant ranks passages for a question;
 * passages map to the documents they came from, documents to their keys (a chat turn's id), and
 * the ranking is scored against the question's evidence keys. No storage or search here.
 */

/** A benchmark: documents by key, and questions with the keys of the documents that answer them. */
export interface EvalSet {
  name: string;
  documents: { key: string; text: string }[];
  questions: { question: string; kind: string; evidence: string[] }[];
}

/** A way to search: a question in, passage ids out, best first. */
export type Variant = (question: string) => number[] | Promise<number[]>;

export interface Scores {
  questions: number;
  recallAt1: number;
  recallAt5: number;
  recallAt10: number;
  mrrAt10: number;
  /** Median milliseconds a search took (lists shared between variants are timed once, by the first). */
  msP50: number;
}

const DEPTH = 10;

/**
 * Recall@k: the share of a question's evidence documents found among the first k distinct
 * documents ranked, averaged over questions. MRR@10: 1 / the rank of the first evidence document
 * within the first 10 (0 when none is), averaged. A document split into several passages counts
 * once, at its best passage's rank.
 */
export function scoreRanking(ranked: string[], evidence: string[]): Omit<Scores, 'questions' | 'msP50'> {
  const documents = [...new Set(ranked)].slice(0, DEPTH);
  const wanted = new Set(evidence);
  const found = (k: number) => documents.slice(0, k).filter((d) => wanted.has(d)).length / wanted.size;
  const first = documents.findIndex((d) => wanted.has(d));
  return { recallAt1: found(1), recallAt5: found(5), recallAt10: found(10), mrrAt10: first < 0 ? 0 : 1 / (first + 1) };
}

/**
 * Runs every question through every variant and scores it; `keyOf` maps a passage id to its
 * document's key. Returns scores by variant, overall and by question kind.
 */
export async function evaluate(
  set: EvalSet,
  variants: Record<string, Variant>,
  keyOf: (passageId: number) => string | undefined,
): Promise<Record<string, { all: Scores; byKind: Record<string, Scores> }>> {
  const result: Record<string, { all: Scores; byKind: Record<string, Scores> }> = {};
  for (const [name, search] of Object.entries(variants)) {
    const all = zero();
    const byKind: Record<string, Scores> = {};
    const times: number[] = [];
    for (const q of set.questions) {
      const started = performance.now();
      const passages = await search(q.question);
      times.push(performance.now() - started);
      const ranked = passages.map(keyOf).filter((k): k is string => k !== undefined);
      const s = scoreRanking(ranked, q.evidence);
      add(all, s);
      byKind[q.kind] ??= zero();
      add(byKind[q.kind]!, s);
    }
    times.sort((a, b) => a - b);
    result[name] = {
      all: { ...mean(all), msP50: times[Math.floor(times.length / 2)] ?? 0 },
      byKind: Object.fromEntries(Object.entries(byKind).map(([k, v]) => [k, mean(v)])),
    };
  }
  return result;
}

/** The main table (recall@1/5/10, MRR@10 per variant) and recall@5/10 and MRR@10 by question kind, in Markdown. */
export function formatScores(results: Awaited<ReturnType<typeof evaluate>>): string {
  const f = (x: number) => x.toFixed(3);
  const lines = [
    '| search | recall@1 | recall@5 | recall@10 | MRR@10 | ms a search (p50) |',
    '|---|---|---|---|---|---|',
  ];
  for (const [name, { all }] of Object.entries(results)) {
    lines.push(
      `| ${name} | ${f(all.recallAt1)} | ${f(all.recallAt5)} | ${f(all.recallAt10)} | ${f(all.mrrAt10)} | ${all.msP50.toFixed(2)} |`,
    );
  }
  const kinds = Object.keys(Object.values(results)[0]?.byKind ?? {});
  if (kinds.length > 1) {
    const counts = kinds.map((k) => `${k} (${Object.values(results)[0]!.byKind[k]!.questions})`);
    lines.push(
      '',
      `| recall@5 / recall@10 / MRR@10 by kind | ${counts.join(' | ')} |`,
      `|---|${kinds.map(() => '---|').join('')}`,
    );
    for (const [name, { byKind }] of Object.entries(results)) {
      const cell = (s: Scores) => `${f(s.recallAt5)} / ${f(s.recallAt10)} / ${f(s.mrrAt10)}`;
      lines.push(`| ${name} | ${kinds.map((k) => cell(byKind[k]!)).join(' | ')} |`);
    }
  }
  return lines.join('\n');
}

const zero = (): Scores => ({ questions: 0, recallAt1: 0, recallAt5: 0, recallAt10: 0, mrrAt10: 0, msP50: 0 });

function add(total: Scores, s: Omit<Scores, 'questions' | 'msP50'>): void {
  total.questions++;
  total.recallAt1 += s.recallAt1;
  total.recallAt5 += s.recallAt5;
  total.recallAt10 += s.recallAt10;
  total.mrrAt10 += s.mrrAt10;
}

function mean(s: Scores): Scores {
  const n = s.questions || 1;
  return {
    questions: s.questions,
    recallAt1: s.recallAt1 / n,
    recallAt5: s.recallAt5 / n,
    recallAt10: s.recallAt10 / n,
    mrrAt10: s.mrrAt10 / n,
    msP50: 0,
  };
}
