/**
 * search_memories by what it answers: the passages of learned documents and the facts of the
 * containers searched, best first, each hit saying where it is from; one container or every one in
 * the caller's reach, never beyond it. Keyword search alone (the harness loads no embedding model).
 */
import { afterEach, beforeEach, describe, expect, it } from 'bun:test';
import * as ops from '../../src/operations/index';
import { type Harness, openHarness, refused } from '../helpers/operations';

let h: Harness;
let notes: string;
let work: string;
beforeEach(async () => {
  h = await openHarness(['Notes', 'Work']);
  ({ Notes: notes, Work: work } = h.containers as { Notes: string; Work: string });
});
afterEach(() => h.close());

type Hit = { content: string; container: string; document_id: string | null; memory_id: string | null; score: number };

describe('search_memories', () => {
  it("finds a learned document's passage, saying which document, container and position it is", async () => {
    const doc = await h.run(ops.addDocument, h.owner, {
      container: notes,
      content: 'The violin lesson is on Saturday morning.',
      title: 'Lessons',
      custom_id: 'lessons',
    });
    await h.learn();
    const res = await h.run(ops.searchMemories, h.owner, { q: 'violin lesson', container: notes });
    expect(res.containers).toEqual([{ id: notes, name: 'Notes' }]);
    expect(res.results).toEqual([
      {
        container: notes,
        container_name: 'Notes',
        content: 'The violin lesson is on Saturday morning.',
        score: expect.any(Number),
        document_id: doc.id,
        memory_id: null,
        custom_id: 'lessons',
        title: 'Lessons',
        position: 0,
      },
    ]);
  });

  it('does not find a document before it is learned', async () => {
    await h.run(ops.addDocument, h.owner, { container: notes, content: 'The violin lesson is on Saturday morning.' });
    expect((await h.run(ops.searchMemories, h.owner, { q: 'violin', container: notes })).results).toEqual([]);
  });

  it('ranks the passage that matches more of the query first, and keeps to the limit', async () => {
    await h.run(ops.addDocument, h.owner, { container: notes, content: 'Bought new running shoes.' });
    await h.run(ops.addDocument, h.owner, {
      container: notes,
      content: 'The running club meets at the lake on Sundays.',
    });
    await h.run(ops.addMemory, h.owner, { container: notes, content: 'Prefers running in the morning.' });
    await h.learn();
    const res = await h.run(ops.searchMemories, h.owner, { q: 'running club lake', container: notes, limit: 2 });
    expect(res.results).toHaveLength(2);
    expect(res.results[0].content).toBe('The running club meets at the lake on Sundays.');
    expect(res.results[0].score).toBeGreaterThan(res.results[1].score);
  });

  it('searches every container in reach with "*", and only those', async () => {
    await h.run(ops.addMemory, h.owner, { container: notes, content: 'The garden gate squeaks.' });
    await h.run(ops.addMemory, h.owner, { container: work, content: 'The office gate code is 4512.' });
    const all = await h.run(ops.searchMemories, h.owner, { q: 'gate', container: '*' });
    expect(all.results.map((r: Hit) => r.container).sort()).toEqual([notes, work].sort());
    expect(all.containers.map((c: { id: string }) => c.id).sort()).toEqual([notes, work].sort());
    const key = await h.key({ level: 'read', containers: [notes] });
    const mine = await h.run(ops.searchMemories, key, { q: 'gate', container: '*' });
    expect(mine.results.map((r: Hit) => r.content)).toEqual(['The garden gate squeaks.']);
    expect(mine.containers).toEqual([{ id: notes, name: 'Notes' }]);
  });

  it("refuses a container out of the key's reach (403)", async () => {
    await h.run(ops.addMemory, h.owner, { container: work, content: 'The office gate code is 4512.' });
    const key = await h.key({ level: 'read', containers: [notes] });
    expect(await refused(h.run(ops.searchMemories, key, { q: 'gate', container: work }))).toMatchObject({
      status: 403,
      code: 'unauthorized',
    });
  });

  it("never answers from another account's memory", async () => {
    const other = await h.otherAccount('other@example.org', ['Notes']);
    await h.run(ops.addMemory, other.owner, {
      container: other.containers.Notes,
      content: 'Their secret recipe uses cardamom.',
    });
    expect((await h.run(ops.searchMemories, h.owner, { q: 'cardamom', container: '*' })).results).toEqual([]);
  });
});
