/**
 * The search levers' mechanics, each on its own (src/search/tuning.ts): content-poor passages
 * stepping down, and the engine running each lever when switched on (asking.ts and dated.ts have
 * their own file too). Whether a lever helps is the benchmark's question
 * (bench/retrieval-quality.ts), never a test's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { loadStaticEmbedder } from '../../src/embedders/static-embedder';
import { createLogger } from '../../src/log';
import * as ops from '../../src/operations/index';
import { contentWords, ownContentWords, ownWords, stepDownContentPoor, wordsIn } from '../../src/search/content-poor';
import type { EmbedderTiers } from '../../src/embedders/create-embedders';
import { SearchEngine } from '../../src/search/search-engine';
import type { SearchTuning } from '../../src/search/tuning';
import { type Harness, openHarness } from '../helpers/operations';
import { scratchDir } from '../helpers/scratch';

describe('content-poor passages', () => {
  it('counts the words that carry meaning: not function words, numbers or single letters', () => {
    expect(contentWords(wordsIn('[8 May 2023] Tamsin: Love that.'))).toBe(3);
    expect(contentWords(wordsIn('Oh no, poor you.'))).toBe(2);
    expect(
      contentWords(wordsIn('Took Biscuit to the vet today, turns out my little rabbit is just a bit chubby.')),
    ).toBe(9);
  });

  it("counts a chat message's own words: its time and speaker are not", () => {
    expect(ownWords('[8 May 2023] Tamsin: Love that.')).toEqual(['love', 'that']);
    expect(ownWords('[29 December 2023, 22:42] elise: Hey Kate!')).toEqual(['hey', 'kate']);
    expect(ownWords('[18:02] Fahim Khan: ok')).toEqual(['ok']);
    expect(ownWords('[3 May 2024] ok')).toEqual(['ok']);
    expect(ownWords('No header here, just words.')).toEqual(['no', 'header', 'here', 'just', 'words']);
  });

  it("keeps a note's header-like first line as its own words: a chat message's header has its time first", () => {
    expect(ownWords('Note: buy milk')).toEqual(['note', 'buy', 'milk']);
    expect(ownWords('TODO: call the vet')).toEqual(['todo', 'call', 'the', 'vet']);
    expect(ownWords('Re: the lease')).toEqual(['re', 'the', 'lease']);
    expect(ownWords('Love that: the best part.')).toEqual(['love', 'that', 'the', 'best', 'part']);
    expect(ownWords('[draft] Note: buy milk')).toEqual(['draft', 'note', 'buy', 'milk']);
    expect(ownWords('[x] Re: the lease')).toEqual(['x', 're', 'the', 'lease']);
  });

  it("counts a passage's own content words as far as a step needs (six), as the whole count would", () => {
    const texts = [
      '[8 May 2023] Tamsin: Love that.',
      '[18:02] Fahim Khan: ok',
      '',
      'İstanbul İzmir Ankara trip planned',
      'Took Biscuit to the vet today, turns out my little rabbit is just a bit chubby.',
      '[29 December 2023, 22:42] elise: Hey Kate! Moved to Lisbon in 2019, teaching Portuguese.',
    ];
    for (const text of texts) expect(ownContentWords(text)).toBe(Math.min(6, contentWords(ownWords(text))));
    expect(texts.map(ownContentWords)).toEqual([1, 1, 0, 5, 6, 6]);
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
    const words = (id: number) => (texts[id] === undefined ? undefined : ownContentWords(texts[id]!));
    const out = stepDownContentPoor(ranked, words, 0.6);
    expect(out.map((o) => o.item)).toEqual([2, 1, 3]);
    expect(out[0]).toEqual({ item: 2, score: 0.9 });
    expect(out[1]!.score).toBeCloseTo(1 - 0.6 * (5 / 6), 9); // "tell" is its one content word
    expect(stepDownContentPoor(ranked, words, 0)).toEqual(ranked);
    expect(stepDownContentPoor(ranked, () => undefined, 0.6)).toEqual(ranked);
  });
});

describe('levers in the engine', () => {
  const OFF: SearchTuning = {
    contentPoor: 0,
    asking: 0,
    dated: 0,
    speaker: 0,
    everyTier: 0,
  };
  const fast = loadStaticEmbedder();
  let h: Harness;

  beforeAll(async () => {
    h = await openHarness(['chat', 'jo', 'greet', 'gym', 'many']);
    const add = (container: string, content: string) => h.run(ops.addDocument, h.owner, { container, content });
    // Messages of a chat, one document each, as an app adding them one by one writes them.
    for (const message of [
      '[4 January 2024, 09:12] elise: Where do you work these days, Kate?',
      '[4 January 2024, 09:13] Emi: I work at a marketing firm, I manage social media for its clients.',
      '[3 January 2024, 20:00] elise: Long day: errands, laundry, a walk by the river, dinner with my sister, then an hour of reading before some work emails.',
      '[2 January 2024, 18:40] elise: I buy snacks there, buying snacks all the time.',
      '[7 January 2024, 11:05] elise: Got water and breakfast bars at Walmart.',
    ])
      await add(h.containers.chat!, message);
    // A day apart, so not one exchange (src/learning/exchange.ts): each is indexed by its own words alone.
    await add(
      h.containers.jo!,
      '[5 January 2024, 10:00] Jo: Took Biscuit, my rabbit, to the vet today for her jabs and a nail trim.',
    );
    await add(h.containers.jo!, '[6 January 2024, 10:00] Jo: Love that.');
    // A greeting whose header alone (day, time, a long display name) would make it look full.
    await add(h.containers.greet!, '[Friday 29 December 2023, 22:42] Jo Anne Smith: Hey Kate!');
    await add(
      h.containers.greet!,
      '[Saturday 30 December 2023, 10:00] Jo Anne Smith: Kate lent me her bike for the ride out to the lake this morning.',
    );
    // A day apart, as above: the turn that names Kevin twice, and his own that does not name him.
    await add(h.containers.gym!, '[8 January 2024, 09:00] Paola: Kevin, is the gym busy? Kevin, you go every day.');
    await add(h.containers.gym!, '[9 January 2024, 09:00] Kevin: Benched 100 kg at the gym today.');
    // More gym talk than the fast tier's list holds (CANDIDATES, 50), and one message keyword search finds first.
    for (let i = 0; i < 55; i++)
      await add(h.containers.many!, `Gym session ${i}: squats, deadlifts, bench press and a long workout at the gym.`);
    await add(h.containers.many!, 'Booked the Zanzibar trip; the hotel has a gym for squats.');
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

  const keywordOnly = { fast: null, strong: null };

  it('with the asking step on, the reply that tells outranks the question that asked it', async () => {
    const q = 'Where does Kate work?';
    expect((await search({}, h.containers.chat!, q))[0]!.content).toContain('Where do you work');
    expect((await search({ asking: 1 }, h.containers.chat!, q))[0]!.content).toContain('marketing firm');
  });

  it('with the dated step on, a message of the day the question names outranks one of another day', async () => {
    const q = 'What did elise buy on 7 Jan 2024?';
    expect((await search({}, h.containers.chat!, q, 10, keywordOnly))[0]!.content).toContain('2 January');
    expect((await search({ dated: 1 }, h.containers.chat!, q, 10, keywordOnly))[0]!.content).toContain('Walmart');
  });

  it('with the content-poor step on, an acknowledgement matching on the name alone steps below a passage that says something', async () => {
    expect((await search({}, h.containers.jo!, 'Jo', 10, keywordOnly))[0]!.content).toBe(
      '[6 January 2024, 10:00] Jo: Love that.',
    );
    expect((await search({ contentPoor: 1 }, h.containers.jo!, 'Jo', 10, keywordOnly))[0]!.content).toContain(
      'Biscuit',
    );
  });

  it("with the content-poor step on, a chat message's header does not count as its words", async () => {
    expect((await search({}, h.containers.greet!, 'Kate', 10, keywordOnly))[0]!.content).toContain('Hey Kate');
    expect((await search({ contentPoor: 1 }, h.containers.greet!, 'Kate', 10, keywordOnly))[0]!.content).toContain(
      'bike',
    );
  });

  it('with the speaker step on, the turn spoken by the person the question names outranks one that only names them', async () => {
    const q = 'Does Kevin go to the gym?';
    expect((await search({}, h.containers.gym!, q, 10, keywordOnly))[0]!.content).toContain('Paola');
    expect((await search({ speaker: 1 }, h.containers.gym!, q, 10, keywordOnly))[0]!.content).toContain('Benched');
  });

  it("with every tier scoring every candidate, the messages below the fast tier's 50 fuse with their cosine too", async () => {
    // 56 candidates from keyword search, of which the fast tier's list holds 50 (a page of 10): with
    // the lever the other 6 join it, its lowest score falls, and the page's fused scores change.
    const q = 'Zanzibar squats deadlifts bench press workout';
    const scores = async (tuning: Partial<SearchTuning>) =>
      Object.fromEntries((await search(tuning, h.containers.many!, q)).map((x) => [x.passageId, x.score]));
    const without = await scores({});
    const withIt = await scores({ everyTier: 1 });
    expect(Object.keys(withIt).sort()).toEqual(Object.keys(without).sort());
    const changed = Object.keys(without).filter((id) => Math.abs(without[id]! - withIt[id]!) > 1e-9);
    expect(changed.length).toBeGreaterThan(0);
  });
});
