/**
 * The pace of refinement that /healthz and the Memory page go by: the strong index's growth over
 * the last two minutes, none once refinement is held up, and the time left at that pace.
 */
import { describe, expect, it } from 'bun:test';
import { fullQualityIn } from '../../src/operations/learning-progress';
import { RefinementPace } from '../../src/search/refinement-pace';

describe('the pace of refinement', () => {
  it('is the growth over the last two minutes, and says how long the rest takes at it', () => {
    let now = 0;
    const pace = new RefinementPace(() => now);
    expect(pace.perSecond()).toBeNull();
    pace.record(100);
    expect(pace.perSecond()).toBeNull();
    for (let s = 1; s <= 200; s++) {
      now = s * 1000;
      pace.record(100 + s * (s <= 100 ? 10 : 40));
    }
    // Only the last two minutes count: 40 a second since the first hundred seconds.
    expect(pace.perSecond()).toBeGreaterThan(30);
    expect(pace.secondsFor(4000)).toBeLessThan(140);
    expect(pace.secondsFor(0)).toBe(0);
    // Held up (learning new documents first): no pace, no time.
    now += 31_000;
    expect(pace.perSecond()).toBeNull();
    expect(pace.secondsFor(4000)).toBeNull();
  });

  it('is said in words on the Memory page', () => {
    const at = (s: number | null) =>
      fullQualityIn({ queue: 0, passages: 10, refined: 5, refining_per_second: 1, full_quality_in_seconds: s });
    expect(at(null)).toBeNull();
    expect(at(0)).toBeNull();
    expect(at(40)).toBe('in about a minute');
    expect(at(25 * 60)).toBe('in about 25 minutes');
    expect(at(3 * 3600)).toBe('in about 3 hours');
  });
});
