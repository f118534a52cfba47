/**
 * A process that runs the exchange's backfill on a store in small batches and prints a line after
 * each, for exchange-backfill.test.ts to kill with SIGKILL in the middle.
 *
 *   bun test/e2e/learning/exchange-backfill-child.ts (DATA_DIR | DATABASE_URL) BATCH
 */
import { exchangeBackfill } from '../../../src/learning/exchange-backfill';
import { createLogger } from '../../../src/log';
import { openPostgresStore } from '../../../src/storage/postgres/postgres-store';
import { openDatabase } from '../../../src/storage/sqlite/open';
import { openSqliteStore } from '../../../src/storage/sqlite/sqlite-store';

const [where, batch] = process.argv.slice(2);
const store = where!.startsWith('postgres')
  ? await openPostgresStore(where!, { max: 2 })
  : openSqliteStore(openDatabase(where!, Date.now()));
const step = exchangeBackfill(store, createLogger('silent'), Number(batch));
while (await step()) {
  process.stdout.write('batch\n');
  await Bun.sleep(100); // time for the test to kill it mid-way on a loaded host
}
process.stdout.write('finished\n');
