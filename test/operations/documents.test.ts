/**
 * The documents' operations, by what they do: a document stored and queued for learning, found
 * again by its custom_id, listed a page at a time, read whole, and deleted with what was learned
 * from it; each answer checked, and what it left in the store.
 */
import { afterEach, beforeEach, describe, expect, it } from 'bun:test';
import * as ops from '../../src/operations/index';
import { type Harness, openHarness, refused } from '../helpers/operations';

let h: Harness;
let notes: string;
beforeEach(async () => {
  h = await openHarness(['Notes', 'Work']);
  notes = h.containers.Notes!;
});
afterEach(() => h.close());

describe('add_document', () => {
  it('stores the document as queued, queues its learning, and answers its id', async () => {
    const added = await h.run(ops.addDocument, h.owner, {
      container: notes,
      content: 'The plumber comes on Thursday at nine.',
      title: 'Plumber',
      custom_id: 'note-1',
      metadata: { source: 'phone' },
    });
    expect(added).toEqual({
      id: expect.stringMatching(/^doc_/),
      status: 'queued',
      container: notes,
      custom_id: 'note-1',
    });
    const stored = await h.store.documents.get(h.owner.accountId, added.id);
    expect(stored).toMatchObject({
      containerId: notes,
      title: 'Plumber',
      content: 'The plumber comes on Thursday at nine.',
      customId: 'note-1',
      metadata: { source: 'phone' },
      status: 'queued',
    });
    expect(await h.store.jobs.countPending()).toBe(1);
  });

  it('answers "exists" with the first id for a custom_id the container holds, storing nothing more', async () => {
    const first = await h.run(ops.addDocument, h.owner, {
      container: notes,
      content: 'First wording.',
      custom_id: 'same',
    });
    const again = await h.run(ops.addDocument, h.owner, {
      container: notes,
      content: 'First wording.',
      custom_id: 'same',
    });
    expect(again).toEqual({ id: first.id, status: 'exists', container: notes, custom_id: 'same' });
    expect((await h.store.documents.list(h.owner.accountId, [notes], 10, null)).documents).toHaveLength(1);
    expect(await h.store.jobs.countPending()).toBe(1);
  });

  it("goes to the caller's only container when none is named (a key reaching one)", async () => {
    const key = await h.key({ level: 'suggest', containers: [notes] });
    const added = await h.run(ops.addDocument, key, { content: 'A key wrote this.' });
    expect(added.container).toBe(notes);
    expect((await h.store.documents.get(h.owner.accountId, added.id))!.containerId).toBe(notes);
  });

  it('refuses a document with both content and url (400) and stores nothing', async () => {
    const err = await refused(
      h.run(ops.addDocument, h.owner, { container: notes, content: 'text', url: 'https://example.org/' }),
    );
    expect(err).toMatchObject({ status: 400, code: 'validation' });
    expect((await h.store.documents.list(h.owner.accountId, [notes], 10, null)).documents).toEqual([]);
    expect(await h.store.jobs.countPending()).toBe(0);
  });
});

describe('learning a document', () => {
  it('makes it learned, with passages its words find', async () => {
    const { id } = await h.run(ops.addDocument, h.owner, {
      container: notes,
      content: 'The plumber comes on Thursday at nine.',
    });
    await h.learn();
    expect(await h.run(ops.getDocument, h.owner, { document_id: id })).toMatchObject({
      status: 'learned',
      learned: true,
      error: null,
    });
    expect(await h.store.passages.list(h.owner.accountId, id)).toEqual([
      expect.objectContaining({ content: 'The plumber comes on Thursday at nine.' }),
    ]);
    expect(await h.store.passages.search(h.owner.accountId, [notes], 'plumber', 10)).toHaveLength(1);
  });
});

describe('get_document', () => {
  it('answers the whole document, its content included', async () => {
    const { id } = await h.run(ops.addDocument, h.owner, { container: notes, content: 'Whole text here.', title: 'T' });
    expect(await h.run(ops.getDocument, h.owner, { document_id: id })).toMatchObject({
      id,
      container: notes,
      title: 'T',
      content: 'Whole text here.',
      url: null,
      custom_id: null,
      metadata: null,
      status: 'queued',
      learned: false,
    });
  });

  it("answers 404 for a document out of the key's reach", async () => {
    const work = (await h.run(ops.addDocument, h.owner, { container: h.containers.Work!, content: 'Work only.' })).id;
    const key = await h.key({ level: 'read', containers: [notes] });
    expect(await refused(h.run(ops.getDocument, key, { document_id: work }))).toMatchObject({
      status: 404,
      code: 'not_found',
    });
  });
});

