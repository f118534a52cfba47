/**
 * Both eras, with the clients users run, over /mcp-http and through `engram mcp` started from `/`:
 * each lands in the era it asks for (v2 pinned or probing: 2026-07-28; v2 legacy and the v1 SDK:
 * the handshake), and in either era lists exactly the credential's tools, answers a search with what
 * REST answers, refuses a tool outside the grant with the server's message and trace id, and gives a consent
 * token its read-only set. The other spellings of the address (/mcp, /mcp-http/) answer the same.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { call, makeKey, startTestServer, type TestServer } from '../../helpers/server';
import { connect, type Owner, ownerWithBrowser } from '../../oauth/helpers';
import { connectEraClient, type Door, ERA_OF, FLAVOURS, refusalText } from './era-clients';
import { expectedTools } from './mcp-client';

let server: TestServer;
let owner: Owner;
let reader: string;
let manager: string;
let consent: string;

beforeAll(async () => {
  server = await startTestServer();
  owner = await ownerWithBrowser(server, ['food', 'work']);
  const food = owner.containers.food!;
  const added = await call(server, 'POST', '/v1/documents', owner.token, {
    container: food,
    content: 'Porridge with stewed plums on Sundays.',
  });
  expect(added.status).toBe(202);
  await server.learning.drain();
  const reach = { containers: [owner.containers.food, owner.containers.work] };
  reader = (await makeKey(server, owner.token, { level: 'read', profile: true, ...reach })).key;
  manager = (await makeKey(server, owner.token, { level: 'manage', profile: false, ...reach })).key;
  consent = (await connect(server, owner, { containers: [food], profile: true })).access_token;
});
afterAll(async () => {
  await server.close();
});

for (const door of ['http', 'stdio'] as Door[]) {
  for (const flavour of FLAVOURS) {
    describe(`${flavour} over ${door === 'http' ? '/mcp-http' : 'engram mcp'}`, () => {
      it(`lands in the ${ERA_OF[flavour]} era and lists exactly each key's tools`, async () => {
        const client = await connectEraClient(flavour, door, server.url, reader);
        try {
          expect(client.era).toBe(ERA_OF[flavour]);
          if (client.version) expect(client.version).toBe(ERA_OF[flavour] === 'modern' ? '2026-07-28' : '2025-11-25');
          expect(client.instructions).toContain('Call memory_rules first');
          expect(await client.tools()).toEqual(expectedTools('read', true));
        } finally {
          await client.close();
        }
        const full = await connectEraClient(flavour, door, server.url, manager);
        expect(await full.tools()).toEqual(expectedTools('manage', false));
        await full.close();
      });

      it('answers a search with what REST answers, and refuses a tool outside the grant with the server’s message', async () => {
        const client = await connectEraClient(flavour, door, server.url, reader);
        try {
          const args = { q: 'what is eaten on Sundays', container: '*' };
          const found = await client.call('search_memories', args);
          const rest = await call(server, 'POST', '/v1/search', reader, args);
          expect(found.isError).toBeFalsy();
          expect(found.structuredContent).toEqual(rest.body);
          expect(JSON.parse(found.content[0]!.text!)).toEqual(rest.body);
          expect(rest.body.results[0].content).toContain('stewed plums');

          const refused = await client
            .call('add_memory', { content: 'Likes plums.', container: owner.containers.food })
            .then(
              () => null,
              (e: unknown) => e,
            );
          expect(refused).not.toBeNull();
          expect(refusalText(refused)).toContain("The tool add_memory is not in this credential's capability profile.");
          expect(refusalText(refused)).toMatch(/"trace_id":"tr_[A-Za-z0-9]+"/);
          expect(refusalText(refused)).not.toMatch(/MCP error -\d+: MCP error/);
        } finally {
          await client.close();
        }
      });

      it("gives a consent token the app's read-only set and refuses a write", async () => {
        const client = await connectEraClient(flavour, door, server.url, consent);
        try {
          expect(await client.tools()).toEqual(['list_containers', 'search_memories', 'get_profile']);
          // The server tells an app only of its own tools; the bridge answers before it reaches the server (docs/mcp.md).
          if (door === 'http') expect(client.instructions).not.toContain('memory_rules');
          const containers = await client.call('list_containers', {});
          expect(containers.structuredContent.containers.map((c: { id: string }) => c.id)).toEqual([
            owner.containers.food,
          ]);
          const refused = await client.call('add_document', { container: owner.containers.food, content: 'x' }).then(
            () => null,
            (e: unknown) => e,
          );
          expect(refusalText(refused)).toContain("The tool add_document is not in the agent's capability profile");
          expect(refusalText(refused)).toMatch(/"trace_id":"tr_[A-Za-z0-9]+"/);
        } finally {
          await client.close();
        }
      });
    });
  }
}

describe('the other spellings of the address: /mcp and /mcp-http/ answer as /mcp-http', () => {
  for (const path of ['/mcp', '/mcp-http/']) {
    for (const flavour of FLAVOURS) {
      it(`${flavour} at ${path} lands in its era, lists the key's tools and searches`, async () => {
        const client = await connectEraClient(flavour, 'http', server.url, reader, path);
        try {
          expect(client.era).toBe(ERA_OF[flavour]);
          expect(await client.tools()).toEqual(expectedTools('read', true));
          const found = await client.call('search_memories', { q: 'what is eaten on Sundays', container: '*' });
          expect(found.structuredContent.results[0].content).toContain('stewed plums');
        } finally {
          await client.close();
        }
      });
    }
  }
});
