/**
 * Each developer-key grant over MCP, driven by the official SDK client: the exact tools/list, and
 * a call of every tool whose structuredContent equals what REST answers for the same call.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { call, startTestServer, type TestServer } from '../../helpers/server';
import {
  allExchanges,
  callTool,
  connectMcp,
  expectedTools,
  type McpSession,
  ok,
  seed,
  type Seeded,
  toolNames,
} from './mcp-client';

const GRANTS = [
  { level: 'read', profile: false },
  { level: 'read', profile: true },
  { level: 'suggest', profile: false },
  { level: 'suggest', profile: true },
  { level: 'manage', profile: false },
  { level: 'manage', profile: true },
] as const;

let server: TestServer;
let world: Seeded;

beforeAll(async () => {
  server = await startTestServer();
  world = await seed(server);
});
afterAll(async () => {
  await server.close();
});

it('hands the SDK client a server named engram with tools and instructions, on the latest protocol', async () => {
  const { key } = await world.key('read', false);
  const session = await connectMcp(server, key);
  expect(session.client.getServerVersion()?.name).toBe('engram');
  expect(session.client.getServerCapabilities()?.tools).toBeDefined();
  expect(session.client.getInstructions()).toContain('memory_rules');
  expect(session.transport.protocolVersion).toBe('2025-11-25');
  await session.close();
});

for (const { level, profile } of GRANTS) {
  describe(`a ${level} key ${profile ? 'with' : 'without'} the profile tick`, () => {
    let session: McpSession;
    let key: string;
    const rest = (method: string, path: string, body?: unknown) => call(server, method, path, key, body);

    beforeAll(async () => {
      key = (await world.key(level, profile)).key;
      session = await connectMcp(server, key);
    });
    afterAll(() => session.close());

    it('lists exactly its tools, in the order of the tool table', async () => {
      expect(await toolNames(session)).toEqual(expectedTools(level, profile));
    });

    it('describes each tool with an object input schema and honest hints', async () => {
      const { tools } = await session.client.listTools();
      for (const tool of tools) {
        expect(tool.description?.length).toBeGreaterThan(10);
        expect(tool.inputSchema.type).toBe('object');
        expect(tool.annotations?.readOnlyHint).toBe(
          !['add_memory', 'add_document', 'delete_document', 'forget_memory'].includes(tool.name),
        );
        expect(tool.annotations?.destructiveHint).toBe(['delete_document', 'forget_memory'].includes(tool.name));
      }
      const search = tools.find((t) => t.name === 'search_memories')!;
      expect(search.inputSchema.required).toEqual(['q']);
    });

    it('list_containers answers what GET /v1/containers answers', async () => {
      const mcp = await ok(session, 'list_containers');
      const byRest = await rest('GET', '/v1/containers');
      expect(byRest.status).toBe(200);
      expect(mcp).toEqual(byRest.body);
      expect(mcp.containers.map((c: { name: string }) => c.name)).toEqual(['Food', 'Work']);
    });

    it('search_memories answers what POST /v1/search answers, and never reaches outside', async () => {
      const args = { q: 'oatmeal for breakfast', container: '*' };
      const mcp = await ok(session, 'search_memories', args);
      const byRest = await rest('POST', '/v1/search', args);
      expect(byRest.status).toBe(200);
      expect(mcp).toEqual(byRest.body);
      expect(mcp.results[0].content).toContain('oatmeal');
      expect(mcp.results[0].container_name).toBe('Food');
      expect(mcp.results.some((hit: { container: string }) => hit.container === world.secret)).toBe(false);
      expect(mcp.containers.map((c: { name: string }) => c.name).sort()).toEqual(['Food', 'Work']);
    });

    it('search_memories in one container answers what REST answers', async () => {
      const args = { q: 'report due', container: world.work, limit: 1 };
      const mcp = await ok(session, 'search_memories', args);
      expect(mcp).toEqual((await rest('POST', '/v1/search', args)).body);
      expect(mcp.results).toHaveLength(1);
      expect(mcp.results[0].content).toContain('quarterly report');
    });

    it('list_documents answers what GET /v1/documents answers', async () => {
      const all = await ok(session, 'list_documents');
      expect(all).toEqual((await rest('GET', '/v1/documents')).body);
      const food = await ok(session, 'list_documents', { container: world.food });
      expect(food).toEqual((await rest('GET', `/v1/documents?container=${world.food}`)).body);
      expect(food.documents.map((d: { title: string }) => d.title)).toContain('Breakfast');
      expect(all.documents.some((d: { container: string }) => d.container === world.secret)).toBe(false);
    });

    it('memory_rules answers what GET /v1/rules answers', async () => {
      const mcp = await ok(session, 'memory_rules');
      expect(mcp).toEqual((await rest('GET', '/v1/rules')).body);
      expect(mcp.rules.map((r: { text: string }) => r.text)).toContain('Never share health facts with third parties.');
    });

    if (profile) {
      it('get_profile answers what GET /v1/profile answers, with and without q', async () => {
        const plain = await ok(session, 'get_profile');
        expect(plain).toEqual((await rest('GET', '/v1/profile')).body);
        expect(plain.static.map((f: { content: string }) => f.content)).toContain('Prefers tea over coffee.');
        const topical = await ok(session, 'get_profile', { q: 'breakfast' });
        expect(topical).toEqual((await rest('GET', '/v1/profile?q=breakfast')).body);
        expect(topical.results.length).toBeGreaterThan(0);
      });
    }

    if (level !== 'read') {
      it('add_memory answers what POST /v1/memories answers', async () => {
        const mcp = await ok(session, 'add_memory', {
          content: `Likes hiking (${level}, mcp).`,
          container: world.food,
          title: 'Hobby',
        });
        const byRest = await rest('POST', '/v1/memories', {
          content: `Likes hiking (${level}, rest).`,
          container: world.food,
          title: 'Hobby',
        });
        expect(byRest.status).toBe(201);
        expect({ ...mcp, id: 'x', content: 'x' }).toEqual({ ...byRest.body, id: 'x', content: 'x' });
        expect(mcp).toMatchObject({ container: world.food, static: false, title: 'Hobby' });
        expect(mcp.id).not.toBe(byRest.body.id);
      });

      if (profile) {
        it('add_memory with static=true saves to the profile, as REST does', async () => {
          const mcp = await ok(session, 'add_memory', { content: `Lives in Lisbon (${level}).`, static: true });
          expect(mcp).toMatchObject({ static: true, container: null });
          const profileNow = (await rest('GET', '/v1/profile')).body;
          expect(profileNow.static.map((f: { id: string }) => f.id)).toContain(mcp.id);
        });
      }

      it('add_document answers what POST /v1/documents answers, and a repeated custom_id is "exists"', async () => {
        const custom = `notes-${level}-${profile}`;
        const mcp = await ok(session, 'add_document', {
          container: world.work,
          content: 'Standup moved to 9:30.',
          custom_id: `${custom}-mcp`,
        });
        const byRest = await rest('POST', '/v1/documents', {
          container: world.work,
          content: 'Standup moved to 9:30.',
          custom_id: `${custom}-rest`,
        });
        expect(byRest.status).toBe(202);
        expect({ ...mcp, id: 'x', custom_id: 'x' }).toEqual({ ...byRest.body, id: 'x', custom_id: 'x' });
        expect(mcp.status).toBe('queued');
        const again = await ok(session, 'add_document', {
          container: world.work,
          content: 'Something else.',
          custom_id: `${custom}-rest`,
        });
        expect(again).toEqual({ ...byRest.body, status: 'exists' });
      });
    }

    if (level === 'manage') {
      it('delete_document without confirm answers the same confirmation request as REST, and deletes nothing', async () => {
        const doc = await world.addDocument(
          world.food,
          'A grocery list: apples, rice, lentils.',
          `Groceries ${profile}`,
        );
        const result = await callTool(session, 'delete_document', { document_id: doc });
        expect(result.isError).toBeFalsy();
        expect(result.structuredContent).toEqual({
          status: 'confirmation_required',
          verb: 'delete_document',
          how: expect.stringContaining('confirm=true'),
        });
        expect(result.structuredContent).toEqual((await rest('DELETE', `/v1/documents/${doc}`)).body);
        expect((await rest('GET', `/v1/documents/${doc}`)).status).toBe(200);
      });

      it('delete_document with confirm=true deletes, as REST does', async () => {
        const viaMcp = await world.addDocument(world.food, 'Old pantry inventory.');
        const viaRest = await world.addDocument(world.food, 'Older pantry inventory.');
        const mcp = await ok(session, 'delete_document', { document_id: viaMcp, confirm: true });
        const byRest = await rest('DELETE', `/v1/documents/${viaRest}?confirm=true`);
        expect(byRest.status).toBe(200);
        expect(mcp).toEqual({ ...byRest.body, id: viaMcp });
        expect(mcp.status).toBe('deleted');
        expect((await rest('GET', `/v1/documents/${viaMcp}`)).status).toBe(404);
      });

      it('forget_memory without confirm answers the same confirmation request as REST; with confirm it forgets', async () => {
        const fact = await world.addFact(`Dislikes cilantro (${profile}).`, world.food);
        const asked = await callTool(session, 'forget_memory', { memory_id: fact });
        expect(asked.isError).toBeFalsy();
        expect(asked.structuredContent).toMatchObject({ status: 'confirmation_required', verb: 'forget_memory' });
        expect(asked.structuredContent).toEqual((await rest('DELETE', `/v1/memories/${fact}`)).body);

        const other = await world.addFact(`Dislikes olives (${profile}).`, world.food);
        const mcp = await ok(session, 'forget_memory', { memory_id: fact, container: world.food, confirm: true });
        const byRest = await rest('DELETE', `/v1/memories/${other}?confirm=true`);
        expect(byRest.status).toBe(200);
        expect(mcp).toEqual({ ...byRest.body, id: fact });
        expect(mcp.status).toBe('forgotten');
        expect((await rest('DELETE', `/v1/memories/${fact}`)).status).toBe(404);
      });
    }
  });
}

it('never sent an Mcp-Session-Id header back', () => {
  expect(allExchanges.length).toBeGreaterThan(50);
  for (const exchange of allExchanges) expect(exchange.headers.get('mcp-session-id')).toBeNull();
});
