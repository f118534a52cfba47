/**
 * The search engine when a tier's query embedding fails (the strong model's thread died, or the
 * embedder throws before it can answer): that tier is left out of the search, which still answers
 * from keyword search and the other tier, and says so in the log. And keyword search over several
 * containers: asked of every container at once while the vectors are scanned, a container whose
 * search failed reported as failed and left out of the answer altogether. And a store the strong
 * tier has refined only in part: a passage not reached yet is not buried under refined ones.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import type { Embedder } from '../../src/embedders/embedder';
import { loadStaticEmbedder } from '../../src/embedders/static-embedder';
import { createLogger } from '../../src/log';
import * as ops from '../../src/operations/index';
import { SearchEngine } from '../../src/search/search-engine';
import type { Container, KeywordHit, Store } from '../../src/storage/store';
import { type Harness, openHarness } from '../helpers/operations';
import { scratchDir } from '../helpers/scratch';

const fast = loadStaticEmbedder();
const STRONG_DIMENSIONS = 384;

/** A strong tier that never gives a vector, failing either way an embedder can. */
const failing = (how: 'rejects' | 'throws'): Embedder => ({
  id: 'test:failing',
  dimensions: STRONG_DIMENSIONS,
  embed: () => {
    if (how === 'throws') throw new Error('the model is not loaded');
    return Promise.reject(new Error('the query embedder stopped'));
  },
});

describe('search with a failing query embedder', () => {
  let h: Harness;
  let accountId: string;

  beforeAll(async () => {
    h = await openHarness(['notes']);
    const { store } = h.services;
    for (const content of [
      'My sister plays the violin every evening.',
      'The dentist appointment is on Tuesday.',
      'We booked flights to Lisbon.',
    ]) {
      await h.run(ops.addDocument, h.owner, { container: h.containers.notes, content });
    }
    await h.learn(fast);
    // Strong vectors for every passage, so that the strong tier is searched (and its query asked for).
    const passages = await store.passages.listWithoutVectors('strong', 0, 100);
    expect(passages.length).toBe(3);
    await store.vectors.put(
      'strong',
      passages.map((p) => ({
        passageId: p.id,
        vectors: [new Float32Array(STRONG_DIMENSIONS).fill(1 / Math.sqrt(STRONG_DIMENSIONS))],
      })),
    );
    accountId = h.owner.accountId;
  });
  afterAll(() => h.close());

  for (const how of ['rejects', 'throws'] as const) {
    it(`answers from keyword search and the fast tier when the strong tier's embedder ${how}`, async () => {
      const lines: string[] = [];
      const engine = await SearchEngine.open({
        store: h.services.store,
        log: createLogger('warn', (l) => lines.push(l)),
        embedders: { fast, strong: failing(how) },
        dataDir: scratchDir(),
      });
      const [container] = await h.services.store.containers.list(accountId);
      const res = await engine.search(accountId, [container!], 'which instrument does my sister play', 10, 'tr_test');
      expect(res.hits[0]!.content).toBe('My sister plays the violin every evening.');
      expect(res.containers).toEqual([{ container: container!, failed: false }]);
      const warned = lines.map((l) => JSON.parse(l)).filter((l) => l.msg.startsWith('query embedding failed'));
      expect(warned).toEqual([expect.objectContaining({ level: 'warn', tier: 'strong', trace_id: 'tr_test' })]);
      await engine.close();
    });
  }
});

/** The store with its keyword search replaced: `search` is asked instead. */
const withKeywordSearch = (store: Store, search: Store['passages']['search']): Store => ({
  ...store,
  passages: { ...store.passages, search },
});

