/**
 * The keyword reader's thread (keyword-reader.ts): the store's own keyword search
 * (passages-repository.ts `search`, the same query) on a read-only connection, one query at a time.
 * A connection that fails to open throws here, which ends the thread: the store then searches on
 * its own connection.
 */
import { Database } from 'bun:sqlite';
import { parentPort, workerData } from 'node:worker_threads';
import { sqliteContext } from './context';
import type { KeywordReply, KeywordRequest } from './keyword-messages';
import { PAGE_CACHE_KIB } from './open';
import { passagesRepository } from './passages-repository';

const port = parentPort!;
const db = new Database((workerData as { file: string }).file, { readonly: true, strict: true });
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
  const { id, accountId, containerId, query, limit } = request;
  try {
    port.postMessage({ id, hits: passages.search(accountId, containerId, query, limit) } satisfies KeywordReply);
  } catch (err) {
    port.postMessage({ id, error: err instanceof Error ? err.message : String(err) } satisfies KeywordReply);
  }
});
