/**
 * Forgetting that forgets, through REST: deleting a document takes the facts learned from it, its
 * passages, vectors and keyword index entries along, says beforehand what will go and afterwards
 * what went; a search, an export and the database file's bytes no longer hold it; a fact the owner
 * confirmed is kept. Deleting a container forgets everything in it and learned from it.
 */
import { Database } from 'bun:sqlite';
import { afterEach, beforeEach, describe, expect, it, setDefaultTimeout } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { foundIn, startChatServer } from '../../helpers/chats';
import { call, makeOwner, startTestServer } from '../../helpers/server';
import { allFacts, forgettingWorld, type ForgettingWorld, SECRET_WORDS } from '../fixtures/forgetting';

// Each test starts a server with a model and learns a document first; CLI runs on top: room for a busy machine.
setDefaultTimeout(20_000);

const ROOT = join(import.meta.dir, '../../..');

/** The passages of the account with their vectors: ids by document or fact, read from the file. */
function passagesIn(
  w: ForgettingWorld,
): { id: number; document_id: string | null; memory_id: string | null; vectors: number }[] {
  const db = new Database(join(w.server.dataDir, 'engram.db'), { readonly: true });
  try {
    return db
      .query<{ id: number; document_id: string | null; memory_id: string | null; vectors: number }, []>(`
      SELECT p.id, p.document_id, p.memory_id, (SELECT count(*) FROM passage_vectors v WHERE v.passage_id = p.id) AS vectors
        FROM passages p ORDER BY p.id`)
      .all();
  } finally {
    db.close();
  }
}

/** Checkpoints the WAL into the file (as the issue asks a reader to) and returns the file's bytes as text. */
function fileBytesAfterCheckpoint(dataDir: string): string {
  const file = join(dataDir, 'engram.db');
  const db = new Database(file);
  try {
    db.run('PRAGMA wal_checkpoint(TRUNCATE)');
  } finally {
    db.close();
  }
  let text = readFileSync(file).toString('latin1');
  try {
    text += readFileSync(`${file}-wal`).toString('latin1');
  } catch {}
  return text.toLowerCase();
}

/** The WAL file's bytes as text, as they are (no checkpoint first). */
function walBytes(w: ForgettingWorld): string {
  try {
    return readFileSync(join(w.server.dataDir, 'engram.db-wal')).toString('latin1').toLowerCase();
  } catch {
    return '';
  }
}

/** Which of `words` occur in `text` (a list, so a failure names the word rather than printing the whole file). */
const found = (text: string, words: string[]): string[] => words.filter((w) => text.includes(w.toLowerCase()));

function exportOf(w: ForgettingWorld): string {
  const run = Bun.spawnSync([process.execPath, join(ROOT, 'src/main.ts'), 'export', '--data', w.server.dataDir], {
    env: process.env,
  });
  expect(run.exitCode).toBe(0);
  return run.stdout.toString();
}

async function searchFor(w: ForgettingWorld, q: string) {
  return (await call(w.server, 'POST', '/v1/search', w.key, { q, container: '*', limit: 100 })).body;
}

