/**
 * The facts' operations, by what they do: a fact saved into a container (and searchable at once),
 * reworded with its old wording kept, confirmed, read with where it came from, and forgotten; each
 * answer checked, and what it left in the store.
 */
import { afterEach, beforeEach, describe, expect, it } from 'bun:test';
import { iso } from '../../src/clock';
import * as ops from '../../src/operations/index';
import { type Harness, openHarness, refused } from '../helpers/operations';

let h: Harness;
let notes: string;
beforeEach(async () => {
  h = await openHarness(['Notes', 'Work']);
  notes = h.containers.Notes!;
});
afterEach(() => h.close());

describe('add_memory', () => {
  it('stores the fact in the container, written by the key that saved it, and answers it', async () => {
    const key = await h.key({ level: 'suggest', containers: [notes] });
    const fact = await h.run(ops.addMemory, key, {
      container: notes,
      content: 'Prefers window seats.',
      title: 'Seats',
    });
    expect(fact).toEqual({
      id: expect.stringMatching(/^mem_/),
      content: 'Prefers window seats.',
      title: 'Seats',
      static: false,
      container: notes,
      created_at: iso(h.clock.now()),
      updated_at: iso(h.clock.now()),
    });
    expect(await h.store.facts.get(h.owner.accountId, fact.id)).toMatchObject({
      containerId: notes,
      content: 'Prefers window seats.',
      static: false,
      writtenBy: key.kind === 'owner' ? null : key.grant.credentialId,
    });
  });

  it('makes the fact searchable at once, with no learning turn between', async () => {
    const { id } = await h.run(ops.addMemory, h.owner, { container: notes, content: 'Allergic to hazelnuts.' });
    const { results } = await h.run(ops.searchMemories, h.owner, { q: 'hazelnuts', container: notes });
    expect(results.map((r: { memory_id: string }) => r.memory_id)).toEqual([id]);
  });

  it('saves a static fact into the profile, in no container', async () => {
    const fact = await h.run(ops.addMemory, h.owner, { content: 'Lives in Leipzig.', static: true });
    expect(fact).toMatchObject({ static: true, container: null, content: 'Lives in Leipzig.' });
    expect((await h.store.facts.listStatic(h.owner.accountId)).map((f) => f.id)).toEqual([fact.id]);
  });

  it('refuses words that are only spaces (400) and stores nothing', async () => {
    expect(await refused(h.run(ops.addMemory, h.owner, { container: notes, content: '   ' }))).toMatchObject({
      status: 400,
      details: { fields: ['content'] },
    });
    expect(await h.store.facts.list(h.owner.accountId)).toEqual([]);
  });
});

describe('update_memory', () => {
  it('rewords the fact, keeps the old wording in its history, and marks it reviewed', async () => {
    const { id } = await h.run(ops.addMemory, h.owner, { container: notes, content: 'Drinks coffee black.' });
    h.clock.advance(60_000);
    const updated = await h.run(ops.updateMemory, h.owner, { memory_id: id, content: 'Drinks coffee with oat milk.' });
    expect(updated).toMatchObject({ id, content: 'Drinks coffee with oat milk.', reviewed_at: iso(h.clock.now()) });
    expect(await h.store.facts.get(h.owner.accountId, id)).toMatchObject({
      content: 'Drinks coffee with oat milk.',
      reviewedAt: h.clock.now(),
    });
    expect(await h.store.facts.listHistory(h.owner.accountId, id)).toEqual([
      { content: 'Drinks coffee black.', replacedAt: h.clock.now() },
    ]);
    // Search follows the new wording.
    expect(
      (await h.run(ops.searchMemories, h.owner, { q: 'oat milk', container: notes })).results.map(
        (r: { memory_id: string }) => r.memory_id,
      ),
    ).toEqual([id]);
    expect((await h.run(ops.searchMemories, h.owner, { q: 'black', container: notes })).results).toEqual([]);
  });

  it('answers 404 for a fact of another account and leaves it as it was', async () => {
    const other = await h.otherAccount('other@example.org', ['Theirs']);
    const { id } = await h.run(ops.addMemory, other.owner, {
      container: other.containers.Theirs,
      content: 'Their fact.',
    });
    expect(await refused(h.run(ops.updateMemory, h.owner, { memory_id: id, content: 'Mine now.' }))).toMatchObject({
      status: 404,
    });
    expect(await h.store.facts.get(other.owner.accountId, id)).toMatchObject({
      content: 'Their fact.',
      reviewedAt: null,
    });
  });
});

