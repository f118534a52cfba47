/**
 * Two accounts on one server never see each other's anything: containers, documents, facts,
 * search hits, the profile, keys, usage and rules. Ids of the other account answer like ids
 * that do not exist.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { call, makeKey, startTestServer, type TestServer } from '../../helpers/server';
import {
  addDocument,
  addMemory,
  expectError,
  listAllDocuments,
  makeAccount,
  type TestAccount,
} from '../../helpers/rest';

interface Side {
  account: TestAccount;
  food: string;
  key: { id: string; key: string };
  doc: string;
  fact: string;
  rule: string;
}

let server: TestServer;
let alice: Side;
let bob: Side;

/** One account with the same container name and the same words as the other. */
async function side(who: string): Promise<Side> {
  const account = await makeAccount(server, ['Food']);
  const food = account.containers.Food!;
  const key = await makeKey(server, account.owner, { level: 'manage', all_views: true, profile: true });
  const doc = await addDocument(server, key.key, {
    container: food,
    content: `${who} eats porridge every morning.`,
    custom_id: 'breakfast',
  });
  const fact = await addMemory(server, key.key, { container: food, content: `${who} likes porridge with honey.` });
  await addMemory(server, key.key, { static: true, content: `${who} lives by the porridge sea.` });
  const rule = (await call(server, 'POST', '/v1/rules', account.owner, { text: `${who}'s rule: porridge is private.` }))
    .body.id;
  await call(server, 'POST', '/v1/rules', account.owner, { text: `${who}'s key rule.`, credential_id: key.id });
  await call(server, 'GET', '/v1/containers', key.key); // some usage to hide
  return { account, food, key, doc, fact, rule };
}

beforeAll(async () => {
  server = await startTestServer();
  alice = await side('Alice');
  bob = await side('Bob');
  await server.learning.drain();
});
afterAll(() => server.close());

const both = (): Array<[string, Side, Side]> => [
  ['Alice', alice, bob],
  ['Bob', bob, alice],
];

