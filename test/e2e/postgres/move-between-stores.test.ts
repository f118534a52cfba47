/**
 * Moving between stores is export and import (docs/scaling.md): an account exported from SQLite
 * with `engram export`, imported into PostgreSQL with `engram import --database`, exported from
 * there and imported into a new SQLite store keeps everything: containers, documents with their
 * states and times, learned facts with their source passage and earlier wordings, static facts,
 * rules. Neither import asks its model to learn the facts again.
 */
import { afterAll, describe, expect, it } from 'bun:test';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EXTRACT_SYSTEM } from '../../../src/learning/fact-extractor';
import { MERGE_SYSTEM } from '../../../src/agent/merge-static-fact';
import { type ChatRequest, startFakeModel } from '../../agent/fake-model';
import { postgresOrSkip } from '../../helpers/postgres';
import { call, makeContainer, makeKey, makeOwner, startTestServer, type TestServer } from '../../helpers/server';
import { engram, normalized } from '../cli/engram-command';

const server = postgresOrSkip('moving between SQLite and PostgreSQL');
const work = mkdtempSync(join(tmpdir(), 'engram-move-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Facts from the diary (one replacing another, so it has history), and a plain add for a static fact. */
function diaryModel(req: ChatRequest) {
  if (req.messages[0]!.content === MERGE_SYSTEM) return { action: 'add', fact: null, content: null };
  if (req.messages[0]!.content !== EXTRACT_SYSTEM) return { httpStatus: 400 };
  const user = req.messages[1]!.content;
  const known = [...user.matchAll(/^\(F(\d+)\) (.*)$/gm)].map((m) => ({ n: Number(m[1]), text: m[2]! }));
  const facts: unknown[] = [];
  for (const [, n, text] of user.matchAll(/^\[(\d+)\] (.*)$/gm)) {
    if (text!.includes('Paris')) facts.push({ content: 'Lives in Paris.', passage: Number(n), standing: true });
    if (text!.includes('Berlin'))
      facts.push({
        content: 'Lives in Berlin.',
        passage: Number(n),
        standing: true,
        replaces: known.find((k) => k.text.includes('Paris'))?.n,
      });
  }
  return { facts };
}

if (server) {
  describe('an account moved from SQLite to PostgreSQL and back', () => {
    it('keeps everything, learned facts and their provenance included', async () => {
      const model = startFakeModel(diaryModel);
      const idle = startFakeModel(() => ({ facts: [] }));
      const modelEnv = (url: string) => ({ ENGRAM_MODEL_URL: url, ENGRAM_MODEL: 'm', ENGRAM_MODEL_RETRIES: '0' });
      const url = await server.createDatabase();
      const servers: TestServer[] = [];
      try {
        const sqlite = await startTestServer({ env: modelEnv(model.url) });
        servers.push(sqlite);
        const owner = (await makeOwner(sqlite)).token;
        const diary = (await call(sqlite, 'POST', '/v1/containers', owner, { name: 'Diary', description: 'Home' })).body
          .id;
        const notes = await makeContainer(sqlite, owner, 'Notes');
        const { id: keyId, key } = await makeKey(sqlite, owner, { level: 'manage', all_views: true, profile: true });
        for (const content of ['I live in Paris, near the canal.', 'Big news: I moved to Berlin in March.']) {
          await call(sqlite, 'POST', '/v1/documents', key, {
            container: diary,
            content,
            custom_id: content.slice(0, 8),
          });
          sqlite.clock.advance(60_000);
          await sqlite.learning.drain();
        }
        await call(sqlite, 'POST', '/v1/documents', key, {
          container: notes,
          content: 'The spare key is under the blue pot.',
          title: 'Keys',
          metadata: { room: 'hall' },
        });
        await sqlite.learning.drain();
        await call(sqlite, 'POST', '/v1/memories', key, { container: notes, content: 'Stand-up is at 9:30.' });
        await call(sqlite, 'POST', '/v1/memories', key, { content: 'I am vegetarian.', static: true });
        await call(sqlite, 'POST', '/v1/rules', owner, { text: 'Never share the diary.' });
        await call(sqlite, 'POST', '/v1/rules', owner, { text: 'This key reads notes only.', credential_id: keyId });
        await sqlite.stop();

        const fromSqlite = engram(['export', '--data', sqlite.dataDir]);
        expect(fromSqlite.code).toBe(0);
        const file = join(work, 'from-sqlite.jsonl');
        writeFileSync(file, fromSqlite.stdout);

        // Into PostgreSQL: an account made there, the file imported with the command, learned by a server on it.
        const pg = await startTestServer({ env: { ...modelEnv(idle.url), ENGRAM_DATABASE_URL: url } });
        servers.push(pg);
        await makeOwner(pg, 'moved@example.org');
        const imported = engram(['import', file, '--database', url, '--data', join(work, 'cli')]);
        expect(imported.code).toBe(0);
        pg.clock.advance(Math.max(0, Date.now() - pg.clock.now()));
        await pg.learning.drain();
        const fromPostgres = engram(['export', '--database', url, '--data', join(work, 'cli')]);
        expect(fromPostgres.code).toBe(0);
        // A rule for a key names a credential of the first store only: the import keeps it for the account.
        const expected = normalized(fromSqlite.stdout).map((l) =>
          l.type === 'rule' ? { ...l, credential_id: null } : l,
        );
        expect(normalized(fromPostgres.stdout)).toEqual(expected);
        expect(
          normalized(fromPostgres.stdout)
            .filter((l) => l.type === 'fact')
            .map((f) => [f.content, f.history?.map((h: any) => h.content) ?? []]),
        ).toContainEqual(['Lives in Berlin.', ['Lives in Paris.']]);

        // And back into a new SQLite store.
        const back = await startTestServer({ env: modelEnv(idle.url) });
        servers.push(back);
        await makeOwner(back, 'back@example.org');
        const file2 = join(work, 'from-postgres.jsonl');
        writeFileSync(file2, fromPostgres.stdout);
        expect(engram(['import', file2, '--data', back.dataDir]).code).toBe(0);
        back.clock.advance(Math.max(0, Date.now() - back.clock.now()));
        await back.learning.drain();
        expect(normalized(engram(['export', '--data', back.dataDir]).stdout)).toEqual(expected);
        expect(idle.requests).toHaveLength(0);
      } finally {
        for (const s of servers) await s.close();
        await model.stop();
        await idle.stop();
      }
    }, 60_000);
  });
}
