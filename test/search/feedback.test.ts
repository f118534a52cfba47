/**
 * The feedback lever of issue 39 on its own (src/search/feedback.ts): a query moved toward the best
 * hits' vectors, which the vector index gives back (vector-index.ts's vectorOf). Whether it helps is
 * the benchmark's question (bench/retrieval-quality.ts), never a test's.
 */
import { describe, expect, it } from 'bun:test';
import { movedQuery } from '../../src/search/feedback';
import { quantize } from '../../src/storage/stored-vector';
import { scratchIndex } from '../helpers/scratch';

const cosine = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i]!, 0);

describe('a query moved toward the hits shown', () => {
  const q = Float32Array.from([1, 0, 0, 0]);
  const a = Float32Array.from([0, 1, 0, 0]);
  const b = Float32Array.from([0, 0, 1, 0]);

  it('is the query plus strength × the hits’ mean, normalised again', () => {
    const moved = movedQuery(q, [a, b], 1);
    expect(Math.hypot(...moved)).toBeCloseTo(1, 6);
    // (1, 0.5, 0.5, 0) normalised.
    const n = Math.hypot(1, 0.5, 0.5);
    expect([...moved].map((x) => Number(x.toFixed(6)))).toEqual(
      [1 / n, 0.5 / n, 0.5 / n, 0].map((x) => Number(x.toFixed(6))),
    );
    expect(cosine(movedQuery(q, [a], 2), a)).toBeGreaterThan(cosine(movedQuery(q, [a], 0.5), a));
  });

  it('is the query itself when no hit is shown, or at strength 0', () => {
    expect(movedQuery(q, [], 1)).toEqual(q);
    expect(movedQuery(q, [a], 0)).toEqual(q);
  });
});

describe("a passage's vector from the index", () => {
  it('is its first unit, normalised, as near its stored vector as int8 keeps it; null once removed or never held', () => {
    const index = scratchIndex(4);
    const whole = Float32Array.from([0.5, -0.5, 0.5, 0.5]);
    index.add(7, 'c', [quantize(whole), quantize(Float32Array.from([1, 0, 0, 0]))]);
    const v = index.vectorOf(7)!;
    expect(Math.hypot(...v)).toBeCloseTo(1, 5);
    expect(cosine(v, whole)).toBeGreaterThan(0.999);
    expect(index.vectorOf(8)).toBeNull();
    index.remove(7);
    expect(index.vectorOf(7)).toBeNull();
    index.close();
  });
});
