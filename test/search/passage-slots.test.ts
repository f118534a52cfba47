/**
 * The vector index's table from passage id to slots, against a Map doing the same: appends in id
 * order, additions below others, replacements, removals and the sweep of their tombstones.
 */
import { describe, expect, it } from 'bun:test';
import { seeded } from '../../bench/lib/corpus';
import { PassageSlots } from '../../src/search/passage-slots';

describe('PassageSlots', () => {
  it('answers as a Map would through 60,000 mixed operations', () => {
    const random = seeded(3);
    const slots = new PassageSlots();
    const reference = new Map<number, number>();
    let next = 1;
    for (let op = 0; op < 60_000; op++) {
      const r = random();
      // Mostly new, higher ids (how an index grows), some below the highest, many removals.
      const id = r < 0.5 ? next++ : 1 + Math.floor(random() * next);
      if (r < 0.75) {
        const value = Math.floor(random() * 2 ** 40);
        slots.set(id, value);
        reference.set(id, value);
      } else {
        slots.delete(id);
        reference.delete(id);
      }
      if (op % 1000 === 0) expect(slots.size).toBe(reference.size);
    }
    expect(slots.size).toBe(reference.size);
    for (let id = 0; id <= next + 1; id++) expect(slots.get(id)).toBe(reference.get(id));
  });

  it('keeps the rest after most passages are removed (tombstones swept)', () => {
    const slots = new PassageSlots();
    for (let id = 1; id <= 10_000; id++) slots.set(id, id * 256 + 1);
    for (let id = 1; id <= 10_000; id++) if (id % 10 !== 0) slots.delete(id);
    expect(slots.size).toBe(1_000);
    for (let id = 1; id <= 10_000; id++) expect(slots.get(id)).toBe(id % 10 === 0 ? id * 256 + 1 : undefined);
    // A removed passage added again, below the highest.
    slots.set(5, 7);
    expect(slots.get(5)).toBe(7);
    expect(slots.size).toBe(1_001);
  });
});
