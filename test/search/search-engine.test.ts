/**
 * The search engine when a tier's query embedding fails (the strong model's thread died, or the
 * embedder throws before it can answer): that tier is left out of the search, which still answers
 * from keyword search and the other tier, and says so in the log.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import type { Embedder } from '../../src/embedders/embedder';
import { loadStaticEmbedder } from '../../src/embedders/static-embedder';
import { LearningRunner } from '../../src/learning/runner';
import { createLogger } from '../../src/log';
import * as ops from '../../src/operations/index';
import { SearchEngine } from '../../src/search/search-engine';
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
    const { store, clock } = h.services;
    for (const content of [
      'My sister plays the violin every evening.',
      'The dentist appointment is on Tuesday.',
      'We booked flights to Lisbon.',
    ]) {
      await h.run(ops.addDocument, h.owner, { container: h.containers.notes, content });
    }
    await new LearningRunner({
      store,
      clock,
      log: createLogger('silent'),
      embedder: fast,
      readUrl: async () => ({ text: '', title: null }),
      onIndexed: () => {},
    }).drain();
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
      const engine = await SearchEngine.open(
        h.services.store,
        createLogger('warn', (l) => lines.push(l)),
        { fast, strong: failing(how) },
        scratchDir(),
      );
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
