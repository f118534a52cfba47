/**
 * The keyword reader's thread (keyword-reader.ts): the store's own keyword search
 * (passages-repository.ts `search`, the same query) on a read-only connection, one query at a time;
 * a query the searching thread has taken back meanwhile is skipped, unanswered.
 * A connection that fails to open throws here, which ends the thread: the store then searches on
 * its own connection.
 */
import { Database } from 'bun:sqlite';
import { parentPort, workerData } from 'node:worker_threads';
import { sqliteContext } from './context';
import { BEGUN, CLAIMS, type KeywordReply, type KeywordRequest } from './keyword-messages';
import { PAGE_CACHE_KIB } from './open';
import { passagesRepository } from './passages-repository';

const port = parentPort!;
const { file, claims: shared } = workerData as { file: string; claims: SharedArrayBuffer };
const claims = new Int32Array(shared);
const db = new Database(file, { readonly: true, strict: true });
db.run('PRAGMA busy_timeout = 5000');
// The keyword index's sizes table is read on every search (open.ts): this connection caches it now.
db.run(`PRAGMA cache_size = -${PAGE_CACHE_KIB}`);
const ctx = sqliteContext(db);
const passages = passagesRepository(ctx);
port.on('message', (request: KeywordRequest) => {
  if ('close' in request) {
    ctx.statements.finalize();
    db.close();
    port.postMessage({ closed: true } satisfies KeywordReply);
    return;
  }
  const { id, accountId, containerIds, query, limit } = request;
  if (Atomics.compareExchange(claims, id % CLAIMS, id, BEGUN) !== id) return;
  try {
    port.postMessage({ id, hits: passages.search(accountId, containerIds, query, limit) } satisfies KeywordReply);
  } catch (err) {
    port.postMessage({ id, error: err instanceof Error ? err.message : String(err) } satisfies KeywordReply);
  }
});
