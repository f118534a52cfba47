/**
 * Which PostgreSQL driver the store is written over (docs/decisions.md): Bun's built-in SQL client,
 * as the store uses it, against drizzle over postgres-js (npm) and drizzle over Bun's client, on
 * the store's hot paths. Each client gets a database of its own seeded alike (5,000 passages of
 * ~400 bytes, 3,000 queued jobs); each path runs alternately, several rounds, and prints the median
 * wall time and the process's CPU time per operation:
 *   - a plain read by id (documents.get: most repository calls look like it);
 *   - the keyword query (full-text search of one container, ranked, top 10);
 *   - a learned document's batched write (its 8 passages replaced, 3 vectors each, the document
 *     learned, the job done: one transaction);
 *   - a jobs claim (32 of the oldest ready jobs, FOR UPDATE SKIP LOCKED, marked running).
 *
 *   bun bench/postgres-driver.ts [--database URL] [--rounds 5]
 *
 * Without --database, a throwaway server is started from the machine's binaries (scripts/postgres.sh).
 */
import { parseArgs } from 'node:util';
import { SQL } from 'bun';
import { and, desc, eq, inArray, lte, sql as dsql } from 'drizzle-orm';
import { drizzle as drizzleBun } from 'drizzle-orm/bun-sql';
import { bigint, boolean, customType, integer, pgTable, text } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePostgresJs } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import { newId } from '../src/ids';
import { completeDocument, insertDocument } from '../src/learning/queue';
import { keywordQuery } from '../src/storage/postgres/keyword-query';
import { openPostgresStore, type PostgresStore } from '../src/storage/postgres/postgres-store';
import { storedVector } from '../src/storage/stored-vector';
import { documentText, query, seeded } from './lib/corpus';
import { newBenchDatabase } from './lib/postgres-database';
import { queuedDocument } from './lib/queued-document';

const { values } = parseArgs({
  options: {
    database: { type: 'string', default: process.env.ENGRAM_DATABASE_URL },
    rounds: { type: 'string', default: '5' },
  },
});
const ROUNDS = Number(values.rounds);
const ACCOUNT = 'acc_bench';
const CONTAINER = 'ctr_bench';
const PASSAGES_A_DOCUMENT = 8;
const DIMENSIONS = 256;

const database = () =>
  newBenchDatabase(values.database, `engram_bench_${process.pid}_${Math.random().toString(36).slice(2, 8)}`);

const documentRow = (id: string, content: string) =>
  queuedDocument({ id, accountId: ACCOUNT, containerId: CONTAINER, content }, 1);
const passagesOf = (random: () => number) =>
  Array.from({ length: PASSAGES_A_DOCUMENT }, (_, position) => ({
    position,
    title: null,
    content: documentText(random, 400),
  }));
const vectorsOf = (random: () => number) =>
  Array.from({ length: PASSAGES_A_DOCUMENT }, () =>
    Array.from({ length: 3 }, () => Float32Array.from({ length: DIMENSIONS }, () => random() - 0.5)),
  );

/** A database seeded alike for each client: 5,000 passages learned, 3,000 documents queued for the write path. */
async function seed(): Promise<{ url: string; queued: string[]; documents: string[] }> {
  const url = await database();
  const store = await openPostgresStore(url);
  const random = seeded(7);
  await store.accounts.insert({ id: ACCOUNT, email: 'bench@example.org', passwordHash: '-', createdAt: 0 });
  await store.containers.insert({
    id: CONTAINER,
    accountId: ACCOUNT,
    name: 'bench',
    description: '',
    createdAt: 0,
    updatedAt: 0,
  });
  const documents: string[] = [];
  for (let i = 0; i < 5_000 / PASSAGES_A_DOCUMENT; i++) {
    const id = newId('doc');
    documents.push(id);
    await store.transaction(async (tx) => {
      await insertDocument(tx, documentRow(id, 'seed'));
      const [job] = await tx.jobs.claim(2, 1);
      await completeDocument(tx, job!, passagesOf(random), vectorsOf(random), 3);
    });
  }
  const queued: string[] = [];
  await store.transaction(async (tx) => {
    for (let i = 0; i < 3_000; i++) {
      const id = newId('doc');
      queued.push(id);
      await insertDocument(tx, documentRow(id, 'queued'), { mode: 'learn' }, 10);
    }
  });
  await store.close();
  const analyze = new SQL({ url, max: 1 });
  await analyze`VACUUM ANALYZE`;
  await analyze.close();
  return { url, queued, documents };
}

/** The operations of one client. */
interface Client {
  get(id: string): Promise<unknown>;
  search(q: string): Promise<number[]>;
  learn(job: { id: number; documentId: string }, random: () => number): Promise<void>;
  claim(): Promise<{ id: number; documentId: string }[]>;
  close(): Promise<void>;
}

