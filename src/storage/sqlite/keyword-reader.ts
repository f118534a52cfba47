/**
 * Keyword search on a thread of its own (keyword-reader-thread.ts), with a read-only connection to
 * the store's file: FTS5's BM25 ranks there on one core while the searching thread scans the
 * vectors on the other (docs/performance.md, issue 40). WAL lets that connection read beside the
 * server's writer, and each query reads the latest commit, so a passage forgotten before a search
 * is not found by it. A query the thread has not begun when the searching thread is done with its
 * scans is taken back and run there (`takeBack`): on a busy host the thread may wait for a core,
 * and a search must not wait longer than it would take to run. Each query's claim word in shared
 * memory holds its id while it is queued; one side or the other takes it (keyword-messages.ts).
 * A thread that fails to start or dies is not asked again: the queries it held, and every later
 * one, run on the store's own connection, as without it.
 */
import { Worker } from 'node:worker_threads';
import type { Logger } from '../../log';
import type { KeywordHit } from '../passages';
import { CLAIMS, type KeywordReply, type KeywordRequest, type KeywordSearch, TAKEN_BACK } from './keyword-messages';

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
  private readonly claims = new Int32Array(new SharedArrayBuffer(CLAIMS * 4));
  /** The query each claim word was last given to. */
  private readonly owners = new Int32Array(CLAIMS).fill(-1);

  /** Starts the thread on the store's `file`; it opens its connection on its own time (queries wait in its port). */
  constructor(
    file: string,
    private readonly log: Logger,
  ) {
    const worker = new Worker(ENTRY, { workerData: { file, claims: this.claims.buffer } });
    worker.on('message', (m: KeywordReply) => {
      if ('closed' in m) return;
      const waiter = this.waiting.get(m.id);
      this.settled(m.id);
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
    const id = this.next;
    const word = id % CLAIMS;
    // So many waiting that the word is still another's: this one runs here.
    if (this.waiting.has(this.owners[word]!)) return inThread();
    this.next = (id + 1) % 2 ** 30;
    this.owners[word] = id;
    Atomics.store(this.claims, word, id);
    // Held while a search waits on it: with nothing else keeping the event loop alive (a benchmark,
    // a command), Bun spun on an unheld thread's answer, ~3 ms of CPU a search at 100,000 passages.
    if (this.waiting.size === 0) worker.ref();
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject, inThread });
      worker.postMessage({ id, ...search } satisfies KeywordRequest);
    });
  }

  /** Runs on this thread every query the reader's thread has not begun (one it has begun is left to it). */
  takeBack(): void {
    for (const [id, waiter] of this.waiting) {
      if (Atomics.compareExchange(this.claims, id % CLAIMS, id, TAKEN_BACK) !== id) continue;
      this.settled(id);
      waiter.resolve(waiter.inThread());
    }
  }

  /** The query `id` needs the thread no more: the thread is let go once none does. */
  private settled(id: number): void {
    this.waiting.delete(id);
    if (this.waiting.size === 0 && !this.closing) this.worker?.unref();
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
