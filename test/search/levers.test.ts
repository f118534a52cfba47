/**
 * The search levers' mechanics, each on its own (src/search/tuning.ts): diversity in a page,
 * content-poor passages stepping down, and the engine running each when switched on. Whether a lever
 * helps is the benchmark's question (bench/retrieval-quality.ts), never a test's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { loadStaticEmbedder } from '../../src/embedders/static-embedder';
import { createLogger } from '../../src/log';
import * as ops from '../../src/operations/index';
import { contentWords, stepDownContentPoor } from '../../src/search/content-poor';
import { diversify, wordOverlap, wordsIn } from '../../src/search/diversity';
import type { EmbedderTiers } from '../../src/embedders/create-embedders';
import { SearchEngine } from '../../src/search/search-engine';
import type { SearchTuning } from '../../src/search/tuning';
import { type Harness, openHarness } from '../helpers/operations';
import { scratchDir } from '../helpers/scratch';

describe('diversity in a page', () => {
  const ranked = [
    { item: 1, score: 1 },
    { item: 2, score: 0.9 },
    { item: 3, score: 0.8 },
    { item: 4, score: 0.7 },
  ];
  const documents: Record<number, string> = { 1: 'a', 2: 'a', 3: 'b', 4: 'c' };
  const documentOf = (id: number) => documents[id] ?? null;

  it('steps a second passage of a document below a passage of another, and keeps the scores descending', () => {
    const page = diversify(ranked, 3, documentOf, () => 0, 0.3);
    expect(page.map((p) => p.item)).toEqual([1, 3, 4]);
    expect(page.map((p) => p.score)).toEqual([...page.map((p) => p.score)].sort((a, b) => b - a));
  });

  it('steps a near-duplicate down by how near it is, and leaves a passage that differs where it was', () => {
    const overlap = (a: number, b: number) => ((a === 3 && b === 1) || (a === 1 && b === 3) ? 0.95 : 0.2);
    const distinct = (id: number) => `d${id}`;
    expect(diversify(ranked, 4, distinct, overlap, 0.3).map((p) => p.item)).toEqual([1, 2, 4, 3]);
    expect(diversify(ranked, 4, distinct, () => 0.5, 0.3).map((p) => p.item)).toEqual([1, 2, 3, 4]);
  });

  it('tells near-duplicates by the share of words they have in common', () => {
    const words = (text: string) => new Set(wordsIn(text));
    const a = words('[8 May 2023] Calvin: Does time go faster as you get older, or is it just me?');
    const b = words('[2 June 2023] Calvin: Does time go faster as you get older, or is it just me?');
    const c = words('[8 May 2023] Calvin: New trainers arrived, so I did a long loop round the park.');
    expect(wordOverlap(a, b)).toBeGreaterThan(0.75);
    expect(wordOverlap(a, c)).toBeLessThan(0.3);
    expect(wordOverlap(a, a)).toBe(1);
    expect(wordOverlap(new Set(), new Set())).toBe(0);
  });

  it("changes nothing at strength 0, and a fact (no document) is never a passage of another's document", () => {
    expect(diversify(ranked, 4, documentOf, () => 0, 0).map((p) => p.item)).toEqual([1, 2, 3, 4]);
    expect(
      diversify(
        ranked,
        4,
        () => null,
        () => 0,
        0.3,
      ).map((p) => p.item),
    ).toEqual([1, 2, 3, 4]);
  });
});

describe('content-poor passages', () => {
  it('counts the words that carry meaning: not function words, numbers or single letters', () => {
    expect(contentWords(wordsIn('[8 May 2023] Tamsin: Love that.'))).toBe(3);
    expect(contentWords(wordsIn('Oh no, poor you.'))).toBe(2);
    expect(
      contentWords(wordsIn('Took Biscuit to the vet today, turns out my little rabbit is just a bit chubby.')),
    ).toBe(9);
  });

  it('steps a passage down by how few such words it has, up to the strength given, and leaves the rest as they were', () => {
    const texts: Record<number, string> = {
      1: 'Tell me about it.',
      2: 'Took Biscuit to the vet today, my little rabbit is chubby.',
      3: 'Love that.',
    };
    const ranked = [
      { item: 1, score: 1 },
      { item: 2, score: 0.9 },
      { item: 3, score: 0.5 },
    ];
    const words = (id: number) => (texts[id] === undefined ? undefined : wordsIn(texts[id]!));
    const out = stepDownContentPoor(ranked, words, 0.6);
    expect(out.map((o) => o.item)).toEqual([2, 1, 3]);
    expect(out[0]).toEqual({ item: 2, score: 0.9 });
    expect(out[1]!.score).toBeCloseTo(1 - 0.6 * (5 / 6), 9); // "tell" is its one content word
    expect(stepDownContentPoor(ranked, words, 0)).toEqual(ranked);
    expect(stepDownContentPoor(ranked, () => undefined, 0.6)).toEqual(ranked);
  });
});

describe('levers in the engine', () => {
  const OFF: SearchTuning = { diversity: 0, contentPoor: 0 };
  const fast = loadStaticEmbedder();
  let h: Harness;

  beforeAll(async () => {
    h = await openHarness(['other', 'jo']);
    const add = (container: string, content: string) => h.run(ops.addDocument, h.owner, { container, content });
    // A long document of two passages about one thing, and a short one about the same.
    await add(
      h.containers.other!,
      `${'Our garden party planning: lanterns, a long table and lemonade for everyone. '.repeat(14)}\n\n${'The garden party guests: neighbours, cousins and the book club. '.repeat(14)}`,
    );
    await add(h.containers.other!, 'The garden party is on Saturday afternoon.');
    await add(h.containers.jo!, 'Jo: Took Biscuit, my rabbit, to the vet today for her jabs and a nail trim.');
    await add(h.containers.jo!, 'Jo: Love that.');
    await h.learn(fast);
  });
  afterAll(() => h.close());

  /** A search with every lever off but those given. */
  const search = async (
    tuning: Partial<SearchTuning>,
    container: string,
    q: string,
    limit = 10,
    embedders: EmbedderTiers = { fast, strong: null },
  ) => {
    const engine = await SearchEngine.open({
      store: h.services.store,
      log: createLogger('silent'),
      embedders,
      dataDir: scratchDir(),
      tuning: { ...OFF, ...tuning },
    });
    const res = await engine.search(
      h.owner.accountId,
      [(await h.services.store.containers.get(h.owner.accountId, container))!],
      q,
      limit,
      'tr_test',
    );
    await engine.close();
    return res.hits;
  };

  it('with diversity on, a second passage of a document steps below another document', async () => {
    const q = 'garden party';
    const off = await search({}, h.containers.other!, q, 2);
    expect(new Set(off.map((r) => r.documentId)).size).toBe(1);
    const on = await search({ diversity: 0.6 }, h.containers.other!, q, 2);
    expect(new Set(on.map((r) => r.documentId)).size).toBe(2);
  });

  it('with the content-poor step on, an acknowledgement matching on the name alone steps below a passage that says something', async () => {
    const keywordOnly = { fast: null, strong: null };
    expect((await search({}, h.containers.jo!, 'Jo', 10, keywordOnly))[0]!.content).toBe('Jo: Love that.');
    expect((await search({ contentPoor: 1 }, h.containers.jo!, 'Jo', 10, keywordOnly))[0]!.content).toContain(
      'Biscuit',
    );
  });
});
