/**
 * Two levers of issue 39 (src/search/tuning.ts) on their own: passages that ask stepping down
 * (asking.ts), and passages dated on a day the question names stepping up (dated.ts). Whether
 * either helps is the benchmark's question (bench/retrieval-quality.ts), never a test's.
 */
import { describe, expect, it } from 'bun:test';
import { askingShare, stepDownAsking } from '../../src/search/asking';
import { daysNamed, passageDay, stepUpDated } from '../../src/search/dated';

const day = (iso: string) => Date.parse(`${iso}T00:00:00Z`) / 86_400_000;

describe('passages that ask', () => {
  it('measure the share of their sentences that are questions, their leading line included', () => {
    expect(askingShare('[4 January 2024, 09:12] elise: I never asked Kate, where do you work?')).toBe(1);
    expect(askingShare('Hello Kate. Happy New Years! How did you choose to celebrate this year?')).toBeCloseTo(
      1 / 3,
      9,
    );
    expect(askingShare('I work as the social media manager of a marketing firm.')).toBe(0);
    expect(askingShare('Really? "Which one?"\nThe red one.')).toBeCloseTo(2 / 3, 9);
    expect(askingShare('...')).toBe(0);
  });

  it('step down by the strength times that share, best first again, and leave a passage not read as it was', () => {
    const texts: Record<number, string> = { 1: 'Where do you work?', 2: 'I work at a bakery.' };
    const ranked = [
      { item: 1, score: 1 },
      { item: 2, score: 0.8 },
      { item: 3, score: 0.7 },
    ];
    expect(stepDownAsking(ranked, (id) => texts[id], 0.5)).toEqual([
      { item: 2, score: 0.8 },
      { item: 3, score: 0.7 },
      { item: 1, score: 0.5 },
    ]);
    expect(stepDownAsking(ranked, (id) => texts[id], 0)).toEqual(ranked);
  });
});

describe('passages dated on a day the question names', () => {
  it('read the days a question names, in the ways people write them, and no impossible day', () => {
    expect(daysNamed('What did Elise buy on 7 Jan 2024?')).toEqual([day('2024-01-07')]);
    expect(daysNamed('on January 7th, 2024, the 8th of May 2023 or 2023-12-31')).toEqual([
      day('2024-01-07'),
      day('2023-05-08'),
      day('2023-12-31'),
    ]);
    expect(daysNamed('Sept 3 2022 and 31 Feb 2024 and the first week of 2024')).toEqual([day('2022-09-03')]);
  });

  it("read a passage's day from its leading line only: a chat message's header or a transcript's speaker line", () => {
    expect(passageDay('[29 December 2023, 22:42] Emi: hi')).toBe(day('2023-12-29'));
    expect(passageDay('User, 2024-03-01 14:02 UTC: hello')).toBe(day('2024-03-01'));
    expect(passageDay(`${'Nothing dated up front. '.repeat(4)}Then 29 December 2023.`)).toBeNull();
  });

  it('step up a passage of that day or the day after, and change nothing when the question names no day', () => {
    const texts: Record<number, string> = {
      1: '[6 January 2024, 10:00] Emi: Weather is nice.',
      2: '[8 January 2024, 10:00] Emi: I bought water yesterday.',
      3: '[7 January 2024, 10:00] Emi: At Walmart buying water.',
    };
    const ranked = [
      { item: 1, score: 1 },
      { item: 2, score: 0.9 },
      { item: 3, score: 0.5 },
    ];
    const up = stepUpDated(ranked, [day('2024-01-07')], (id) => texts[id], 0.2);
    expect(up).toEqual([
      { item: 2, score: 0.9 + 0.2 },
      { item: 1, score: 1 },
      { item: 3, score: 0.5 + 0.2 },
    ]);
    expect(stepUpDated(ranked, [], (id) => texts[id], 0.2)).toEqual(ranked);
  });
});
