/**
 * The search engine's indexes as a server starts on a store of several pages: filled between
 * turns, so the server answers at once; a search asked meanwhile waits for every vector; vectors
 * stored meanwhile are taken; a store that fails mid-way leaves search by keyword alone.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { loadStaticEmbedder } from '../../src/embedders/static-embedder';
import { createLogger } from '../../src/log';
import { SearchEngine } from '../../src/search/search-engine';
import type { Store } from '../../src/storage/store';
import { documentText, seeded } from '../../bench/lib/corpus';
import { ACCOUNT, CONTAINER, type LearnedCorpus, learnCorpus } from '../../bench/lib/learned-corpus';
import { scratchDir } from '../helpers/scratch';

const fast = loadStaticEmbedder();
/** Over two pages of the load (2,000 passages a page), one passage a document. */
const FILLER = 4_500;
const LAST = 'Grandmother keeps her bees behind the orchard wall.';
/** Shares no word with LAST (stemmed), so only its vector finds it. */
const QUERY = 'grandma beekeeping';

let corpus: LearnedCorpus;
let passages: number;
beforeAll(async () => {
  const random = seeded(5);
  const documents = Array.from({ length: FILLER }, (_, i) => ({ key: `d${i}`, text: documentText(random, 160) }));
  // Learned last: its passage is on the last page.
  documents.push({ key: 'last', text: LAST });
  corpus = await learnCorpus(documents, { fast, strong: null });
  passages = await corpus.store.passages.count();
}, 120_000);
afterAll(() => corpus.close());

const container = { ...CONTAINER };
const search = (engine: SearchEngine, q: string) => engine.search(ACCOUNT, [container], q, 5, 'tr_test');

describe('loading the indexes at start', () => {
  it('reads the vectors between turns, and a search asked at once waits for all of them', async () => {
    const engine = await SearchEngine.open({
      store: corpus.store,
      log: createLogger('silent'),
      embedders: { fast, strong: null },
      dataDir: scratchDir(),
    });
    try {
      expect(engine.indexes.figures().fast).toBe(0);
      const res = await search(engine, QUERY);
      expect(engine.indexes.figures().fast).toBe(passages);
      expect(res.hits[0]!.content).toBe(LAST);
    } finally {
      await engine.close();
    }
  });

  it('goes on by keyword alone when the store fails mid-way, and says so', async () => {
    let pages = 0;
    const real = corpus.store;
    const failing: Store = {
      ...real,
      vectors: {
        ...real.vectors,
        list: async (...args) => {
          if (++pages === 2) throw new Error('disk I/O error');
          return real.vectors.list(...args);
        },
      },
    };
    const lines: string[] = [];
    const engine = await SearchEngine.open({
      store: failing,
      log: createLogger('error', (l) => lines.push(l)),
      embedders: { fast, strong: null },
      dataDir: scratchDir(),
    });
    try {
      const res = await search(engine, 'grandmother bees orchard');
      expect(res.hits[0]!.content).toBe(LAST);
      expect(engine.indexes.figures()).toEqual({ fast: 0, strong: 0 });
      expect(lines.map((l) => JSON.parse(l))).toEqual([
        expect.objectContaining({ level: 'error', error: 'Error: disk I/O error' }),
      ]);
    } finally {
      await engine.close();
    }
  });

  it('stops loading when closed', async () => {
    const engine = await SearchEngine.open({
      store: corpus.store,
      log: createLogger('silent'),
      embedders: { fast, strong: null },
      dataDir: scratchDir(),
    });
    await engine.close();
    expect(engine.indexes.figures().fast).toBeLessThan(passages);
  });

  it('takes vectors stored while it loads, for a passage it has already read', async () => {
    const { store } = corpus;
    const first = (await store.vectors.list('fast', 0, 1))[0]!;
    const engine = await SearchEngine.open({
      store: store,
      log: createLogger('silent'),
      embedders: { fast, strong: null },
      dataDir: scratchDir(),
    });
    try {
      while (engine.indexes.figures().fast === 0) await new Promise((resolve) => setImmediate(resolve));
      expect(engine.indexes.figures().fast).toBeLessThan(passages);
      // As the learning thread re-embeds a passage: stored, then indexed.
      const [vector] = fast.embed([QUERY]);
      await store.vectors.put('fast', [{ passageId: first.passageId, vectors: [vector!] }]);
      await engine.indexes.indexPassages('fast', [first.passageId]);
      const res = await search(engine, QUERY);
      expect(res.hits[0]!.content).toBe((await store.passages.getHits(ACCOUNT, [first.passageId]))[0]!.content);
      expect(engine.indexes.figures().fast).toBe(passages);
    } finally {
      await engine.close();
      await store.vectors.put('fast', [
        { passageId: first.passageId, vectors: first.vectors.map((v) => Float32Array.from(v)) },
      ]);
    }
  });
});