async function storeClient(url: string): Promise<Client> {
  const store: PostgresStore = await openPostgresStore(url);
  return {
    get: (id) => store.documents.get(ACCOUNT, id),
    search: async (q) => (await store.passages.search(ACCOUNT, [CONTAINER], q, 10)).map((h) => h.passageId),
    learn: (job, random) =>
      store.transaction(async (tx) => {
        await completeDocument(
          tx,
          {
            id: job.id,
            accountId: ACCOUNT,
            kind: 'learn_document',
            documentId: job.documentId,
            memoryId: null,
            attempts: 1,
            rebuild: false,
            bulk: false,
          },
          passagesOf(random),
          vectorsOf(random),
          4,
        );
      }),
    claim: async () => (await store.jobs.claim(100, 32)).map((j) => ({ id: j.id, documentId: j.documentId! })),
    close: () => store.close(),
  };
}

// Drizzle's view of the tables the paths touch (the store's own schema is migrations/postgres/).
const bytea = customType<{ data: Uint8Array }>({ dataType: () => 'bytea' });
const documents = pgTable('documents', {
  id: text('id').primaryKey(),
  accountId: text('account_id').notNull(),
  containerId: text('container_id').notNull(),
  title: text('title'),
  content: text('content'),
  url: text('url'),
  customId: text('custom_id'),
  metadata: text('metadata'),
  status: text('status').notNull(),
  error: text('error'),
  createdAt: bigint('created_at', { mode: 'number' }).notNull(),
  updatedAt: bigint('updated_at', { mode: 'number' }).notNull(),
  learnedAt: bigint('learned_at', { mode: 'number' }),
});
const passages = pgTable('passages', {
  id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
  accountId: text('account_id').notNull(),
  containerId: text('container_id').notNull(),
  documentId: text('document_id'),
  memoryId: text('memory_id'),
  position: integer('position').notNull(),
  title: text('title'),
  content: text('content').notNull(),
});
const passageKeywords = pgTable('passage_keywords', {
  passageId: bigint('passage_id', { mode: 'number' }).primaryKey(),
  accountId: text('account_id').notNull(),
  containerId: text('container_id').notNull(),
});
const passageVectors = pgTable('passage_vectors', {
  passageId: bigint('passage_id', { mode: 'number' }).notNull(),
  tier: text('tier').notNull(),
  unit: integer('unit').notNull(),
  embedding: bytea('embedding').notNull(),
});
const jobs = pgTable('jobs', {
  id: bigint('id', { mode: 'number' }).primaryKey(),
  documentId: text('document_id'),
  state: text('state').notNull(),
  attempts: integer('attempts').notNull(),
  runAfter: bigint('run_after', { mode: 'number' }).notNull(),
  updatedAt: bigint('updated_at', { mode: 'number' }).notNull(),
  leaseUntil: bigint('lease_until', { mode: 'number' }),
  rebuild: boolean('rebuild').notNull(),
});

type Drizzle = ReturnType<typeof drizzleBun> | ReturnType<typeof drizzlePostgresJs>;

