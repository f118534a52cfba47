/**
 * The profile (static facts need the profile tick; dynamic facts are recent container facts in
 * reach; q adds passages) and the standing rules (account-wide ones plus the key's own).
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { call, makeKey, startTestServer, type TestServer } from '../../helpers/server';
import { addMemory, expectError, expectMalformed, keyFor, makeAccount, type TestAccount } from '../../helpers/rest';

let server: TestServer;
let account: TestAccount;

beforeAll(async () => {
  server = await startTestServer();
  account = await makeAccount(server, ['Food', 'Health', 'Work']);
});
afterAll(() => server.close());

describe('the profile', () => {
  it('a static memory needs the profile tick: without it 403 and nothing saved', async () => {
    const unticked = await keyFor(server, account.owner, { level: 'manage', all_views: true });
    const res = await call(server, 'POST', '/v1/memories', unticked, { static: true, content: 'Born in Porto.' });
    expectError(res, 403, 'unauthorized');
    expect(res.body.message).toContain('profile');
    const profile = await call(server, 'GET', '/v1/profile', account.owner);
    expect(profile.body.static.map((f: any) => f.content)).not.toContain('Born in Porto.');
  });

  it('a static memory with the tick goes to static, belongs to no container and is not a container passage', async () => {
    const ticked = await keyFor(server, account.owner, {
      level: 'suggest',
      containers: [account.containers.Food],
      profile: true,
    });
    const saved = await call(server, 'POST', '/v1/memories', ticked, {
      static: true,
      content: 'Vegetarian since 2015.',
      title: 'Diet',
    });
    expect(saved.status).toBe(201);
    expect(saved.body).toMatchObject({
      content: 'Vegetarian since 2015.',
      title: 'Diet',
      static: true,
      container: null,
    });
    const profile = await call(server, 'GET', '/v1/profile', ticked);
    expect(profile.body.static.map((f: any) => f.id)).toEqual([saved.body.id]);
    expect(profile.body.dynamic.map((f: any) => f.id)).not.toContain(saved.body.id);
    expect(profile.body).not.toHaveProperty('results');
    const hits = await call(server, 'POST', '/v1/search', ticked, {
      q: 'vegetarian',
      container: account.containers.Food,
    });
    expect(hits.body.results).toEqual([]);
  });

  it('static facts reach every ticked key whatever its containers; dynamic only the facts in reach', async () => {
    const noContainers = await keyFor(server, account.owner, { level: 'read', profile: true });
    const profile = await call(server, 'GET', '/v1/profile', noContainers);
    expect(profile.body.static.map((f: any) => f.content)).toContain('Vegetarian since 2015.');
    expect(profile.body.dynamic).toEqual([]);
  });

  it('dynamic lists the recent container facts in reach, newest first', async () => {
    const writer = await keyFor(server, account.owner, { level: 'suggest', all_views: true });
    const ids: string[] = [];
    for (const [container, content] of [
      ['Food', 'Switched to oat milk.'],
      ['Health', 'Started running on Tuesdays.'],
      ['Work', 'Moved to the Berlin team.'],
      ['Health', 'Knee is better.'],
    ] as const) {
      server.clock.advance(1000);
      ids.push(await addMemory(server, writer, { container: account.containers[container], content }));
    }
    const health = await keyFor(server, account.owner, {
      level: 'read',
      containers: [account.containers.Food, account.containers.Health],
      profile: true,
    });
    const profile = await call(server, 'GET', '/v1/profile', health);
    expect(profile.body.dynamic.map((f: any) => f.content)).toEqual([
      'Knee is better.',
      'Started running on Tuesdays.',
      'Switched to oat milk.',
    ]);
    expect(profile.body.dynamic[0]).toMatchObject({ id: ids[3], static: false, container: account.containers.Health });
  });

  it('q adds the passages relevant to the topic, only from containers in reach', async () => {
    const food = await keyFor(server, account.owner, {
      level: 'read',
      containers: [account.containers.Food],
      profile: true,
    });
    const res = await call(server, 'GET', `/v1/profile?q=${encodeURIComponent('oat milk')}`, food);
    expect(res.status).toBe(200);
    expect(res.body.results.map((h: any) => h.content)).toEqual(['Switched to oat milk.']);
    expect(res.body.results[0].container_name).toBe('Food');
    const elsewhere = await call(server, 'GET', '/v1/profile?q=running', food);
    expect(elsewhere.body.results).toEqual([]);
  });

  it('forgetting a static fact needs the profile tick; with it the fact leaves the profile', async () => {
    const fact = await addMemory(server, account.owner, { static: true, content: 'Left-handed.' });
    const unticked = await keyFor(server, account.owner, { level: 'manage', all_views: true });
    expectError(await call(server, 'DELETE', `/v1/memories/${fact}?confirm=true`, unticked), 404, 'not_found');
    const ticked = await keyFor(server, account.owner, { level: 'manage', profile: true });
    expect((await call(server, 'DELETE', `/v1/memories/${fact}?confirm=true`, ticked)).body).toEqual({
      status: 'forgotten',
      id: fact,
    });
    const profile = await call(server, 'GET', '/v1/profile', ticked);
    expect(profile.body.static.map((f: any) => f.id)).not.toContain(fact);
  });
});

describe('standing rules', () => {
  it("a key reads the account-wide rules plus its own, never another key's", async () => {
    const first = await makeKey(server, account.owner, { level: 'read', all_views: true });
    const second = await makeKey(server, account.owner, { level: 'read', all_views: true });
    const wide = await call(server, 'POST', '/v1/rules', account.owner, { text: 'Do not mention my employer.' });
    expect(wide.status).toBe(201);
    expect(wide.body).toMatchObject({ text: 'Do not mention my employer.', scope: 'account', credential_id: null });
    const own = await call(server, 'POST', '/v1/rules', account.owner, {
      text: 'Only read Food.',
      credential_id: first.id,
    });
    expect(own.body).toMatchObject({ scope: 'credential', credential_id: first.id });
    await call(server, 'POST', '/v1/rules', account.owner, { text: 'Second key only.', credential_id: second.id });

    const rulesOf = async (token: string) =>
      (await call(server, 'GET', '/v1/rules', token)).body.rules.map((r: any) => r.text);
    expect(await rulesOf(first.key)).toEqual(['Do not mention my employer.', 'Only read Food.']);
    expect(await rulesOf(second.key)).toEqual(['Do not mention my employer.', 'Second key only.']);
    const third = await keyFor(server, account.owner, { level: 'read' });
    expect(await rulesOf(third)).toEqual(['Do not mention my employer.']);

    expect((await call(server, 'DELETE', `/v1/rules/${wide.body.id}`, account.owner)).body).toEqual({
      status: 'deleted',
      id: wide.body.id,
    });
    expect(await rulesOf(first.key)).toEqual(['Only read Food.']);
    expectError(await call(server, 'DELETE', `/v1/rules/${wide.body.id}`, account.owner), 404, 'not_found');
  });

  it('refuses an empty rule (422) and a credential_id that names no key (400)', async () => {
    expectMalformed(await call(server, 'POST', '/v1/rules', account.owner, { text: '   ' }), 'text');
    const res = await call(server, 'POST', '/v1/rules', account.owner, { text: 'x', credential_id: 'nokey' });
    expectError(res, 400, 'validation');
    expect(res.body.details.fields).toEqual(['credential_id']);
  });
});
