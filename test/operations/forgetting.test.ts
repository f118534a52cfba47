/**
 * Forgetting by what it does: what a delete would take, in words, before it is done
 * (forgetting_plan); a document's delete taking the facts learned from it and keeping the ones the
 * owner reviewed, their source cleared; the owner's delete forgetting those too (delete_with_facts).
 * Learned facts are stored as learning stores them (the harness runs no language model to find them).
 */
import { afterEach, beforeEach, describe, expect, it } from 'bun:test';
import { newId } from '../../src/ids';
import * as ops from '../../src/operations/index';
import { type Harness, openHarness, refused } from '../helpers/operations';

let h: Harness;
let notes: string;
/** A learned document in Notes, with two facts learned from it: `reviewed` the owner confirmed, `learned` not. */
let doc: string;
let reviewed: string;
let learned: string;

beforeEach(async () => {
  h = await openHarness(['Notes']);
  notes = h.containers.Notes!;
  doc = (
    await h.run(ops.addDocument, h.owner, {
      container: notes,
      content: 'We moved to Hamburg in May. The new flat has a balcony.',
      title: 'Moving',
    })
  ).id;
  await h.learn();
  const learnedFact = async (content: string) => {
    const id = newId('mem');
    const now = h.clock.now();
    await h.store.facts.insert({
      id,
      accountId: h.owner.accountId,
      containerId: notes,
      content,
      title: null,
      static: false,
      createdAt: now,
      updatedAt: now,
      sourceDocumentId: doc,
      sourcePosition: 0,
    });
    return id;
  };
  reviewed = await learnedFact('Lives in Hamburg.');
  learned = await learnedFact('Has a balcony.');
  await h.run(ops.confirmFact, h.owner, { memory_id: reviewed });
});
afterEach(() => h.close());

describe('forgetting_plan', () => {
  it('tells what deleting the document would take, and which reviewed facts it would keep, deleting nothing', async () => {
    const plan = await h.run(ops.forgettingPlan, h.owner, { document_id: doc });
    expect(plan.loss).toBe('the document “Moving”, its 1 passage and the 1 fact learned from it');
    expect(plan.kept.map((f: { id: string }) => f.id)).toEqual([reviewed]);
    expect(await h.store.documents.get(h.owner.accountId, doc)).not.toBeNull();
    expect(await h.store.facts.get(h.owner.accountId, learned)).not.toBeNull();
  });

  it('tells what deleting the container would take: the facts in it go with it, reviewed or not', async () => {
    const plan = await h.run(ops.forgettingPlan, h.owner, { container_id: notes });
    expect(plan.loss).toBe(
      'the container “Notes”, its 1 document with their 1 passage and the 2 facts in it or learned from it',
    );
    expect(plan.kept).toEqual([]);
  });

  it('refuses both a document and a container, or neither', async () => {
    expect(await refused(h.run(ops.forgettingPlan, h.owner, { document_id: doc, container_id: notes }))).toMatchObject({
      code: 'validation',
    });
    expect(await refused(h.run(ops.forgettingPlan, h.owner, {}))).toMatchObject({ code: 'validation' });
  });
});

describe('delete_document', () => {
  it('takes the facts learned from the document and keeps the reviewed one, its source cleared', async () => {
    const done = await h.run(ops.deleteDocument, h.owner, { document_id: doc, confirm: true });
    expect(done).toEqual({
      status: 'deleted',
      id: doc,
      forgotten: { documents: 1, passages: 1, facts: 1 },
      kept: { facts: 1 },
    });
    expect(await h.store.facts.get(h.owner.accountId, learned)).toBeNull();
    expect(await h.store.facts.get(h.owner.accountId, reviewed)).toMatchObject({
      content: 'Lives in Hamburg.',
      sourceDocumentId: null,
    });
    expect(await h.store.passages.search(h.owner.accountId, [notes], 'balcony', 10)).toEqual([]);
    expect(
      (await h.run(ops.searchMemories, h.owner, { q: 'Hamburg', container: notes })).results.map(
        (r: { memory_id: string }) => r.memory_id,
      ),
    ).toEqual([reviewed]);
  });
});

describe("delete_with_facts (the owner's delete)", () => {
  it('forgets the reviewed facts named as well, in the same delete', async () => {
    const done = await h.run(ops.deleteWithFacts, h.owner, { document_id: doc, forget_facts: [reviewed] });
    expect(done).toEqual({
      status: 'deleted',
      id: doc,
      forgotten: { documents: 1, passages: 1, facts: 2 },
      kept: { facts: 0 },
    });
    expect(await h.store.facts.get(h.owner.accountId, reviewed)).toBeNull();
    expect(await h.store.facts.get(h.owner.accountId, learned)).toBeNull();
    expect((await h.run(ops.searchMemories, h.owner, { q: 'Hamburg', container: notes })).results).toEqual([]);
  });

  it('deletes a whole container with its documents and facts', async () => {
    const done = await h.run(ops.deleteWithFacts, h.owner, { container_id: notes });
    expect(done).toMatchObject({
      status: 'deleted',
      id: notes,
      forgotten: { documents: 1, facts: 2 },
      kept: { facts: 0 },
    });
    expect(await h.store.containers.get(h.owner.accountId, notes)).toBeNull();
    expect(await h.store.facts.list(h.owner.accountId)).toEqual([]);
  });

  it("is the owner's alone: a manage key is refused (403) and nothing goes", async () => {
    const key = await h.key({ level: 'manage', containers: [notes] });
    expect(
      await refused(h.run(ops.deleteWithFacts, key, { document_id: doc, forget_facts: [reviewed] })),
    ).toMatchObject({ status: 403 });
    expect(await h.store.documents.get(h.owner.accountId, doc)).not.toBeNull();
    expect(await h.store.facts.get(h.owner.accountId, reviewed)).not.toBeNull();
  });
});
