/**
 * Keyword search on a thread of its own (keyword-reader-thread.ts), with a read-only connection to
 * the store's file: FTS5's BM25 ranks there on one core while the searching thread scans the
 * vectors on the other (docs/performance.md, issue 40). WAL lets that connection read beside the
 * server's writer, and each query reads the latest commit, so a passage forgotten before a search
 * is not found by it. A thread that fails to start or dies is not asked again: the queries it
 * held, and every later one, run on the store's own connection, as without it.
 */
import { Worker } from 'node:worker_threads';
import type { Logger } from '../../log';
import type { KeywordHit } from '../passages';
import type { KeywordReply, KeywordRequest, KeywordSearch } from './keyword-messages';

/** In a compiled binary the thread is an entrypoint of its own (scripts/build.ts); from a checkout it sits beside this file. */
const ENTRY = import.meta.url.includes('/$bunfs/')
  ? './src/storage/sqlite/keyword-reader-thread.ts'
  : new URL('./keyword-reader-thread.ts', import.meta.url);

interface Waiting {
  resolve(hits: KeywordHit[] | Promise<KeywordHit[]>): void;
  reject(err: Error): void;
  inThread(): Promise<KeywordHit[]>;
}

export class KeywordReader {
  private worker: Worker | null;
  private readonly waiting = new Map<number, Waiting>();
  private next = 0;
  private closing = false;

  /** Starts the thread on the store's `file`; it opens its connection on its own time (queries wait in its port). */
  constructor(
    file: string,
    private readonly log: Logger,
  ) {
    const worker = new Worker(ENTRY, { workerData: { file } });
    worker.on('message', (m: KeywordReply) => {
      if ('closed' in m) return;
      const waiter = this.waiting.get(m.id);
      this.waiting.delete(m.id);
      if (this.waiting.size === 0 && !this.closing) worker.unref();
      if ('hits' in m) waiter?.resolve(m.hits);
      else waiter?.reject(new Error(m.error));
    });
    worker.on('error', (err) => this.gone(err as Error));
    worker.on('exit', () => this.gone(new Error('the keyword reader stopped')));
    worker.unref();
    this.worker = worker;
  }

  /**
   * The search's hits from the thread; a query SQLite refuses rejects as it would in-thread.
   * `inThread` answers instead once the thread is gone.
   */
  search(search: KeywordSearch, inThread: () => Promise<KeywordHit[]>): Promise<KeywordHit[]> {
    const { worker } = this;
    if (!worker) return inThread();
    const id = this.next++;
    // Held while a search waits on it: with nothing else keeping the event loop alive (a benchmark,
    // a command), Bun spun on an unheld thread's answer, ~3 ms of CPU a search at 100,000 passages.
    if (this.waiting.size === 0) worker.ref();
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject, inThread });
      worker.postMessage({ id, ...search } satisfies KeywordRequest);
    });
  }

  /** Ends the thread once the queries before have been answered; its connection closes first. */
  async close(): Promise<void> {
    const { worker } = this;
    if (!worker) return;
    this.closing = true;
    worker.ref();
    const closed = new Promise<void>((resolve) => {
      worker.on('message', (m: KeywordReply) => 'closed' in m && resolve());
      worker.once('exit', () => resolve());
    });
    worker.postMessage({ close: true } satisfies KeywordRequest);
    await closed;
    await worker.terminate();
  }

  /** The thread failed or ended: what it held, and every later search, runs on the store's connection. */
  private gone(err: Error): void {
    if (!this.worker) return;
    this.worker = null;
    if (!this.closing)
      this.log.warn('the keyword reader thread stopped; keyword search runs on the request thread', {
        error: String(err),
      });
    for (const w of this.waiting.values()) w.resolve(w.inThread());
    this.waiting.clear();
  }
}
