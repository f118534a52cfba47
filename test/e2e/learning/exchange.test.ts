/**
 * The exchange in the keyword index, through the real server and its learning thread, on each
 * engine: a chat turn is found by the words of the reply after it, and a deleted turn's words leave
 * the turns beside it. Keyword search alone (no embedder), so that only the keyword index answers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { foundIn, startChatServer } from '../../helpers/chats';
import { postgresOrSkip } from '../../helpers/postgres';
import { call, type TestServer } from '../../helpers/server';

const postgres = postgresOrSkip('the exchange on PostgreSQL');

for (const engine of ['SQLite', ...(postgres ? ['PostgreSQL'] : [])]) {
  describe(`the exchange in the keyword index (${engine})`, () => {
    let server: TestServer;
    let key: string;
    let container: string;
    const ids: Record<string, string> = {};

    /** Adds a chat message a minute after the one before, as an app adds them, and waits until it is learned. */
    async function say(name: string, content: string): Promise<void> {
      server.clock.advance(60_000);
      const res = await call(server, 'POST', '/v1/documents', key, { container, content });
      expect(res.status).toBe(202);
      await server.learning.drain();
      ids[name] = res.body.id;
    }
    const found = (q: string) => foundIn(server, key, container, q);

    beforeAll(async () => {
      const database = engine === 'PostgreSQL' ? await postgres!.createDatabase() : undefined;
      ({ server, key, container } = await startChatServer(database));
      await say('question', '[3 May 2024, 18:02] Ann: How did the appointment with the vet go?');
      await say('reply', '[3 May 2024, 18:09] Bo: Sprained paw, nothing broken.');
      await say('after', '[3 May 2024, 18:15] Ann: Poor Rex!');
    });
    afterAll(() => server?.close());

    it('finds a question turn by the words of the reply after it, the reply first', async () => {
      const [first, ...beside] = await found('sprained paw');
      expect(first).toBe(ids.reply!);
      expect(beside.sort()).toEqual([ids.question!, ids.after!].sort());
    });

    it('finds a reply too short to match by the question it answers', async () => {
      expect(await found('vet appointment')).toEqual([ids.question!, ids.reply!]);
    });

    it("takes a deleted turn's words out of the turns beside it, which become each other's neighbours", async () => {
      const res = await call(server, 'DELETE', `/v1/documents/${ids.reply}?confirm=true`, key);
      expect(res.status).toBe(200);
      expect(await found('sprained paw')).toEqual([]);
      expect(await found('Rex')).toEqual([ids.after!, ids.question!]);
    });
  });
}