describe('list_documents', () => {
  it('pages through the documents newest first, without their content, each once', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      h.clock.advance(1000);
      ids.push((await h.run(ops.addDocument, h.owner, { container: notes, content: `Note number ${i}.` })).id);
    }
    const first = await h.run(ops.listDocuments, h.owner, { container: notes, limit: 2 });
    expect(first.documents.map((d: { id: string }) => d.id)).toEqual(ids.slice(3).reverse());
    expect(first.documents[0]).not.toHaveProperty('content');
    const second = await h.run(ops.listDocuments, h.owner, { container: notes, limit: 2, cursor: first.next_cursor });
    const third = await h.run(ops.listDocuments, h.owner, { container: notes, limit: 2, cursor: second.next_cursor });
    expect([...second.documents, ...third.documents].map((d: { id: string }) => d.id)).toEqual(
      ids.slice(0, 3).reverse(),
    );
    expect(third.next_cursor).toBeNull();
  });

  it('holds 50 on a page when no limit is given, and refuses a limit over 200 (422 naming it)', async () => {
    for (let i = 0; i < 51; i++) await h.run(ops.addDocument, h.owner, { container: notes, content: `Many ${i}.` });
    const first = await h.run(ops.listDocuments, h.owner, { container: notes });
    expect(first.documents).toHaveLength(50);
    const rest = await h.run(ops.listDocuments, h.owner, { container: notes, cursor: first.next_cursor });
    expect([rest.documents.length, rest.next_cursor]).toEqual([1, null]);
    const over = await refused(h.run(ops.listDocuments, h.owner, { container: notes, limit: 201 }));
    expect([over?.status, over?.details.fields]).toEqual([422, ['limit']]);
    expect((await h.run(ops.listDocuments, h.owner, { container: notes, limit: 200 })).documents).toHaveLength(51);
  });

  it('lists every container in reach when none is named, and nothing outside it', async () => {
    const inNotes = (await h.run(ops.addDocument, h.owner, { container: notes, content: 'In Notes.' })).id;
    await h.run(ops.addDocument, h.owner, { container: h.containers.Work!, content: 'In Work.' });
    const key = await h.key({ level: 'read', containers: [notes] });
    expect((await h.run(ops.listDocuments, key, {})).documents.map((d: { id: string }) => d.id)).toEqual([inNotes]);
    expect((await h.run(ops.listDocuments, h.owner, {})).documents).toHaveLength(2);
  });
});

describe('delete_document', () => {
  it('asks for confirmation first and deletes nothing', async () => {
    const { id } = await h.run(ops.addDocument, h.owner, {
      container: notes,
      content: 'Keep me for now.',
      title: 'Keeper',
    });
    const asked = await h.run(ops.deleteDocument, h.owner, { document_id: id });
    expect(asked).toMatchObject({ status: 'confirmation_required', verb: 'delete_document' });
    expect(asked.how).toContain('"Keeper"');
    expect(await h.store.documents.get(h.owner.accountId, id)).not.toBeNull();
  });

  it('confirmed, removes the document and its passages, counted, so search no longer finds it', async () => {
    const { id } = await h.run(ops.addDocument, h.owner, {
      container: notes,
      content: 'The plumber comes on Thursday at nine.',
    });
    await h.learn();
    const done = await h.run(ops.deleteDocument, h.owner, { document_id: id, confirm: true });
    expect(done).toEqual({
      status: 'deleted',
      id,
      forgotten: { documents: 1, passages: 1, facts: 0 },
      kept: { facts: 0 },
    });
    expect(await h.store.documents.get(h.owner.accountId, id)).toBeNull();
    expect(await h.store.passages.list(h.owner.accountId, id)).toEqual([]);
    expect((await h.run(ops.searchMemories, h.owner, { q: 'plumber', container: notes })).results).toEqual([]);
  });

  it('answers 404 for a document already deleted', async () => {
    const { id } = await h.run(ops.addDocument, h.owner, { container: notes, content: 'Short-lived.' });
    await h.run(ops.deleteDocument, h.owner, { document_id: id, confirm: true });
    expect(await refused(h.run(ops.deleteDocument, h.owner, { document_id: id, confirm: true }))).toMatchObject({
      status: 404,
      code: 'not_found',
    });
  });
});