describe('deleting a document through REST', () => {
  let w: ForgettingWorld;
  beforeEach(async () => {
    w = await forgettingWorld();
  });
  afterEach(() => w.close());

  it('forgets its passages, vectors and learned facts, reports the counts, and leaves no trace in search, export or the file', async () => {
    const learned = (await allFacts(w)).filter((f) => f.source?.document_id === w.diary);
    expect(learned.map((f) => f.content).sort()).toEqual([
      'Plays the xylofungus every evening.',
      'Started a zorblatt course.',
      'Was born in Vantablue harbour.',
    ]);
    const before = passagesIn(w);
    const diaryPassages = before.filter((p) => p.document_id === w.diary);
    expect(diaryPassages.length).toBe(4);
    expect(diaryPassages.every((p) => p.vectors > 0)).toBe(true);
    // Found before: by keyword and (the fact's passage) by vector too.
    expect((await searchFor(w, 'xylofungus')).results.length).toBeGreaterThan(0);
    // In the WAL (not checkpointed here: the delete must clear it itself) or the file.
    expect(
      found(
        walBytes(w) + readFileSync(join(w.server.dataDir, 'engram.db')).toString('latin1').toLowerCase(),
        SECRET_WORDS,
      ),
    ).toEqual(SECRET_WORDS);
    expect(found(walBytes(w), SECRET_WORDS)).toEqual(SECRET_WORDS);
    const indexed = w.server.services.search.indexes.figures().fast;

    const ask = await call(w.server, 'DELETE', `/v1/documents/${w.diary}`, w.key);
    expect(ask.status).toBe(200);
    expect(ask.body.status).toBe('confirmation_required');
    expect(ask.body.how).toContain('the document "Sunday", its 4 passages and the 3 facts learned from it');

    const done = await call(w.server, 'DELETE', `/v1/documents/${w.diary}?confirm=true`, w.key);
    expect(done.status).toBe(200);
    expect(done.body).toEqual({
      status: 'deleted',
      id: w.diary,
      forgotten: { documents: 1, passages: 4, facts: 3 },
      kept: { facts: 0 },
    });
    // The delete itself checkpointed and truncated the WAL, whose old frames held the text.
    expect(found(walBytes(w), SECRET_WORDS)).toEqual([]);

    // The facts are gone, with their passages and every vector; the other document stays.
    expect((await allFacts(w)).map((f) => f.content)).toEqual([]);
    const after = passagesIn(w);
    const goneIds = new Set([...diaryPassages.map((p) => p.id), ...before.filter((p) => p.memory_id).map((p) => p.id)]);
    expect(after.filter((p) => goneIds.has(p.id))).toEqual([]);
    expect(after.map((p) => p.document_id)).toEqual([w.keeper]);
    expect(w.server.services.search.indexes.figures().fast).toBe(indexed - goneIds.size);

    for (const word of SECRET_WORDS) {
      const found = await searchFor(w, word);
      expect(found.results).toEqual([]);
    }
    // A paraphrase the vectors alone would match finds only the garden.
    const paraphrase = await searchFor(w, 'playing a musical instrument in the evening');
    expect(paraphrase.results.every((r: { document_id: string | null }) => r.document_id === w.keeper)).toBe(true);
    expect((await searchFor(w, 'garden gate')).results[0].document_id).toBe(w.keeper);

    const exported = exportOf(w).toLowerCase();
    const bytes = fileBytesAfterCheckpoint(w.server.dataDir);
    expect(found(exported, ['garden gate', ...SECRET_WORDS])).toEqual(['garden gate']);
    expect(found(bytes, ['garden gate', ...SECRET_WORDS])).toEqual(['garden gate']);
  });

  it('keeps a fact the owner confirmed, without its source, and says so before and after', async () => {
    const learned = (await allFacts(w)).filter((f) => f.source?.document_id === w.diary);
    const born = learned.find((f) => f.content.startsWith('Was born'))!;
    const confirmed = await call(w.server, 'POST', `/v1/memories/${born.id}/confirm`, w.owner);
    expect(confirmed.status).toBe(200);
    expect(confirmed.body.reviewed_at).toBeString();
    // A key cannot confirm: it is the owner's word.
    expect((await call(w.server, 'POST', `/v1/memories/${born.id}/confirm`, w.key)).status).toBe(403);

    const ask = await call(w.server, 'DELETE', `/v1/documents/${w.diary}`, w.key);
    expect(ask.body.how).toBe(
      'Ask the person to confirm deleting the document "Sunday", its 4 passages and the 2 facts learned from it ' +
        '(1 fact learned from it that the person confirmed or edited is kept); then call again with confirm=true.',
    );

    const done = await call(w.server, 'DELETE', `/v1/documents/${w.diary}?confirm=true`, w.key);
    expect(done.body.forgotten).toEqual({ documents: 1, passages: 4, facts: 2 });
    expect(done.body.kept).toEqual({ facts: 1 });
    const left = await allFacts(w);
    expect(left.map((f) => [f.id, f.content, f.source ?? null])).toEqual([
      [born.id, 'Was born in Vantablue harbour.', null],
    ]);
  });
});

describe('forgetting one fact through REST', () => {
  let w: ForgettingWorld;
  beforeEach(async () => {
    w = await forgettingWorld();
  });
  afterEach(() => w.close());

  it('leaves nothing of it in search, the keyword index, the WAL or the file', async () => {
    const saved = await call(w.server, 'POST', '/v1/memories', w.key, {
      container: w.container,
      content: 'Keeps the plumbagoric recipe in a drawer.',
    });
    await w.server.learning.drain();
    expect((await searchFor(w, 'plumbagoric')).results.map((r: { memory_id: string }) => r.memory_id)).toEqual([
      saved.body.id,
    ]);
    const indexed = w.server.services.search.indexes.figures().fast;
    const done = await call(w.server, 'DELETE', `/v1/memories/${saved.body.id}?confirm=true`, w.key);
    expect(done.body).toEqual({ status: 'forgotten', id: saved.body.id });
    expect(found(walBytes(w), ['plumbagoric'])).toEqual([]);
    expect(w.server.services.search.indexes.figures().fast).toBe(indexed - 1);
    expect((await searchFor(w, 'plumbagoric')).results).toEqual([]);
    expect(found(fileBytesAfterCheckpoint(w.server.dataDir), ['plumbagoric', 'garden gate'])).toEqual(['garden gate']);
  });
});

