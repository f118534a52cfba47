/**
 * Keyword search on PostgreSQL against SQLite's FTS5 BM25, on the two dev sets of
 * bench/retrieval-quality.ts (the conversational set, and PerLTQA when its path is given): every
 * document is learned by the server's own runner into a SQLite store,
 * and the same passages are stored in a PostgreSQL database. Prints recall@1/5/10 and MRR@10 of
 * SQLite's search, of the PostgreSQL store's search (the server's), and of the ranking variants
 * tried for it: ts_rank normalised by length, ts_rank_cd, and BM25 computed in SQL from the term
 * statistics of the container's passages.
 *
 *   bun bench/postgres-keyword.ts [--database URL] [--perltqa DIR] [--seed 17] [--store-only]
 *
 * --store-only leaves the variants out (BM25 in SQL takes seconds a question): SQLite's and the store's rankings.
 *
 * Without --database (or ENGRAM_DATABASE_URL), a throwaway server is started from the machine's
 * PostgreSQL binaries (scripts/postgres.sh), as the tests start theirs.
 */
import { parseArgs } from 'node:util';
import { SQL } from 'bun';
import { loadConfig } from '../src/config';
import { createEmbedders } from '../src/embedders/create-embedders';
import { openPostgresStore } from '../src/storage/postgres/postgres-store';
import { keywordQuery } from '../src/storage/postgres/keyword-query';
import { generateConversations, turnDocument } from './conversations/generate';
import { ACCOUNT, CONTAINER, learnCorpus } from './lib/learned-corpus';
import { newBenchDatabase } from './lib/postgres-database';
import { perltqaFolder, perltqaSet } from './lib/perltqa';
import { type EvalSet, evaluate, formatScores, type Variant } from './lib/retrieval-eval';

const { values } = parseArgs({
  options: {
    database: { type: 'string', default: process.env.ENGRAM_DATABASE_URL },
    perltqa: { type: 'string', default: process.env.ENGRAM_PERLTQA },
    seed: { type: 'string', default: '17' },
    'store-only': { type: 'boolean', default: false },
  },
});
const DEPTH = 10;
const { fast: fastEmbedder } = await createEmbedders(
  loadConfig({ ENGRAM_DATA_DIR: '/nonexistent', ENGRAM_EMBEDDER: 'fast' }),
);

const conversations = generateConversations(Number(values.seed));
const sets: EvalSet[] = [
  {
    name: `conversations (seed ${values.seed})`,
    documents: conversations.turns.map((t) => ({ key: t.id, text: turnDocument(t) })),
    questions: conversations.questions,
  },
];
if (values.perltqa && perltqaFolder(values.perltqa)) sets.push(perltqaSet(values.perltqa));
else console.log('PerLTQA skipped: pass --perltqa DIR');

/**
 * BM25 (k1 1.2, b 0.75; the title's words weigh half, as SQLite's bm25(…, 0.5, 1.0) has them) from
 * the container's term statistics: its passages' count and mean length, each term's document
 * frequency, and the term's count in the passage, all read from the tsvectors. FTS5's idf:
 * ln((N − df + 0.5) / (df + 0.5)), at least 1e-6.
 */
const BM25 = `
  WITH q AS (SELECT to_tsquery('english', $1) AS q),
  terms AS (SELECT DISTINCT lexeme FROM q, unnest(tsvector_to_array(to_tsvector('english', replace($1, ' | ', ' ')))) AS lexeme),
  scope AS (SELECT passage_id AS id, keywords FROM passage_keywords WHERE container_id = $2),
  sized AS (SELECT id, keywords, (SELECT coalesce(sum(array_length(positions, 1)), 0) FROM unnest(keywords)) AS len FROM scope),
  stats AS (SELECT count(*)::float8 AS n, avg(len)::float8 AS avglen FROM sized),
  df AS (SELECT t.lexeme, (SELECT count(*) FROM scope s WHERE s.keywords @@ to_tsquery('simple', quote_literal(t.lexeme)))::float8 AS df FROM terms t),
  hits AS (SELECT s.id, s.len, u.lexeme,
                  (SELECT sum(CASE w WHEN 'B' THEN 0.5 ELSE 1.0 END) FROM unnest(u.weights) AS w) AS tf
             FROM sized s, q, unnest(s.keywords) AS u
            WHERE s.keywords @@ q.q AND u.lexeme IN (SELECT lexeme FROM terms))
  SELECT h.id, sum(greatest(ln((st.n - df.df + 0.5) / (df.df + 0.5)), 1e-6) * h.tf * 2.2 / (h.tf + 1.2 * (0.25 + 0.75 * h.len / st.avglen))) AS score
    FROM hits h JOIN df ON df.lexeme = h.lexeme, stats st
   GROUP BY h.id ORDER BY score DESC, h.id LIMIT $3`;

