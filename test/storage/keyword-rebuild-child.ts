/**
 * A process that rebuilds a store's keyword index in small batches and prints the mark after each,
 * for fts-migration.test.ts to kill with SIGKILL in the middle.
 *
 *   bun test/storage/keyword-rebuild-child.ts DATA_DIR BATCH
 */
import { createLogger } from '../../src/log';
import { KeywordIndexRebuild } from '../../src/storage/sqlite/fts-rebuild';
import { openDatabase } from '../../src/storage/sqlite/open';

const [dataDir, batch] = process.argv.slice(2);
const db = openDatabase(dataDir!, Date.now());
const rebuild = new KeywordIndexRebuild(db, createLogger('silent'), Number(batch));
while (rebuild.step()) {
  process.stdout.write(`${db.query<{ done: number }, []>('SELECT done FROM keyword_index_rebuild').get()!.done}\n`);
  await Bun.sleep(5);
}
process.stdout.write('finished\n');