describe('a confirmation travels with an export', () => {
  let w: ForgettingWorld;
  beforeEach(async () => {
    w = await forgettingWorld();
  });
  afterEach(() => w.close());

  it("the imported fact is still the owner's: deleting its document there keeps it", async () => {
    const piano = (await allFacts(w)).find((f) => f.content.startsWith('Plays the xylofungus'))!;
    await call(w.server, 'POST', `/v1/memories/${piano.id}/confirm`, w.owner);
    const file = join(w.server.dataDir, '..', `forgetting-export-${crypto.randomUUID()}.jsonl`);
    await Bun.write(file, exportOf(w));
    const target = await startTestServer();
    try {
      const owner = (await makeOwner(target)).token;
      await target.stop();
      const imported = Bun.spawnSync(
        [process.execPath, join(ROOT, 'src/main.ts'), 'import', file, '--data', target.dataDir],
        { env: process.env },
      );
      expect(imported.exitCode).toBe(0);
      const again = await target.restart();
      try {
        await again.learning.drain();
        const docs = (await call(again, 'GET', '/v1/documents', owner)).body.documents;
        const diary = docs.find((d: { title: string }) => d.title === 'Sunday');
        const done = await call(again, 'DELETE', `/v1/documents/${diary.id}?confirm=true`, owner);
        expect([done.body.forgotten.facts, done.body.kept.facts]).toEqual([2, 1]);
      } finally {
        await again.close();
      }
    } finally {
      Bun.spawnSync(['rm', '-f', file]);
    }
  }, 30_000); // two servers and two CLI runs
});

describe('deleting a container through REST', () => {
  let w: ForgettingWorld;
  beforeEach(async () => {
    w = await forgettingWorld();
  });
  afterEach(() => w.close());

  it('forgets its documents, passages, vectors, its facts and the profile facts learned from it, and says so before and after', async () => {
    await call(w.server, 'POST', '/v1/memories', w.key, {
      container: w.container,
      content: 'Waters the quokkaberry bush on Mondays.',
    });
    await w.server.learning.drain();
    const indexed = w.server.services.search.indexes.figures().fast;
    expect(indexed).toBeGreaterThan(0);

    const ask = await call(w.server, 'DELETE', `/v1/containers/${w.container}`, w.owner);
    expect(ask.body.status).toBe('confirmation_required');
    expect(ask.body.how).toContain(
      'the container "Diary", its 2 documents with their 5 passages and the 4 facts in it or learned from it.',
    );

    const done = await call(w.server, 'DELETE', `/v1/containers/${w.container}?confirm=true`, w.owner);
    expect(done.body).toEqual({
      status: 'deleted',
      id: w.container,
      forgotten: { documents: 2, passages: 5, facts: 4 },
      kept: { facts: 0 },
    });
    // The standing fact learned from the diary lived in the profile, outside the container: gone too.
    expect((await call(w.server, 'GET', '/v1/profile', w.key)).body.static).toEqual([]);
    expect(passagesIn(w)).toEqual([]);
    expect(w.server.services.search.indexes.figures().fast).toBe(0);
    expect(found(exportOf(w).toLowerCase(), [...SECRET_WORDS, 'garden gate'])).toEqual([]);
    expect(found(fileBytesAfterCheckpoint(w.server.dataDir), [...SECRET_WORDS, 'garden gate'])).toEqual([]);
  });
});

describe('deleting a chat turn through REST', () => {
  it('takes its words out of the turns beside it, in the keyword index and the file', async () => {
    // Keyword search alone: the turns' context (the exchange, src/learning/exchange.ts) is what is looked at.
    const { server, key, container } = await startChatServer();
    try {
      const say = async (content: string): Promise<string> => {
        server.clock.advance(60_000);
        const res = await call(server, 'POST', '/v1/documents', key, { container, content });
        expect(res.status).toBe(202);
        await server.learning.drain();
        return res.body.id;
      };
      const hits = async (q: string): Promise<number> => (await foundIn(server, key, container, q)).length;
      const forget = async (id: string) =>
        expect((await call(server, 'DELETE', `/v1/documents/${id}?confirm=true`, key)).status).toBe(200);
      // Each turn's keyword entry is rewritten as the turns beside it come (their words, its context).
      const question = await say('[3 May 2024, 18:02] Ann: Where did you leave the wvxqrt parcel?');
      const reply = await say('[3 May 2024, 18:05] Bo: Behind the qzxvorl planter.');
      await say('[3 May 2024, 18:09] Ann: Thanks!');
      expect([await hits('qzxvorl'), await hits('wvxqrt')]).toEqual([3, 2]);

      // The turns beside the reply drop its words from their context, and its own entries go.
      await forget(reply);
      expect(await hits('qzxvorl')).toBe(0);
      expect(found(fileBytesAfterCheckpoint(server.dataDir), ['qzxvorl', 'wvxqrt'])).toEqual(['wvxqrt']);
      // A turn's entries from before it had a context went too (rewritten, then forgotten).
      await forget(question);
      expect(found(fileBytesAfterCheckpoint(server.dataDir), ['qzxvorl', 'wvxqrt', 'thanks'])).toEqual(['thanks']);
    } finally {
      await server.close();
    }
  });
});
