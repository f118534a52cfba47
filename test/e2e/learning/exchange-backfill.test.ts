/**
 * The exchange's backfill, through the real server and its learning thread, on each engine: a
 * store whose turns were learned before the exchange (their contexts empty, the progress mark at
 * its start, as migration 0028 leaves a store from before 0026) gets every turn's context after
 * start, equal to what learning the turns wrote, so a question turn is found by its reply's words;
 * and a backfill killed mid-way is finished by the next start.
 */
import { Database } from 'bun:sqlite';
import { SQL } from 'bun';
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { join } from 'node:path';
import { EXCHANGE_BACKFILL_SETTING } from '../../../src/learning/exchange-backfill';
import { postgresOrSkip } from '../../helpers/postgres';
import { foundIn, startChatServer } from '../../helpers/chats';
import { call, makeContainer, type TestServer } from '../../helpers/server';

const postgres = postgresOrSkip('the exchange backfill on PostgreSQL');

/** Every turn of a chat, a minute apart from 09:00, with a word of its own; a day's gap after the tenth. */
const chat = (speakers: string[], n: number): string[] =>
  Array.from({ length: n }, (_, i) => {
    const day = i < 10 ? 4 : 5;
    const minute = String(i % 60).padStart(2, '0');
    return `[${day} May 2024, 09:${minute}] ${speakers[i % 2]}: message about topic${i}${speakers[0]}`;
  });

for (const engine of ['SQLite', ...(postgres ? ['PostgreSQL'] : [])]) {
  describe(`the exchange backfill (${engine})`, () => {
    let server: TestServer;
    let key: string;
    let container: string;
    const ids: Record<string, string> = {};
    let learned: Record<string, string | null>;

    /** A statement on the store, the server running or not. */
    async function query<T>(text: string): Promise<T[]> {
      if (server.database) {
        const sql = new SQL({ url: server.database, max: 1 });
        try {
          return [...(await sql.unsafe(text))] as T[];
        } finally {
          await sql.close();
        }
      }
      const db = new Database(join(server.dataDir, 'engram.db'));
      try {
        return db.query(text).all() as T[];
      } finally {
        db.close();
      }
    }
    const contexts = async () =>
      Object.fromEntries(
        (await query<{ id: unknown; context: string | null }>('SELECT id, context FROM passages ORDER BY id')).map(
          (r) => [String(r.id), r.context],
        ),
      );
    const mark = async () =>
      (await query<{ value: string }>(`SELECT value FROM settings WHERE key = '${EXCHANGE_BACKFILL_SETTING}'`))[0]
        ?.value;
    /** The store as one from before the exchange leaves it: the turns learned, no context, the backfill owed. */
    async function forgetContexts(): Promise<void> {
      await query('UPDATE passages SET context = NULL');
      await query(`UPDATE settings SET value = '' WHERE key = '${EXCHANGE_BACKFILL_SETTING}'`);
    }
    async function waitForBackfill(): Promise<void> {
      for (let i = 0; i < 600 && (await mark()) !== 'done'; i++) await Bun.sleep(50);
      expect(await mark()).toBe('done');
    }
    const found = (q: string) => foundIn(server, key, container, q);

    beforeAll(async () => {
      const database = engine === 'PostgreSQL' ? await postgres!.createDatabase() : undefined;
      let owner: string;
      ({ server, owner, key, container } = await startChatServer(database));
      const work = await makeContainer(server, owner, 'Work chat');
      const add = async (content: string, into = container) => {
        server.clock.advance(60_000);
        const res = await call(server, 'POST', '/v1/documents', key, { container: into, content });
        expect(res.status).toBe(202);
        return res.body.id as string;
      };
      ids.question = await add('[3 May 2024, 18:02] Ann: How did the appointment with the vet go?');
      ids.reply = await add('[3 May 2024, 18:09] Bo: Sprained paw, nothing broken.');
      ids.after = await add('[3 May 2024, 18:15] Ann: Poor Rex!');
      for (const turn of chat(['Ann', 'Bo'], 20)) await add(turn);
      await add('Shopping list: eggs, milk and bread for the weekend.');
      for (const turn of chat(['Cy', 'Di'], 12)) await add(turn, work);
      await server.learning.drain();
      learned = await contexts();
      await server.stop();
    }, 60_000);
    afterAll(() => server?.close());

    it('gives every turn learned before the exchange the context learning gives it', async () => {
      expect(Object.values(learned).filter(Boolean).length).toBeGreaterThan(30);
      await forgetContexts();
      server = await server.restart();
      // No learning thread: the store as it was before the exchange.
      expect(await found('sprained paw')).toEqual([ids.reply!]);
      server = await server.restart({ manualLearning: false });
      await waitForBackfill();
      expect(await contexts()).toEqual(learned);
      const [first, ...beside] = await found('sprained paw');
      expect(first).toBe(ids.reply!);
      expect(beside.sort()).toEqual([ids.question!, ids.after!].sort());
    }, 60_000);

    it('finishes at the next start a backfill killed mid-way', async () => {
      await server.stop();
      await forgetContexts();
      const child = Bun.spawn(
        [process.execPath, join(import.meta.dir, 'exchange-backfill-child.ts'), server.database ?? server.dataDir, '3'],
        { stdout: 'pipe', stderr: 'inherit' },
      );
      let batches = 0;
      const reader = (child.stdout as ReadableStream<Uint8Array>).getReader();
      while (batches < 4) {
        const { value, done } = await reader.read();
        if (done) break;
        batches += value.filter((byte) => byte === 10).length;
      }
      child.kill('SIGKILL');
      expect(await child.exited).not.toBe(0);
      const killed = await contexts();
      const written = Object.keys(learned).filter((id) => killed[id] === learned[id] && learned[id] !== null);
      expect(written.length).toBeGreaterThan(0);
      expect(written.length).toBeLessThan(Object.values(learned).filter(Boolean).length);
      expect(JSON.parse((await mark())!)).toMatchObject({ containerId: expect.any(String) });
      server = await server.restart({ manualLearning: false });
      await waitForBackfill();
      expect(await contexts()).toEqual(learned);
    }, 60_000);
  });
}