for (const set of sets) {
  // The fast tier only because the corpus's passages are listed through what learning indexed; vectors play no part here.
  const corpus = await learnCorpus(set.documents, { fast: fastEmbedder, strong: null });
  const url = await newBenchDatabase(values.database, `engram_keyword_${process.pid}_${sets.indexOf(set)}`);
  const pg = await openPostgresStore(url);
  await pg.accounts.insert({ id: ACCOUNT, email: 'bench@example.org', passwordHash: '-', createdAt: 0 });
  await pg.containers.insert(CONTAINER);
  // The same passages, document by document, under the same keys.
  const keyOfPg = new Map<number, string>();
  const ids = Array.from({ length: await corpus.store.passages.lastId() }, (_, i) => i + 1);
  const byDocument = new Map<string, number[]>();
  for (let i = 0; i < ids.length; i += 1000) {
    for (const hit of await corpus.store.passages.getHits(ACCOUNT, ids.slice(i, i + 1000))) {
      if (hit.documentId) byDocument.set(hit.documentId, [...(byDocument.get(hit.documentId) ?? []), hit.passageId]);
    }
  }
  await pg.transaction(async (tx) => {
    for (const documentId of byDocument.keys()) {
      const doc = (await corpus.store.documents.get(ACCOUNT, documentId))!;
      await tx.documents.insert(doc);
      const stored = await tx.passages.replaceForDocument(doc, await corpus.store.passages.list(ACCOUNT, documentId));
      const key = corpus.keyOf(byDocument.get(documentId)![0]!)!;
      for (const id of stored) keyOfPg.set(id, key);
    }
  });
  const raw = new SQL({ url, max: 1 });
  await raw`ANALYZE passage_keywords`;
  const sqlRank =
    (rank: string): Variant =>
    async (q) => {
      const match = keywordQuery(q);
      if (!match) return [];
      const rows = await raw.unsafe(
        `SELECT passage_id AS id, ${rank} AS score FROM passage_keywords, to_tsquery('english', $1) q
      WHERE keywords @@ q AND container_id = $2 ORDER BY score DESC, passage_id LIMIT $3`,
        [match, CONTAINER.id, DEPTH],
      );
      return rows.map((r: { id: string }) => Number(r.id));
    };
  const variants: Record<string, Variant> = {
    'PostgreSQL ts_rank, weights title 0.5 text 1.0 (the store)': async (q) =>
      (await pg.passages.search(ACCOUNT, [CONTAINER.id], q, DEPTH)).map((h) => h.passageId),
    'PostgreSQL ts_rank, normalised by 1 + log(length)': sqlRank("ts_rank('{1.0, 0, 0.5, 0}', keywords, q, 1)"),
    'PostgreSQL ts_rank_cd': sqlRank("ts_rank_cd('{1.0, 0, 0.5, 0}', keywords, q)"),
    'PostgreSQL BM25 from term statistics, in SQL': async (q) => {
      const match = keywordQuery(q);
      if (!match) return [];
      return (await raw.unsafe(BM25, [match, CONTAINER.id, DEPTH])).map((r: { id: string }) => Number(r.id));
    },
  };
  const sqlite = await evaluate(
    set,
    {
      'SQLite FTS5 BM25 (the store)': async (q) =>
        (await corpus.store.passages.search(ACCOUNT, [CONTAINER.id], q, DEPTH)).map((h) => h.passageId),
    },
    corpus.keyOf,
  );
  const tried = values['store-only'] ? Object.fromEntries(Object.entries(variants).slice(0, 1)) : variants;
  const postgres = await evaluate(set, tried, (id) => keyOfPg.get(id));
  console.log(
    `\n${set.name}: ${set.documents.length} documents, ${ids.length} passages, ${set.questions.length} questions\n`,
  );
  console.log(formatScores({ ...sqlite, ...postgres }));
  await raw.close();
  await pg.close();
  await corpus.close();
}
process.exit(0);