describe('confirm_fact', () => {
  it('marks the fact reviewed without changing its words', async () => {
    const { id } = await h.run(ops.addMemory, h.owner, { container: notes, content: 'Runs on Sundays.' });
    h.clock.advance(1000);
    expect(await h.run(ops.confirmFact, h.owner, { memory_id: id })).toMatchObject({
      id,
      content: 'Runs on Sundays.',
      reviewed_at: iso(h.clock.now()),
    });
    expect(await h.store.facts.get(h.owner.accountId, id)).toMatchObject({
      content: 'Runs on Sundays.',
      reviewedAt: h.clock.now(),
    });
    expect(await h.store.facts.listHistory(h.owner.accountId, id)).toEqual([]);
  });
});

describe('get_fact', () => {
  it('answers the fact with who wrote it and its earlier wordings', async () => {
    const key = await h.key({ level: 'suggest', containers: [notes], name: 'Phone app' });
    const { id } = await h.run(ops.addMemory, key, { container: notes, content: 'Owns a red bicycle.' });
    h.clock.advance(1000);
    await h.run(ops.updateMemory, h.owner, { memory_id: id, content: 'Owns a blue bicycle.' });
    const detail = await h.run(ops.getFact, h.owner, { memory_id: id });
    expect(detail.fact).toMatchObject({ id, content: 'Owns a blue bicycle.' });
    expect(detail.written_by).toMatchObject({ name: 'Phone app', state: 'active' });
    expect(detail.learned_from).toBeNull();
    expect(detail.history).toEqual([{ content: 'Owns a red bicycle.', replaced_at: iso(h.clock.now()) }]);
  });
});

describe('forget_memory', () => {
  it('asks for confirmation first and keeps the fact', async () => {
    const { id } = await h.run(ops.addMemory, h.owner, { container: notes, content: 'Plays chess on Tuesdays.' });
    expect(await h.run(ops.forgetMemory, h.owner, { memory_id: id })).toMatchObject({
      status: 'confirmation_required',
      verb: 'forget_memory',
    });
    expect(await h.store.facts.get(h.owner.accountId, id)).not.toBeNull();
  });

  it('confirmed, removes the fact and its passage: search no longer finds it', async () => {
    const { id } = await h.run(ops.addMemory, h.owner, { container: notes, content: 'Plays chess on Tuesdays.' });
    expect(await h.run(ops.forgetMemory, h.owner, { memory_id: id, confirm: true })).toEqual({
      status: 'forgotten',
      id,
    });
    expect(await h.store.facts.get(h.owner.accountId, id)).toBeNull();
    expect(await h.store.passages.search(h.owner.accountId, [notes], 'chess', 10)).toEqual([]);
    expect((await h.run(ops.searchMemories, h.owner, { q: 'chess', container: notes })).results).toEqual([]);
  });

  it('answers 404 when the fact is in another container than the one named, and keeps it', async () => {
    const { id } = await h.run(ops.addMemory, h.owner, { container: notes, content: 'Keeps bees.' });
    expect(
      await refused(h.run(ops.forgetMemory, h.owner, { memory_id: id, container: h.containers.Work, confirm: true })),
    ).toMatchObject({ status: 404 });
    expect(await h.store.facts.get(h.owner.accountId, id)).not.toBeNull();
  });
});
