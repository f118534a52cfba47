/**
 * A server for the exchange's tests (src/learning/exchange.ts): keyword search alone (no
 * embedder), so only the keyword index answers, one container of chats, and a key reaching it.
 */
import { expect } from 'bun:test';
import { call, makeContainer, makeKey, makeOwner, startTestServer, type TestServer } from './server';

export interface ChatServer {
  server: TestServer;
  /** The owner's session token. */
  owner: string;
  key: string;
  container: string;
}

/** `database`: a PostgreSQL database's URL to store in; the SQLite file when absent. */
export async function startChatServer(database?: string): Promise<ChatServer> {
  const env: Record<string, string> = { ENGRAM_EMBEDDER: 'none' };
  if (database) env.ENGRAM_DATABASE_URL = database;
  const server = await startTestServer({ env });
  const owner = (await makeOwner(server)).token;
  const container = await makeContainer(server, owner, 'Chats');
  const { key } = await makeKey(server, owner, { level: 'manage', all_views: true });
  return { server, owner, key, container };
}

/** The documents a search of `container` finds for `q`, best first. */
export async function foundIn(server: { url: string }, key: string, container: string, q: string): Promise<string[]> {
  const res = await call(server, 'POST', '/v1/search', key, { q, container });
  expect(res.status).toBe(200);
  return res.body.results.map((r: { document_id: string }) => r.document_id);
}