describe('keyword search over several containers', () => {
  let h: Harness;
  let accountId: string;
  let notes: Container;
  let work: Container;

  beforeAll(async () => {
    h = await openHarness(['notes', 'work']);
    const { store } = h.services;
    const documents = {
      notes: ['My sister plays the violin every evening.', 'We booked flights to Lisbon.'],
      work: ['My sister plays the violin at the concert.', 'The quarterly report is due on Friday.'],
    };
    for (const [name, contents] of Object.entries(documents))
      for (const content of contents) await h.run(ops.addDocument, h.owner, { container: h.containers[name], content });
    await h.learn(fast);
    accountId = h.owner.accountId;
    [notes, work] = await store.containers.list(accountId).then((all) => [all[0]!, all[1]!]);
    expect([notes.name, work.name]).toEqual(['notes', 'work']);
  });
  afterAll(() => h.close());

  const open = async (store: Store, log = createLogger('silent')) =>
    SearchEngine.open({ store, log, embedders: { fast, strong: null }, dataDir: scratchDir() });
  /** Calls `seen` as each vector scan of `engine` starts. */
  const onScan = (engine: SearchEngine, seen: () => void) => {
    const nearest = engine.indexes.nearest.bind(engine.indexes);
    engine.indexes.nearest = (...args) => {
      seen();
      return nearest(...args);
    };
  };

  it('reports every container failed when the keyword search failed, and returns no passage from the vectors', async () => {
    const lines: string[] = [];
    const failing = withKeywordSearch(h.services.store, (account, ids, q, limit) =>
      ids.includes(work.id)
        ? Promise.reject(new Error('the keyword index is damaged'))
        : h.services.store.passages.search(account, ids, q, limit),
    );
    const engine = await open(
      failing,
      createLogger('error', (l) => lines.push(l)),
    );
    const question = 'does my sister play the violin';
    // Both containers hold a passage the vectors find for this question.
    const whole = await open(h.services.store);
    const both = await whole.search(accountId, [notes, work], question, 10, 'tr_both');
    await whole.close();
    expect(new Set(both.hits.map((hit) => hit.containerId))).toEqual(new Set([notes.id, work.id]));

    const res = await engine.search(accountId, [notes, work], question, 10, 'tr_fail');
    expect(res.containers).toEqual([
      { container: notes, failed: true },
      { container: work, failed: true },
    ]);
    expect(res.hits).toEqual([]);
    // A search its keyword query answers finds the vectors' passages as usual.
    const alone = await engine.search(accountId, [notes], question, 10, 'tr_alone');
    expect(alone.containers).toEqual([{ container: notes, failed: false }]);
    expect(alone.hits.length).toBeGreaterThan(0);
    const failed = lines.map((l) => JSON.parse(l)).filter((l) => l.msg === 'keyword search failed');
    expect(failed).toEqual([expect.objectContaining({ containers: [notes.id, work.id], trace_id: 'tr_fail' })]);
    await engine.close();
  });

  it('asks one keyword query for all the containers, and scans the vectors while it is out', async () => {
    const asked: (() => void)[] = [];
    const askedFor: string[][] = [];
    const slow = withKeywordSearch(h.services.store, (account, ids, q, limit) => {
      askedFor.push(ids);
      const answer = h.services.store.passages.search(account, ids, q, limit);
      return new Promise((resolve) => asked.push(() => resolve(answer)));
    });
    const engine = await open(slow);
    let scannedWhileAsked = 0;
    onScan(engine, () => {
      scannedWhileAsked = asked.length;
    });
    const searching = engine.search(accountId, [notes, work], 'the quarterly report', 10, 'tr_overlap');
    for (let waited = 0; !scannedWhileAsked && waited < 2000; waited += 10) await Bun.sleep(10);
    expect(scannedWhileAsked).toBe(1);
    expect(askedFor).toEqual([[notes.id, work.id]]);
    for (const answer of asked) answer();
    const res = await searching;
    expect(res.hits[0]!.content).toBe('The quarterly report is due on Friday.');
    expect(res.containers.map((c) => c.failed)).toEqual([false, false]);
    await engine.close();
  });

  it("lets the event loop turn before the scan, so that a database driver's queries go out first", async () => {
    // Bun's SQL client writes a query only when the event loop turns, as this store does.
    const sent: string[] = [];
    const remote = withKeywordSearch(h.services.store, (account, ids, q, limit) => {
      const answer = new Promise<KeywordHit[]>((resolve) =>
        setImmediate(() => {
          sent.push(...ids);
          resolve(h.services.store.passages.search(account, ids, q, limit));
        }),
      );
      return answer;
    });
    const engine = await open(remote);
    let sentBeforeScan = -1;
    onScan(engine, () => {
      sentBeforeScan = sent.length;
    });
    const res = await engine.search(accountId, [notes, work], 'flights to Lisbon', 10, 'tr_turn');
    expect(sentBeforeScan).toBe(2);
    expect(res.hits[0]!.content).toBe('We booked flights to Lisbon.');
    await engine.close();
  });
});

