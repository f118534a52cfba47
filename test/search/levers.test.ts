/**
 * The search levers' mechanics, each on its own (src/search/tuning.ts): feedback terms and the moved
 * query vector, diversity in a page, content-poor passages stepping down, neighbours in time scored
 * in (and the store's neighbours), and the engine running each when switched on. Whether a lever helps is the benchmark's question
 * (bench/retrieval-quality.ts), never a test's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { normalizeInPlace } from '../../src/learning/embedder/embedder';
import { loadStaticEmbedder } from '../../src/learning/embedder/static-embedder';
import { LearningRunner } from '../../src/learning/runner';
import { createLogger } from '../../src/log';
import * as ops from '../../src/operations/index';
import { contentWords, stepDownContentPoor } from '../../src/search/content-poor';
import { diversify, wordOverlap, wordsIn } from '../../src/search/diversity';
import { feedbackTerms } from '../../src/search/keyword-feedback';
import { type SearchEmbedders, SearchEngine } from '../../src/search/search-engine';
import { withNeighbours } from '../../src/search/time-neighbours';
import { DEFAULT_TUNING, type SearchTuning } from '../../src/search/tuning';
import { feedbackQuery } from '../../src/search/vector-feedback';
import { type Harness, openHarness } from '../operations/harness';
import { scratchDir, scratchIndex } from '../helpers/scratch';

const unit = (...xs: number[]) => normalizeInPlace(Float32Array.from(xs));
const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i]!, 0);

describe('keyword feedback terms', () => {
  it('takes the words the best hits weigh most, leaving out the question\'s own, function words, numbers and short words', () => {
    const terms = feedbackTerms('Where did Caroline move?', [
      { text: 'Caroline: moved into a flat in Dublin, the flat has a tiny balcony. It was 2023.', weight: 1 },
      { text: 'Caroline: Dublin rain again, but the flat is cosy.', weight: 0.5 },
    ], 3);
    expect(terms).toEqual(['flat', 'dublin', 'moved']);
    expect(terms).not.toContain('caroline');
  });

  it('weighs each passage by its score: a word of the best hit outranks one of a weak hit said as often', () => {
    expect(feedbackTerms('q', [{ text: 'violin practice', weight: 1 }, { text: 'garden party', weight: 0.1 }], 2)).toEqual(['violin', 'practice']);
  });

  it('gives nothing when the hits hold only the question\'s words and function words', () => {
    expect(feedbackTerms('the violin', [{ text: 'The violin, the violin!', weight: 1 }])).toEqual([]);
  });
});

describe('vector feedback', () => {
  it('moves the query toward the hits\' mean, by the weight given, and keeps it a unit vector', () => {
    const query = unit(1, 0, 0);
    const hits = [unit(0, 1, 0), unit(0, 1, 1)];
    const near = feedbackQuery(query, hits, 0.2);
    const far = feedbackQuery(query, hits, 0.5);
    expect(Math.hypot(...far)).toBeCloseTo(1, 6);
    expect(dot(near, hits[0]!)).toBeGreaterThan(dot(query, hits[0]!));
    expect(dot(far, hits[0]!)).toBeGreaterThan(dot(near, hits[0]!));
    expect(feedbackQuery(query, [], 0.5)).toEqual(query);
  });
});

describe('diversity in a page', () => {
  const ranked = [{ item: 1, score: 1 }, { item: 2, score: 0.9 }, { item: 3, score: 0.8 }, { item: 4, score: 0.7 }];
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

  it('changes nothing at strength 0, and a fact (no document) is never a passage of another\'s document', () => {
    expect(diversify(ranked, 4, documentOf, () => 0, 0).map((p) => p.item)).toEqual([1, 2, 3, 4]);
    expect(diversify(ranked, 4, () => null, () => 0, 0.3).map((p) => p.item)).toEqual([1, 2, 3, 4]);
  });
});

describe('content-poor passages', () => {
  it('counts the words that carry meaning: not function words, numbers or single letters', () => {
    expect(contentWords(wordsIn('[8 May 2023] Tamsin: Love that.'))).toBe(3);
    expect(contentWords(wordsIn('Oh no, poor you.'))).toBe(2);
    expect(contentWords(wordsIn('Took Biscuit to the vet today, turns out my little rabbit is just a bit chubby.'))).toBe(9);
  });

  it('steps a passage down by how few such words it has, up to the strength given, and leaves the rest as they were', () => {
    const texts: Record<number, string> = { 1: 'Tell me about it.', 2: 'Took Biscuit to the vet today, my little rabbit is chubby.', 3: 'Love that.' };
    const ranked = [{ item: 1, score: 1 }, { item: 2, score: 0.9 }, { item: 3, score: 0.5 }];
    const words = (id: number) => (texts[id] === undefined ? undefined : wordsIn(texts[id]!));
    const out = stepDownContentPoor(ranked, words, 0.6);
    expect(out.map((o) => o.item)).toEqual([2, 1, 3]);
    expect(out[0]).toEqual({ item: 2, score: 0.9 });
    expect(out[1]!.score).toBeCloseTo(1 - 0.6 * (5 / 6), 9); // "tell" is its one content word
    expect(stepDownContentPoor(ranked, words, 0)).toEqual(ranked);
    expect(stepDownContentPoor(ranked, () => undefined, 0.6)).toEqual(ranked);
  });
});

describe('neighbours in time, scored', () => {
  const fused = [{ item: 10, score: 0.9 }, { item: 20, score: 0.5 }, { item: 30, score: 0.1 }];

  it('brings a neighbour the lists missed with its own score plus a share of its anchor\'s, in order', () => {
    const out = withNeighbours(fused, [{ passageId: 11, anchorId: 10 }], (id) => (id === 11 ? 0.3 : 0), 0.5);
    expect(out.map((o) => o.item)).toEqual([10, 11, 20, 30]);
    expect(out[1]!.score).toBeCloseTo(0.3 + 0.5 * 0.9, 9);
  });

  it('raises a listed neighbour by its best anchor, and takes no neighbour of an unlisted anchor', () => {
    const out = withNeighbours(fused, [{ passageId: 30, anchorId: 20 }, { passageId: 30, anchorId: 10 }, { passageId: 40, anchorId: 99 }], () => 0, 0.2);
    expect(out.find((o) => o.item === 30)!.score).toBeCloseTo(0.1 + 0.2 * 0.9, 9);
    expect(out.some((o) => o.item === 40)).toBe(false);
    expect(withNeighbours(fused, [{ passageId: 10, anchorId: 20 }], () => 0, 0)).toEqual(fused);
  });
});

describe('the vector index for the levers', () => {
  it('scores given passages by their best unit, as search does, and gives a passage\'s mean direction', () => {
    const index = scratchIndex(3);
    const int8 = (...xs: number[]) => Int8Array.from(xs);
    index.add(1, 'c', [int8(100, 0, 0), int8(0, 100, 0)]);
    index.add(2, 'c', [int8(0, 0, 100)]);
    const query = unit(1, 1, 0);
    const scores = index.similarities(query, [1, 2, 3]);
    expect([...scores.keys()]).toEqual([1, 2]);
    const searched = new Map(index.search(query, ['c'], 2).map((h) => [h.passageId, h.score]));
    expect(scores.get(1)).toBeCloseTo(searched.get(1)!, 6);
    expect(scores.get(2)).toBeCloseTo(0, 6);
    const [x, y, z] = index.passageVector(1)!;
    expect([x, y, z].map((v) => v!.toFixed(5))).toEqual([Math.SQRT1_2, Math.SQRT1_2, 0].map((v) => v.toFixed(5)));
    expect(index.passageVector(3)).toBeNull();
    index.close();
  });
});

describe('levers in the engine', () => {
  const fast = loadStaticEmbedder();
  let h: Harness;

  beforeAll(async () => {
    h = await openHarness(['chat', 'other', 'pets', 'jo']);
    const add = async (container: string, content: string, minutesAfterLast = 1) => {
      h.clock.advance(minutesAfterLast * 60_000);
      await h.run(ops.addDocument, h.owner, { container, content });
    };
    // A conversation: the turn that answers follows the one that matches the question.
    await add(h.containers.chat!, 'We finally adopted a puppy from the shelter last weekend.');
    await add(h.containers.chat!, 'Max! He chews everything in sight.');
    await add(h.containers.chat!, 'Lunch with the team ran long today.', 60 * 24);
    // A long document of two passages about one thing, and a short one about the same.
    await add(h.containers.other!, `${'Our garden party planning: lanterns, a long table and lemonade for everyone. '.repeat(14)}\n\n${'The garden party guests: neighbours, cousins and the book club. '.repeat(14)}`);
    await add(h.containers.other!, 'The garden party is on Saturday afternoon.');
    await add(h.containers.pets!, 'We adopted a puppy from the Riverside shelter.');
    await add(h.containers.pets!, 'The Riverside shelter called about vaccinations.');
    await add(h.containers.pets!, 'Bought a new lamp for the hallway.');
    await add(h.containers.jo!, 'Jo: Took Biscuit, my rabbit, to the vet today for her jabs and a nail trim.');
    await add(h.containers.jo!, 'Jo: Love that.');
    await new LearningRunner({ store: h.services.store, clock: h.services.clock, log: createLogger('silent'), embedder: fast, readUrl: async () => ({ text: '', title: null }), onIndexed: () => {} }).drain();
  });
  afterAll(() => h.close());

  const search = async (tuning: Partial<SearchTuning>, container: string, q: string, limit = 10, embedders: SearchEmbedders = { fast, strong: null }) => {
    const engine = SearchEngine.open(h.services.store, createLogger('silent'), embedders, scratchDir(), undefined, 0, { ...DEFAULT_TUNING, ...tuning });
    const res = await engine.search(h.owner.accountId, [h.services.store.getContainer(h.owner.accountId, container)!], q, limit, 'tr_test');
    await engine.close();
    return res.results;
  };

  it('finds the turns added just before and after a hit, within hours and not across a day, never in another container', () => {
    const { store } = h.services;
    const ids = (list: { passageId: number }[]) => list.map((n) => n.passageId).sort((a, b) => a - b);
    const [puppy, max, lunch] = ids(store.getPassageHits(h.owner.accountId, [1, 2, 3, 4, 5, 6, 7]).filter((p) => p.containerId === h.containers.chat));
    const found = store.listNeighbours(h.owner.accountId, [puppy!, max!], 2, 6 * 3600_000);
    expect(found).toEqual(expect.arrayContaining([{ passageId: max, anchorId: puppy }, { passageId: puppy, anchorId: max }]));
    expect(found.some((n) => n.passageId === lunch)).toBe(false);
    expect(found).toHaveLength(2);
    expect(ids(store.listNeighbours(h.owner.accountId, [puppy!], 2, 2 * 24 * 3600_000))).toEqual([max!, lunch!]);
    // The next passages ids (the garden party's, added a minute after lunch) are another container's.
    expect(ids(store.listNeighbours(h.owner.accountId, [lunch!], 2, 2 * 24 * 3600_000))).toEqual([puppy!, max!]);
  });

  it('with neighbours on, the answering turn beside the matching one is a candidate, scored', async () => {
    const q = 'What did they name the puppy they adopted?';
    const off = await search({}, h.containers.chat!, q, 1);
    expect(off.map((r) => r.content)).toEqual(['We finally adopted a puppy from the shelter last weekend.']);
    const on = await search({ neighbours: 0.5 }, h.containers.chat!, q, 3);
    expect(on.map((r) => r.content)).toContain('Max! He chews everything in sight.');
    expect(on.map((r) => r.score)).toEqual([...on.map((r) => r.score)].sort((a, b) => b - a));
  });

  it('with diversity on, a second passage of a document steps below another document', async () => {
    const q = 'garden party';
    const off = await search({}, h.containers.other!, q, 2);
    expect(new Set(off.map((r) => r.document_id)).size).toBe(1);
    const on = await search({ diversity: 0.6 }, h.containers.other!, q, 2);
    expect(new Set(on.map((r) => r.document_id)).size).toBe(2);
  });

  it('with keyword feedback on, a passage sharing only the best hit\'s words is found by keyword search alone', async () => {
    const q = 'adopted puppy';
    const keywordOnly = { fast: null, strong: null };
    expect((await search({}, h.containers.pets!, q, 10, keywordOnly)).map((r) => r.content)).toEqual(['We adopted a puppy from the Riverside shelter.']);
    const on = await search({ keywordFeedback: 0.5 }, h.containers.pets!, q, 10, keywordOnly);
    expect(on.map((r) => r.content)).toEqual(['We adopted a puppy from the Riverside shelter.', 'The Riverside shelter called about vaccinations.']);
  });

  it('with the content-poor step on, an acknowledgement matching on the name alone steps below a passage that says something', async () => {
    const keywordOnly = { fast: null, strong: null };
    expect((await search({}, h.containers.jo!, 'Jo', 10, keywordOnly))[0]!.content).toBe('Jo: Love that.');
    expect((await search({ contentPoor: 1 }, h.containers.jo!, 'Jo', 10, keywordOnly))[0]!.content).toContain('Biscuit');
  });

  it('with vector feedback on, the page is still the best first', async () => {
    const res = await search({ vectorFeedback: 0.5 }, h.containers.chat!, 'adopted puppy', 3);
    expect(res.length).toBeGreaterThan(0);
    expect(res.map((r) => r.score)).toEqual([...res.map((r) => r.score)].sort((a, b) => b - a));
  });
});
