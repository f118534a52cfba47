/**
 * The exchange's backfill on a store from before it: how long a start takes to give every turn
 * its context in the background, and what searches meanwhile take. A copy of the store is started
 * (the store itself is never written); a search is asked every 200 ms until the backfill is done,
 * then 100 more, each tagged with what the learning thread was doing: rebuilding the keyword index
 * (migration 0026), backfilling, or neither.
 *
 *   bun bench/exchange-backfill.ts --store DIR [--turns] [--work DIR] [--embedder builtin|fast|none]
 *
 * DIR is a data directory (its key in `bench-key`, as bench/lib/seed.ts keeps one), such as one
 * kept by `bench/search-latency.ts --passages 100000 --keep DIR` with a release before 0026.
 * --turns first makes the copy's every passage a chat turn of its own (a document each, with a
 * message header), as a store of chat messages is; without it, the seeded store's documents of
 * two passages are no turns, and the backfill walks them and writes nothing. A copy already past
 * 0026 gets its contexts emptied and the backfill owed again.
 */
import { Database } from 'bun:sqlite';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { percentile, query, seeded } from './lib/corpus';
import { serve } from './lib/engram-process';

const { values } = parseArgs({
  options: {
    store: { type: 'string' },
    turns: { type: 'boolean', default: false },
    work: { type: 'string' },
    embedder: { type: 'string', default: 'builtin' },
  },
});
if (!values.store) throw new Error('--store DIR is required');
const dir = mkdtempSync(join(values.work ?? tmpdir(), 'engram-backfill-'));
cpSync(values.store, dir, { recursive: true });
rmSync(join(dir, 'server.lock'), { force: true });
const key = readFileSync(join(dir, 'bench-key'), 'utf8').trim();

/** Every passage a document of its own, its text opening with a message header: a chat of 300 turns a day. */
function makeTurns(db: Database): void {
  const columns = db
    .query<{ name: string }, []>('PRAGMA table_info(documents)')
    .all()
    .map((c) => c.name);
  const copied = columns.map((c) =>
    c === 'id' ? "d.id || '_' || p.position" : c === 'created_at' ? 'd.created_at + p.position' : `d.${c}`,
  );
  // The keyword index's triggers are set aside meanwhile, and the index rebuilt from the rows once:
  // 150,000 row updates through them (secure-delete) took over ten minutes.
  const triggers = db
    .query<{ name: string; sql: string }, []>(
      "SELECT name, sql FROM sqlite_schema WHERE type = 'trigger' AND tbl_name = 'passages' AND sql LIKE '%_fts%'",
    )
    .all();
  db.transaction(() => {
    for (const t of triggers) db.run(`DROP TRIGGER ${t.name}`);
    db.run(`INSERT INTO documents (${columns.join(', ')})
            SELECT ${copied.join(', ')} FROM passages p JOIN documents d ON d.id = p.document_id WHERE p.position > 0`);
    db.run("UPDATE passages SET document_id = document_id || '_' || position, position = 0 WHERE position > 0");
    db.run(`UPDATE passages SET content = printf('[%d March 2024, %02d:%02d] %s: ', 1 + (id / 300) % 28,
              8 + (id % 300) / 60, id % 60, CASE id % 2 WHEN 0 THEN 'Ann' ELSE 'Bo' END) || content`);
    for (const t of triggers) db.run(t.sql);
    db.run("INSERT INTO passages_fts (passages_fts) VALUES ('rebuild')");
  })();
}

const db = new Database(join(dir, 'engram.db'));
const hasContext = db
  .query<{ name: string }, []>('PRAGMA table_info(passages)')
  .all()
  .some((c) => c.name === 'context');
if (values.turns) makeTurns(db);
if (hasContext) {
  db.run('UPDATE passages SET context = NULL');
  db.run("INSERT OR REPLACE INTO settings (key, value) VALUES ('exchange_backfill', '')");
}
const turns = db
  .query<{ n: number }, []>(
    "SELECT count(*) AS n FROM passages WHERE position = 0 AND content LIKE '[%' AND document_id NOT IN (SELECT document_id FROM passages WHERE position > 0)",
  )
  .get()!.n;
db.close();

const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
const loadAtStart = load();
const server = await serve(dir, { ENGRAM_EMBEDDER: values.embedder!, ENGRAM_LOG_LEVEL: 'info' });
const started = performance.now();
const cpuAtStart = server.cpuSeconds();
const marks: Record<string, { at: number; cpu: number; load: string }> = {};
const phase = (): string => {
  const log = readFileSync(server.logFile, 'utf8');
  for (const [name, msg] of [
    ['keyword index switched', 'keyword search switched to the stemmed index'],
    ['backfill done', 'the exchange backfill is done'],
  ] as const)
    if (!marks[name] && log.includes(msg))
      marks[name] = { at: performance.now() - started, cpu: server.cpuSeconds() - cpuAtStart, load: load() };
  if (marks['backfill done']) return 'after';
  return log.includes('keyword search uses the old index') && !marks['keyword index switched']
    ? 'keyword rebuild'
    : 'backfill';
};
const times: Record<string, number[]> = {};
const random = seeded(7);
for (let after = 0; after < 100; ) {
  const now = phase();
  const t0 = performance.now();
  const res = await fetch(`${server.url}/v1/search`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ q: query(random), limit: 10 }),
  });
  await res.json();
  if (!res.ok) throw new Error(`search answered ${res.status}`);
  times[now] = [...(times[now] ?? []), performance.now() - t0];
  if (now === 'after') after++;
  else await Bun.sleep(200);
  if (performance.now() - started > 3_600_000) throw new Error('the backfill took over an hour');
}
const doneLine = readFileSync(server.logFile, 'utf8')
  .split('\n')
  .find((l) => l.includes('the exchange backfill is done'));
await server.stop();
rmSync(dir, { recursive: true, force: true });

const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
console.log(
  `store: ${values.store}${values.turns ? ', made turns' : ''}; turns: ${turns}; load at start ${loadAtStart}`,
);
for (const [name, m] of Object.entries(marks))
  console.log(`${name}: ${s(m.at)} after start, server CPU ${m.cpu.toFixed(1)} s, load ${m.load}`);
console.log(`the backfill's own report: ${doneLine}`);
for (const [name, list] of Object.entries(times)) {
  list.sort((a, b) => a - b);
  console.log(
    `search during ${name}: ${list.length} searches, p50 ${percentile(list, 50).toFixed(1)} ms, p95 ${percentile(list, 95).toFixed(1)} ms`,
  );
}