/** An embedder of `dimensions` whose query vector is the first axis: the passages' vectors are put by hand. */
const axis = (id: string, dimensions: number): Embedder => ({
  id,
  dimensions,
  embed: async (texts) => texts.map(() => unit(dimensions, [1])),
});
/** A unit vector with these leading components. */
function unit(dimensions: number, leading: number[]): Float32Array {
  const v = new Float32Array(dimensions);
  v.set(leading);
  const norm = Math.hypot(...leading);
  return v.map((x) => x / norm);
}

describe('search while refinement has reached only some passages', () => {
  it('ranks a passage not yet refined on keywords and the fast tier, on the same scale as refined ones', async () => {
    const h = await openHarness(['notes']);
    const { store } = h.services;
    const notes = [
      ...Array.from({ length: 7 }, (_, i) => `Unrelated refined note number ${i} about the garden.`),
      'The bank asked me to verify my identity through Onfido.',
      'A passage the fast tier finds far from the question.',
    ];
    for (const content of notes) await h.run(ops.addDocument, h.owner, { container: h.containers.notes, content });
    await h.learn();
    const passages = await store.passages.listWithoutVectors('fast', 0, 100);
    const [onfido, far] = passages.slice(7);
    // Fast tier: the Onfido passage nearest the question, the refined notes half way, one far.
    const fastOf = (id: number) => (id === onfido!.id ? [1] : id === far!.id ? [0.2, 0.98] : [0.6, 0.8]);
    await store.vectors.put(
      'fast',
      passages.map((p) => ({ passageId: p.id, vectors: [unit(64, fastOf(p.id))] })),
    );
    // The seven unrelated notes are refined, and the strong tier puts them right on the question.
    await store.vectors.put(
      'strong',
      passages.slice(0, 7).map((p) => ({ passageId: p.id, vectors: [unit(STRONG_DIMENSIONS, [1])] })),
    );
    const engine = await SearchEngine.open({
      store,
      log: createLogger('silent'),
      embedders: { fast: axis('test:fast', 64), strong: axis('test:strong', STRONG_DIMENSIONS) },
      dataDir: scratchDir(),
    });
    const [container] = await store.containers.list(h.owner.accountId);
    const res = await engine.search(h.owner.accountId, [container!], 'Onfido', 10, 'tr_test');
    // Weighed as a refined passage is, it scored 0.3 + 0.2 = 0.5 under each refined note's 0.6: rank 8.
    expect(res.hits[0]!.content).toBe(notes[7]!);
    await engine.close();
    await h.close();
  });

  it("weighs every passage as the fast tier alone does when this search's strong query vector failed", async () => {
    const h = await openHarness(['notes']);
    const { store } = h.services;
    const notes = [
      'Onfido: the bank checks my identity with Onfido, and Onfido keeps the scan.',
      'The bank used Onfido for my passport.',
      `A long note on many things: the garden, the roof, the car, the school run, and once Onfido.${' More words here.'.repeat(20)}`,
    ];
    for (const content of notes) await h.run(ops.addDocument, h.owner, { container: h.containers.notes, content });
    await h.learn();
    const passages = await store.passages.listWithoutVectors('fast', 0, 100);
    // The first is the best on keywords and the fast tier, and refined; the second nearly as good on both, not refined.
    const fastOf = [[1], [0.95, 0.31], [0.3, 0.95]];
    await store.vectors.put(
      'fast',
      passages.map((p, i) => ({ passageId: p.id, vectors: [unit(64, fastOf[i]!)] })),
    );
    await store.vectors.put('strong', [{ passageId: passages[0]!.id, vectors: [unit(STRONG_DIMENSIONS, [1])] }]);
    const engine = await SearchEngine.open({
      store,
      log: createLogger('silent'),
      embedders: { fast: axis('test:fast', 64), strong: failing('rejects') },
      dataDir: scratchDir(),
    });
    const [container] = await store.containers.list(h.owner.accountId);
    const res = await engine.search(h.owner.accountId, [container!], 'Onfido', 10, 'tr_test');
    // Weighed as refined without a strong list, it scored at most 0.3 + 0.3 under the second's 0.4 and 0.6 shares.
    expect(res.hits.map((hit) => hit.content)).toEqual(notes);
    await engine.close();
    await h.close();
  });
});
