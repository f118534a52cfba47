/**
 * Fusion's arithmetic (src/search/fusion.ts): convex fusion by score, and fusion by rank mixed into
 * it (issue 39's byRank). Which fusion ranks best is the benchmark's question, never a test's.
 */
import { describe, expect, it } from 'bun:test';
import { convexFusion, mixedFusion } from '../../src/search/fusion';

describe('fusion by rank mixed into fusion by score', () => {
  // "a" leads the first list by far; "b" is second in both lists; "c" trails the first list by far.
  const lists = [
    {
      hits: [
        { item: 'a', score: 10 },
        { item: 'b', score: 2 },
        { item: 'c', score: 1 },
      ],
      weight: 0.5,
    },
    {
      hits: [
        { item: 'c', score: 0.9 },
        { item: 'b', score: 0.85 },
      ],
      weight: () => 0.6,
    },
  ];

  it('is convex fusion at share 0, and each list scoring its weight × (k + 1) / (k + rank) at share 1', () => {
    expect(mixedFusion(lists, 0)).toEqual(convexFusion(lists));
    const byRank = Object.fromEntries(mixedFusion(lists, 1).map((f) => [f.item, f.score]));
    expect(byRank.a).toBeCloseTo(0.5, 9);
    expect(byRank.b).toBeCloseTo(1.1 * (61 / 62), 9);
    expect(byRank.c).toBeCloseTo(0.5 * (61 / 63) + 0.6, 9);
  });

  it('lifts what two lists agree on above what one list alone puts far ahead', () => {
    expect(convexFusion(lists).map((f) => f.item)).toEqual(['c', 'a', 'b']);
    expect(mixedFusion(lists, 1).map((f) => f.item)).toEqual(['c', 'b', 'a']);
    const half = Object.fromEntries(mixedFusion(lists, 0.5).map((f) => [f.item, f.score]));
    const convex = Object.fromEntries(convexFusion(lists).map((f) => [f.item, f.score]));
    expect(half.b).toBeCloseTo(0.5 * convex.b! + 0.5 * 1.1 * (61 / 62), 9);
  });
});