describe('two accounts on one server', () => {
  it("list_containers shows only the own account's containers, to the key and to the owner", async () => {
    for (const [, me] of both()) {
      for (const token of [me.key.key, me.account.owner]) {
        expect((await call(server, 'GET', '/v1/containers', token)).body.containers.map((c: any) => c.id)).toEqual([
          me.food,
        ]);
      }
    }
  });

  it('the same custom_id in each account makes two documents', () => {
    expect(alice.doc).not.toBe(bob.doc);
  });

  it('a document of the other account answers 404 to get and delete, and is left alone', async () => {
    for (const [, me, them] of both()) {
      for (const token of [me.key.key, me.account.owner]) {
        expectError(await call(server, 'GET', `/v1/documents/${them.doc}`, token), 404, 'not_found');
        expectError(await call(server, 'DELETE', `/v1/documents/${them.doc}?confirm=true`, token), 404, 'not_found');
      }
      expect((await call(server, 'GET', `/v1/documents/${them.doc}`, them.key.key)).status).toBe(200);
      expect((await listAllDocuments(server, me.account.owner)).map((d) => d.id)).toEqual([me.doc]);
    }
  });

  it('a fact of the other account answers 404 to forget, and is left alone', async () => {
    for (const [, me, them] of both()) {
      expectError(await call(server, 'DELETE', `/v1/memories/${them.fact}`, me.key.key), 404, 'not_found');
      expectError(
        await call(server, 'DELETE', `/v1/memories/${them.fact}?confirm=true`, me.account.owner),
        404,
        'not_found',
      );
      const confirmation = await call(server, 'DELETE', `/v1/memories/${them.fact}`, them.key.key);
      expect(confirmation.body.status).toBe('confirmation_required');
    }
  });

  it("search finds only the own account's passages", async () => {
    for (const [name, me, them] of both()) {
      const res = await call(server, 'POST', '/v1/search', me.key.key, { q: 'porridge', container: '*' });
      expect(res.status).toBe(200);
      expect(res.body.results.length).toBe(2);
      for (const hit of res.body.results) {
        expect(hit.container).toBe(me.food);
        expect(hit.content).toContain(name);
      }
      expect(JSON.stringify(res.body)).not.toContain(them.food);
      const named = await call(server, 'POST', '/v1/search', me.key.key, { q: 'porridge', container: them.food });
      expectError(named, 403, 'unauthorized');
    }
  });

  it("the profile holds only the own account's facts", async () => {
    for (const [name, me, them] of both()) {
      const profile = await call(server, 'GET', '/v1/profile?q=porridge', me.key.key);
      expect(profile.body.static.map((f: any) => f.content)).toEqual([`${name} lives by the porridge sea.`]);
      expect(profile.body.dynamic.map((f: any) => f.id)).toEqual([me.fact]);
      expect(JSON.stringify(profile.body)).not.toContain(name === 'Alice' ? 'Bob' : 'Alice');
      expect(JSON.stringify(profile.body)).not.toContain(them.fact);
    }
  });

  it("list_documents with the other account's container is refused like a nonexistent container", async () => {
    for (const [, me, them] of both()) {
      const res = await call(server, 'GET', `/v1/documents?container=${them.food}`, me.account.owner);
      expectError(res, 403, 'unauthorized');
      expect(res.body.message).toBe(`The container ${them.food} may not be used with this credential.`);
    }
  });

  it('keys and their usage of the other account are neither listed nor reachable', async () => {
    for (const [, me, them] of both()) {
      const listing = await call(server, 'GET', '/v1/api-keys', me.account.owner);
      expect(listing.body.active.map((k: any) => k.id)).toEqual([me.key.id]);
      expect(listing.body.expired).toEqual([]);
      expect(listing.body.revoked).toEqual([]);
      for (const [method, path, body] of [
        ['GET', `/v1/api-keys/${them.key.id}/usage`],
        ['PATCH', `/v1/api-keys/${them.key.id}`, { level: 'read' }],
        ['PATCH', `/v1/exposures/${them.key.id}/views`, { containers: [] }],
        ['DELETE', `/v1/exposures/${them.key.id}`],
      ] as Array<[string, string, unknown?]>) {
        expectError(await call(server, method, path, me.account.owner, body), 404, 'not_found');
      }
      // Still whole for its own account.
      expect(
        (await call(server, 'POST', '/v1/memories', them.key.key, { container: them.food, content: 'still manage' }))
          .status,
      ).toBe(201);
    }
  });

  it("a key cannot be minted over the other account's containers or as a rotation of its key", async () => {
    const reach = await call(server, 'POST', '/v1/api-keys', bob.account.owner, {
      name: 'x',
      level: 'read',
      containers: [alice.food],
    });
    expectError(reach, 400, 'validation');
    const rotation = await call(server, 'POST', '/v1/api-keys', bob.account.owner, {
      name: 'x',
      level: 'read',
      replaces: alice.key.id,
    });
    expectError(rotation, 400, 'validation');
    const views = await call(server, 'PATCH', `/v1/exposures/${bob.key.id}/views`, bob.account.owner, {
      containers: [alice.food],
    });
    expectError(views, 400, 'validation');
  });

  it('rules of the other account are neither read, deleted nor attachable', async () => {
    for (const [name, me, them] of both()) {
      const rules = (await call(server, 'GET', '/v1/rules', me.key.key)).body.rules.map((r: any) => r.text);
      expect(rules).toEqual([`${name}'s rule: porridge is private.`, `${name}'s key rule.`]);
      expectError(await call(server, 'DELETE', `/v1/rules/${them.rule}`, me.account.owner), 404, 'not_found');
      const attach = await call(server, 'POST', '/v1/rules', me.account.owner, {
        text: 'x',
        credential_id: them.key.id,
      });
      expectError(attach, 400, 'validation');
    }
    expect((await call(server, 'GET', '/v1/rules', alice.key.key)).body.rules).toHaveLength(2);
  });

  it('containers of the other account cannot be renamed or deleted', async () => {
    expectError(
      await call(server, 'PATCH', `/v1/containers/${alice.food}`, bob.account.owner, { name: 'Mine now' }),
      404,
      'not_found',
    );
    expectError(
      await call(server, 'DELETE', `/v1/containers/${alice.food}?confirm=true`, bob.account.owner),
      404,
      'not_found',
    );
    expect(
      (await call(server, 'GET', '/v1/containers', alice.account.owner)).body.containers.map((c: any) => c.name),
    ).toEqual(['Food']);
  });
});
