/**
 * Forgetting through MCP with the official SDK client: delete_document's confirmation request says
 * what will go, the confirmed call reports what went, and search_memories afterwards finds nothing
 * learned from the document; a fact the owner confirmed is kept, as the answer says.
 */
import { afterEach, beforeEach, describe, expect, it, setDefaultTimeout } from 'bun:test';
import { call } from '../../helpers/server';
import { allFacts, forgettingWorld, type ForgettingWorld, SECRET_WORDS } from '../fixtures/forgetting';
import { connectMcp, type McpSession, ok } from './mcp-client';

// Each test starts a server with a model and learns a document first; CLI runs on top: room for a busy machine.
setDefaultTimeout(20_000);

describe('delete_document over MCP', () => {
  let w: ForgettingWorld;
  let session: McpSession;
  beforeEach(async () => {
    w = await forgettingWorld();
    session = await connectMcp(w.server, w.key);
  });
  afterEach(async () => {
    await session.close();
    await w.close();
  });

  it('says what will go, forgets the facts learned from the document with it, and search finds none of it', async () => {
    expect((await ok(session, 'search_memories', { q: 'zorblatt', container: '*' })).results.length).toBeGreaterThan(0);
    expect(await ok(session, 'delete_document', { document_id: w.diary })).toEqual({
      status: 'confirmation_required',
      verb: 'delete_document',
      how: 'Ask the person to confirm deleting the document "Sunday", its 4 passages and the 3 facts learned from it; then call again with confirm=true.',
    });
    expect(await ok(session, 'delete_document', { document_id: w.diary, confirm: true })).toEqual({
      status: 'deleted',
      id: w.diary,
      forgotten: { documents: 1, passages: 4, facts: 3 },
      kept: { facts: 0 },
    });
    for (const q of [...SECRET_WORDS, 'playing a musical instrument in the evening']) {
      const found = await ok(session, 'search_memories', { q, container: '*' });
      expect({
        q,
        hits: found.results.filter((r: { document_id: string | null }) => r.document_id !== w.keeper),
      }).toEqual({ q, hits: [] });
    }
    expect(await allFacts(w)).toEqual([]);
  });

  it('keeps a fact the owner confirmed and says so; the key forgets it only on its own, with forget_memory', async () => {
    const piano = (await allFacts(w)).find((f) => f.content.startsWith('Plays the xylofungus'))!;
    expect((await call(w.server, 'POST', `/v1/memories/${piano.id}/confirm`, w.owner)).status).toBe(200);
    const asked = await ok(session, 'delete_document', { document_id: w.diary });
    expect(asked.how).toContain(
      'the 2 facts learned from it (1 fact learned from it that the person confirmed or edited is kept)',
    );
    const done = await ok(session, 'delete_document', { document_id: w.diary, confirm: true });
    expect([done.forgotten, done.kept]).toEqual([{ documents: 1, passages: 4, facts: 2 }, { facts: 1 }]);
    expect((await allFacts(w)).map((f) => [f.id, f.source ?? null])).toEqual([[piano.id, null]]);
    // Still found: it is the owner's now.
    expect(
      (await ok(session, 'search_memories', { q: 'xylofungus', container: '*' })).results.map(
        (r: { memory_id: string }) => r.memory_id,
      ),
    ).toEqual([piano.id]);
    expect(await ok(session, 'forget_memory', { memory_id: piano.id, confirm: true })).toEqual({
      status: 'forgotten',
      id: piano.id,
    });
  });
});
