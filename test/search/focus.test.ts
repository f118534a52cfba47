/**
 * The focus lever of issue 39 on its own (src/search/focus.ts): chat messages of speakers other than
 * the best passages' step down. Whether it helps is the benchmark's question
 * (bench/retrieval-quality.ts), never a test's.
 */
import { describe, expect, it } from 'bun:test';
import { stepDownOffFocus } from '../../src/search/focus';

describe('chat messages outside the conversation in focus', () => {
  const texts: Record<number, string> = {
    1: '[4 January 2024, 09:13] Emi: I work at a marketing firm.',
    2: '[4 January 2024, 09:12] elise: Where do you work these days, Kate?',
    3: 'Teacher assistant jobs, a list to read',
    4: '[9 January 2024, 10:00] Vanessa: I work as a teacher assistant now.',
    5: '[9 January 2024, 10:01] Emi: Work was long today.',
  };
  const ranked = [1, 2, 3, 4, 5, 6].map((item, i) => ({ item, score: 1 - i / 10 }));
  const textOf = (id: number) => texts[id];

  it("step down by the strength when their speaker is none of the best three passages' speakers; the rest stay as they were", () => {
    const out = stepDownOffFocus(ranked, textOf, 0.2);
    expect(out.map((h) => h.item)).toEqual([1, 2, 3, 5, 6, 4]);
    expect(out.find((h) => h.item === 4)!.score).toBeCloseTo(0.5, 9);
    expect(out.filter((h) => h.item !== 4)).toEqual(ranked.filter((h) => h.item !== 4));
  });

  it('change nothing when the best passages name no speaker, or at strength 0', () => {
    const notes = (id: number) => (id <= 3 ? 'Jobs to look at' : texts[id]);
    expect(stepDownOffFocus(ranked, notes, 0.2)).toEqual(ranked);
    expect(stepDownOffFocus(ranked, textOf, 0)).toEqual(ranked);
  });
});