function drizzleClient(db: Drizzle, close: () => Promise<void>): Client {
  return {
    get: async (id) =>
      (
        await db
          .select()
          .from(documents)
          .where(and(eq(documents.accountId, ACCOUNT), eq(documents.id, id)))
      )[0] ?? null,
    async search(q) {
      const match = keywordQuery(q);
      if (!match) return [];
      const tsq = dsql`to_tsquery('english', ${match})`;
      const score = dsql<number>`ts_rank('{1.0, 0, 0.5, 0}', keywords, ${tsq})`;
      const rows = await db
        .select({ id: passageKeywords.passageId, score })
        .from(passageKeywords)
        .where(
          and(
            dsql`keywords @@ ${tsq}`,
            eq(passageKeywords.containerId, CONTAINER),
            eq(passageKeywords.accountId, ACCOUNT),
          ),
        )
        .orderBy(desc(score), passageKeywords.passageId)
        .limit(10);
      return rows.map((r) => r.id);
    },
    learn: (job, random) =>
      (db as ReturnType<typeof drizzleBun>).transaction(async (tx) => {
        const [doc] = await tx
          .select()
          .from(documents)
          .where(and(eq(documents.accountId, ACCOUNT), eq(documents.id, job.documentId)));
        await tx.delete(passages).where(eq(passages.documentId, doc!.id));
        const ids = (
          await tx
            .insert(passages)
            .values(
              passagesOf(random).map((p) => ({
                accountId: ACCOUNT,
                containerId: CONTAINER,
                documentId: doc!.id,
                ...p,
              })),
            )
            .returning({ id: passages.id })
        ).map((r) => r.id);
        const vectors = vectorsOf(random);
        await tx.execute(dsql`SELECT id FROM passages WHERE id IN ${ids} FOR KEY SHARE`);
        await tx
          .delete(passageVectors)
          .where(and(eq(passageVectors.tier, 'fast'), inArray(passageVectors.passageId, ids)));
        await tx
          .insert(passageVectors)
          .values(
            ids.flatMap((passageId, i) =>
              vectors[i]!.map((v, unit) => ({ passageId, tier: 'fast', unit, embedding: storedVector(v) })),
            ),
          );
        await tx
          .update(documents)
          .set({ status: 'learned', error: null, learnedAt: 4, updatedAt: 4 })
          .where(and(eq(documents.accountId, ACCOUNT), eq(documents.id, doc!.id)));
        await tx.update(jobs).set({ state: 'done', updatedAt: 4 }).where(eq(jobs.id, job.id));
      }),
    async claim() {
      const ready = db
        .select({ id: jobs.id })
        .from(jobs)
        .where(
          and(
            inArray(jobs.state, ['queued', 'running']),
            lte(dsql`CASE ${jobs.state} WHEN 'queued' THEN ${jobs.runAfter} ELSE ${jobs.leaseUntil} END`, 100),
          ),
        )
        .orderBy(jobs.runAfter, jobs.id)
        .limit(32)
        .for('update', { skipLocked: true });
      const rows = await db
        .update(jobs)
        .set({ state: 'running', attempts: dsql`${jobs.attempts} + 1`, updatedAt: 100, leaseUntil: 100 + 120_000 })
        .where(inArray(jobs.id, ready))
        .returning({ id: jobs.id, documentId: jobs.documentId });
      return rows.map((r) => ({ id: r.id, documentId: r.documentId! })).sort((a, b) => a.id - b.id);
    },
    close,
  };
}

const clients: Record<string, (url: string) => Promise<Client>> = {
  "Bun's SQL, as the store uses it": storeClient,
  'drizzle over postgres-js': async (url) => {
    const client = postgres(url, { max: 10 });
    return drizzleClient(drizzlePostgresJs(client), () => client.end());
  },
  "drizzle over Bun's SQL": async (url) => {
    const client = new SQL({ url, max: 10 });
    return drizzleClient(drizzleBun({ client }), () => client.close());
  },
};

/** Median wall µs and CPU µs per operation of `n` runs of `op`, one at a time. */
async function measure(n: number, op: (i: number) => Promise<unknown>): Promise<{ wall: number; cpu: number }> {
  const cpu = process.cpuUsage();
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const started = performance.now();
    await op(i);
    times.push(performance.now() - started);
  }
  const used = process.cpuUsage(cpu);
  times.sort((a, b) => a - b);
  return { wall: times[Math.floor(n / 2)]! * 1000, cpu: (used.user + used.system) / n };
}

const seeds = Object.fromEntries(
  await Promise.all(Object.keys(clients).map(async (name) => [name, await seed()] as const)),
);
const results: Record<string, Record<string, { wall: number; cpu: number }[]>> = {};
const record = (name: string, path: string, figure: { wall: number; cpu: number }) => {
  const row = results[name] ?? {};
  results[name] = row;
  row[path] = [...(row[path] ?? []), figure];
};
const random = seeded(11);
const queries = Array.from({ length: 500 }, () => query(random));
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, open] of Object.entries(clients)) {
    const { url, documents: docs, queued } = seeds[name]!;
    const client = await open(url);
    record(name, 'get', await measure(1_000, (i) => client.get(docs[i % docs.length]!)));
    record(name, 'search', await measure(queries.length, (i) => client.search(queries[i]!)));
    // Each round claims 10 batches of the queued jobs, and learns the first 60 of them.
    const claimed: { id: number; documentId: string }[] = [];
    record(name, 'claim', await measure(10, async () => claimed.push(...(await client.claim()))));
    if (claimed.length < 60 || !queued.length) throw new Error('the queue ran dry: fewer rounds');
    const learnRandom = seeded(round);
    record(name, 'learn', await measure(60, (i) => client.learn(claimed[i]!, learnRandom)));
    await client.close();
  }
}

const median = (xs: number[]) => xs.toSorted((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(`\n${ROUNDS} rounds, alternated; median of the rounds' medians (wall) and means (CPU), µs per operation\n`);
console.log('| client | documents.get | keyword query | jobs claim (32) | learned document written |');
console.log('|---|---|---|---|---|');
for (const [name, row] of Object.entries(results)) {
  const cell = (k: string) =>
    `${median(row[k]!.map((r) => r.wall)).toFixed(0)} wall, ${median(row[k]!.map((r) => r.cpu)).toFixed(0)} CPU`;
  console.log(`| ${name} | ${cell('get')} | ${cell('search')} | ${cell('claim')} | ${cell('learn')} |`);
}
process.exit(0);
