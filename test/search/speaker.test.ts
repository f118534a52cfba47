/**
 * The speaker lever of issue 39 on its own (src/search/speaker.ts): a passage spoken by the one
 * person a question names steps up. Whether it helps is the benchmark's question
 * (bench/retrieval-quality.ts), never a test's.
 */
import { describe, expect, it } from 'bun:test';
import { speakerOf, stepUpSpoken } from '../../src/search/speaker';

describe('the speaker of a passage', () => {
  it("is the first name of a chat message's header's speaker, as learning's exchange reads the header; a passage without one has none", () => {
    expect(speakerOf('[29 December 2023, 22:42] Fahim Khan: Morning!')).toBe('fahim');
    expect(speakerOf('[22:42] elise: I am from Houston, Texas')).toBe('elise');
    expect(speakerOf('[7 January 2024] Emi:  hi')).toBe('emi');
    expect(speakerOf('No header here, just words.')).toBeNull();
    expect(speakerOf('[7 January 2024, 18:02] went to the shop')).toBeNull();
  });

  it("is no one for a note's header-like first line: a chat message's header has its time first", () => {
    for (const note of ['Note: buy milk', 'TODO: call the vet', 'Re: the lease', 'elise: I am from Houston, Texas'])
      expect(speakerOf(note)).toBeNull();
    expect(speakerOf('[draft] Note: buy milk')).toBeNull();
  });
});

describe('passages spoken by the person a question names', () => {
  const texts: Record<number, string> = {
    1: '[4 January 2024, 09:12] Paola: Hey Kevin! How was the gym?',
    2: '[4 January 2024, 09:13] Kevin: Benched 100 kg today, and my 5k is down to 24 minutes.',
    3: 'Notes: gym schedule',
    4: '[4 January 2024, 09:14] Kevin: Nice.',
  };
  const ranked = [
    { item: 1, score: 1 },
    { item: 2, score: 0.95 },
    { item: 3, score: 0.9 },
    { item: 4, score: 0.5 },
    { item: 5, score: 0.4 },
  ];
  const textOf = (id: number) => texts[id];

  it('step up by the strength, best first again; the rest and a passage not read stay as they were', () => {
    const up = stepUpSpoken(ranked, 'Does Kevin have an athletic build?', textOf, 0.1);
    expect(up.map((h) => h.item)).toEqual([2, 1, 3, 4, 5]);
    expect(up.find((h) => h.item === 2)!.score).toBeCloseTo(1.05, 9);
    expect(up.find((h) => h.item === 4)!.score).toBeCloseTo(0.6, 9);
    expect(up.filter((h) => [1, 3, 5].includes(h.item))).toEqual([ranked[0]!, ranked[2]!, ranked[4]!]);
  });

  it('name a speaker by a whole word of the question in any case, and a display name by its first word', () => {
    const more = { ...texts, 6: '[5 January 2024, 10:00] Fahim Khan: Ramen again.' };
    const withFahim = [...ranked, { item: 6, score: 0.3 }];
    const lifted = (q: string) =>
      stepUpSpoken(withFahim, q, (id) => more[id as keyof typeof more], 0.1)
        .filter((h) => h.score !== withFahim.find((r) => r.item === h.item)!.score)
        .map((h) => h.item);
    expect(lifted("What is FAHIM's favourite food?")).toEqual([6]);
    expect(lifted('Where does Khan eat?')).toEqual([]);
    expect(lifted('Who is Kevinson?')).toEqual([]);
    expect(lifted('Does kevin lift?')).toEqual([2, 4]);
  });

  it('change nothing when the question names no speaker, or two of them (it says nothing of whose turns answer it)', () => {
    expect(stepUpSpoken(ranked, 'Who went to the gym?', textOf, 0.1)).toEqual(ranked);
    expect(stepUpSpoken(ranked, 'Do Kevin and Paola both go to the gym?', textOf, 0.1)).toEqual(ranked);
    expect(stepUpSpoken(ranked, 'Does Kevin lift?', textOf, 0)).toEqual(ranked);
  });
});
