/**
 * A kept benchmark store (`bench/search-latency.ts --keep DIR`, seeded by the release before the
 * exchange) made into this tree's worst case for keyword search: migrated (0026), its keyword index
 * rebuilt to the end, and every passage given its neighbours' text (by id) as its context, as if
 * every passage were a chat turn between two others: about three times the text a row. Search
 * latency is then taken on it beside the old tree's on a copy of the same seed, alternated:
 *
 *   bun bench/search-latency.ts --passages 100000 --refine --keep A      # in the old tree
 *   cp -r A B && bun bench/exchange-store.ts B                            # in this tree
 *   then, taking turns: old tree `bun bench/search-latency.ts --passages 100000 --keep A`,
 *                       this tree `bun bench/search-latency.ts --passages 100000 --keep B`
 *
 * Prints how long the migration, the background rebuild and the contexts took.
 */
import { readFileSync } from 'node:fs';
import { createLogger } from '../src/log';
import { KeywordIndexRebuild } from '../src/storage/sqlite/fts-rebuild';
import { openDatabase } from '../src/storage/sqlite/open';

const dir = process.argv[2];
if (!dir) throw new Error('usage: bun bench/exchange-store.ts DIR');
const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
let t = performance.now();
const seconds = () => ((performance.now() - t) / 1000).toFixed(1);
const db = openDatabase(dir, Date.now());
console.log(`migrated in ${seconds()} s`);
t = performance.now();
const rebuild = new KeywordIndexRebuild(db, createLogger('warn'));
while (rebuild.step());
console.log(`keyword index rebuilt (as the learning worker does it, batch by batch) in ${seconds()} s, load ${load()}`);
t = performance.now();
db.run(
  "UPDATE passages SET context = (SELECT group_concat(q.content, ' ') FROM passages q WHERE q.id IN (passages.id - 1, passages.id + 1))",
);
console.log(`every passage's context written in ${seconds()} s`);
db.run('PRAGMA wal_checkpoint(TRUNCATE)');
db.close();
