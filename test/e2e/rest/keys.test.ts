/**
 * Developer keys over their lifetime: minting (the secret shown once), expiry on the movable
 * clock, revocation and the Revoked listing, in-place changes of level, profile tick and reach
 * read on the next call with the same token, and rotation with lineage.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { call, startTestServer, type TestServer } from '../../helpers/server';
import {
  DAY_MS,
  expectError,
  expectMalformed,
  listedKey,
  makeAccount,
  signIn,
  type TestAccount,
} from '../../helpers/rest';

let server: TestServer;
let account: TestAccount;

beforeAll(async () => {
  server = await startTestServer();
  account = await makeAccount(server, ['Food', 'Travel', 'Work']);
});
afterAll(() => server.close());

const mint = async (grant: Record<string, unknown>) => {
  const res = await call(server, 'POST', '/v1/api-keys', account.owner, { name: 'k', ...grant });
  if (res.status !== 201) throw new Error(`mint: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as { id: string; key: string } & Record<string, any>;
};
const names = async (token: string) =>
  (await call(server, 'GET', '/v1/containers', token)).body.containers.map((c: any) => c.name);

describe('minting', () => {
  it('returns the key once, shaped egm_<key_id>_<secret>; the listing shows only its hint', async () => {
    const minted = await mint({ name: 'laptop', level: 'read', containers: [account.containers.Food], profile: true });
    const [prefix, id, secret] = minted.key.split('_');
    expect(prefix).toBe('egm');
    expect(id).toBe(minted.id);
    expect(secret!.length).toBeGreaterThanOrEqual(43);
    expect(minted).toMatchObject({
      name: 'laptop',
      level: 'read',
      containers: [account.containers.Food],
      all_views: false,
      profile: true,
      expires_in_days: null,
      expires_at: null,
      revoked_at: null,
      replaces: null,
      last_used_at: null,
      state: 'active',
      hint: `${minted.key.slice(0, 8)}…${minted.key.slice(-4)}`,
    });
    const listing = await call(server, 'GET', '/v1/api-keys', account.owner);
    expect(JSON.stringify(listing.body)).not.toContain(secret!);
    const listed = listing.body.active.find((k: any) => k.id === minted.id);
    expect(listed).not.toHaveProperty('key');
    expect(listed.hint).toBe(minted.hint);
  });

  it('refuses expires_in_days outside 1 to 3650 with 422 naming it', async () => {
    for (const days of [0, 3651, 1.5, '30']) {
      expectMalformed(
        await call(server, 'POST', '/v1/api-keys', account.owner, { name: 'k', level: 'read', expires_in_days: days }),
        'expires_in_days',
      );
    }
    expect(
      (await call(server, 'POST', '/v1/api-keys', account.owner, { name: 'k', level: 'read', expires_in_days: 3650 }))
        .status,
    ).toBe(201);
  });

  it("refuses an unknown level, a container list with all_views, and containers that are not the account's", async () => {
    expectMalformed(await call(server, 'POST', '/v1/api-keys', account.owner, { name: 'k', level: 'admin' }), 'level');
    const both = await call(server, 'POST', '/v1/api-keys', account.owner, {
      name: 'k',
      level: 'read',
      all_views: true,
      containers: [account.containers.Food],
    });
    expectError(both, 400, 'validation');
    const unknown = await call(server, 'POST', '/v1/api-keys', account.owner, {
      name: 'k',
      level: 'read',
      containers: ['ctr_nope'],
    });
    expectError(unknown, 400, 'validation');
    expect(unknown.body.details).toMatchObject({ fields: ['containers'], unknown: ['ctr_nope'] });
  });
});

describe('in-place changes are read on the next call with the same token', () => {
  it('lowering the level to read refuses the next add; raising it back lets it through', async () => {
    const k = await mint({ level: 'suggest', containers: [account.containers.Food] });
    const add = () => call(server, 'POST', '/v1/memories', k.key, { content: 'Takes the 8:15 train.' });
    expect((await add()).status).toBe(201);
    const lowered = await call(server, 'PATCH', `/v1/api-keys/${k.id}`, account.owner, { level: 'read' });
    expect([lowered.status, lowered.body.level, lowered.body.hint]).toEqual([200, 'read', k.hint]);
    const refused = await add();
    expectError(refused, 403, 'unauthorized');
    expect(refused.body.message).toContain('add_memory');
    expect((await call(server, 'PATCH', `/v1/api-keys/${k.id}`, account.owner, { level: 'suggest' })).status).toBe(200);
    expect((await add()).status).toBe(201);
  });

  it('ticking and unticking the profile opens and closes get_profile', async () => {
    const k = await mint({ level: 'read', containers: [account.containers.Food] });
    expectError(await call(server, 'GET', '/v1/profile', k.key), 403, 'unauthorized');
    expect((await call(server, 'PATCH', `/v1/api-keys/${k.id}`, account.owner, { profile: true })).body.profile).toBe(
      true,
    );
    expect((await call(server, 'GET', '/v1/profile', k.key)).status).toBe(200);
    await call(server, 'PATCH', `/v1/api-keys/${k.id}`, account.owner, { profile: false });
    expectError(await call(server, 'GET', '/v1/profile', k.key), 403, 'unauthorized');
  });

  it('switching all_views on reaches every container; off, the ticked list again', async () => {
    const k = await mint({ level: 'read', containers: [account.containers.Food] });
    await call(server, 'PATCH', `/v1/api-keys/${k.id}`, account.owner, { all_views: true });
    expect(await names(k.key)).toEqual(['Food', 'Travel', 'Work']);
    await call(server, 'PATCH', `/v1/api-keys/${k.id}`, account.owner, { all_views: false });
    expect(await names(k.key)).toEqual(['Food']);
  });

  it('a key reaching every container reaches one made since its last call, and not one deleted since', async () => {
    const k = await mint({ level: 'read', all_views: true });
    expect(await names(k.key)).toEqual(['Food', 'Travel', 'Work']);
    const made = await call(server, 'POST', '/v1/containers', account.owner, { name: 'Garden' });
    expect(made.status).toBe(201);
    expect(await names(k.key)).toEqual(['Food', 'Travel', 'Work', 'Garden']);
    const deleted = await call(server, 'DELETE', `/v1/containers/${made.body.id}?confirm=true`, account.owner);
    expect(deleted.status).toBe(200);
    expect(await names(k.key)).toEqual(['Food', 'Travel', 'Work']);
  });

  it('PATCH /v1/exposures/{id}/views replaces the container list', async () => {
    const k = await mint({ level: 'suggest', containers: [account.containers.Food] });
    const changed = await call(server, 'PATCH', `/v1/exposures/${k.id}/views`, account.owner, {
      containers: [account.containers.Travel, account.containers.Work],
    });
    expect(changed.status).toBe(200);
    expect(changed.body.containers.sort()).toEqual([account.containers.Travel, account.containers.Work].sort());
    expect(await names(k.key)).toEqual(['Travel', 'Work']);
    const outside = await call(server, 'POST', '/v1/memories', k.key, {
      container: account.containers.Food,
      content: 'x',
    });
    expectError(outside, 403, 'unauthorized');
    expect(
      (
        await call(server, 'POST', '/v1/memories', k.key, {
          container: account.containers.Work,
          content: 'Standup at ten.',
        })
      ).status,
    ).toBe(201);
  });

  it('PATCH /v1/exposures/{id}/views on an all-containers key narrows it to the list given', async () => {
    const k = await mint({ level: 'read', all_views: true });
    const changed = await call(server, 'PATCH', `/v1/exposures/${k.id}/views`, account.owner, {
      containers: [account.containers.Travel],
    });
    expect(changed.status).toBe(200);
    expect([changed.body.all_views, changed.body.containers]).toEqual([false, [account.containers.Travel]]);
    expect(await names(k.key)).toEqual(['Travel']);
  });

  it('PATCH /v1/exposures/{id}/views with a container not of the account is 400 and leaves the reach as it was', async () => {
    const k = await mint({ level: 'read', containers: [account.containers.Food] });
    const res = await call(server, 'PATCH', `/v1/exposures/${k.id}/views`, account.owner, {
      containers: [account.containers.Travel, 'ctr_nope'],
    });
    expectError(res, 400, 'validation');
    expect(await names(k.key)).toEqual(['Food']);
  });

  it('renaming a key keeps its token working', async () => {
    const k = await mint({ level: 'read', all_views: true });
    const renamed = await call(server, 'PATCH', `/v1/api-keys/${k.id}`, account.owner, { name: 'renamed' });
    expect(renamed.body.name).toBe('renamed');
    expect((await call(server, 'GET', '/v1/containers', k.key)).status).toBe(200);
  });
});

describe('revocation', () => {
  it('takes effect on the next call of every holder, and a revoked key cannot be patched (409 conflict)', async () => {
    const k = await mint({ level: 'manage', all_views: true });
    expect((await call(server, 'GET', '/v1/containers', k.key)).status).toBe(200);
    const revoked = await call(server, 'DELETE', `/v1/exposures/${k.id}`, account.owner);
    expect([revoked.status, revoked.body.state]).toEqual([200, 'revoked']);
    expect(revoked.body.revoked_at).toBe(new Date(server.clock.now()).toISOString());
    const refused = await call(server, 'GET', '/v1/containers', k.key);
    expectError(refused, 403, 'unauthorized');
    expect(refused.body.details.reason).toBe('revoked');
    for (const [method, path, body] of [
      ['PATCH', `/v1/api-keys/${k.id}`, { level: 'read' }],
      ['PATCH', `/v1/api-keys/${k.id}`, { name: 'again' }],
      ['PATCH', `/v1/exposures/${k.id}/views`, { containers: [] }],
    ] as Array<[string, string, unknown]>) {
      const res = await call(server, method, path, account.owner, body);
      expectError(res, 409, 'conflict');
      expect(res.body.message).toContain('revoked');
    }
    expect((await listedKey(server, account.owner, k.id))?.key.level).toBe('manage');
  });

  it('revoking twice changes nothing', async () => {
    const k = await mint({ level: 'read', all_views: true });
    const first = await call(server, 'DELETE', `/v1/exposures/${k.id}`, account.owner);
    server.clock.advance(60_000);
    const second = await call(server, 'DELETE', `/v1/exposures/${k.id}`, account.owner);
    expect(second.status).toBe(200);
    expect(second.body.revoked_at).toBe(first.body.revoked_at);
  });
});

describe('rotation', () => {
  it('a key made with replaces records the lineage; the old key keeps working until revoked', async () => {
    const old = await mint({
      name: 'ci',
      level: 'suggest',
      containers: [account.containers.Work],
      profile: true,
      expires_in_days: 90,
    });
    const fresh = await mint({
      name: 'ci (rotated)',
      level: 'suggest',
      containers: [account.containers.Work],
      profile: true,
      expires_in_days: 90,
      replaces: old.id,
    });
    expect(fresh.replaces).toBe(old.id);
    expect(fresh.key).not.toBe(old.key);
    expect((await listedKey(server, account.owner, fresh.id))?.key.replaces).toBe(old.id);
    for (const token of [old.key, fresh.key]) expect(await names(token)).toEqual(['Work']);
    await call(server, 'DELETE', `/v1/exposures/${old.id}`, account.owner);
    expectError(await call(server, 'GET', '/v1/containers', old.key), 403, 'unauthorized');
    expect(await names(fresh.key)).toEqual(['Work']);
  });

  it('replaces naming no key of the account is 400 validation', async () => {
    const res = await call(server, 'POST', '/v1/api-keys', account.owner, {
      name: 'k',
      level: 'read',
      replaces: 'nokey',
    });
    expectError(res, 400, 'validation');
    expect(res.body.details.fields).toEqual(['replaces']);
  });
});

describe('expiry on the movable clock', () => {
  let clocked: TestServer;
  let owner: TestAccount;
  beforeAll(async () => {
    clocked = await startTestServer();
    owner = await makeAccount(clocked, ['Food']);
  });
  afterAll(() => clocked.close());

  it('a 30-day key works at day 29, is refused as expired at day 30, moves to Expired and cannot be patched', async () => {
    const minted = (
      await call(clocked, 'POST', '/v1/api-keys', owner.owner, {
        name: 'month',
        level: 'read',
        all_views: true,
        expires_in_days: 30,
      })
    ).body;
    expect(minted.expires_at).toBe(new Date(clocked.clock.now() + 30 * DAY_MS).toISOString());
    clocked.clock.advance(29 * DAY_MS);
    expect((await call(clocked, 'GET', '/v1/containers', minted.key)).status).toBe(200);
    expect((await listedKey(clocked, owner.owner, minted.id))?.group).toBe('active');

    clocked.clock.advance(DAY_MS);
    const refused = await call(clocked, 'GET', '/v1/containers', minted.key);
    expectError(refused, 403, 'unauthorized');
    expect(refused.body.message).toContain('expired');
    const session = await signIn(clocked, owner); // the day-0 session has lapsed too
    const listed = await listedKey(clocked, session, minted.id);
    expect(listed?.group).toBe('expired');
    expect(listed?.key.state).toBe('expired');
    const patched = await call(clocked, 'PATCH', `/v1/api-keys/${minted.id}`, session, { level: 'manage' });
    expectError(patched, 409, 'conflict');
    expect(patched.body.message).toContain('expired');
    expectError(
      await call(clocked, 'PATCH', `/v1/exposures/${minted.id}/views`, session, { containers: [] }),
      409,
      'conflict',
    );
  });

  it('a revoked key is listed under Revoked for 30 days, then no longer listed (and stays refused)', async () => {
    const session = await signIn(clocked, owner);
    const minted = (
      await call(clocked, 'POST', '/v1/api-keys', session, { name: 'gone', level: 'read', all_views: true })
    ).body;
    await call(clocked, 'DELETE', `/v1/exposures/${minted.id}`, session);
    clocked.clock.advance(29 * DAY_MS);
    expect((await listedKey(clocked, session, minted.id))?.group).toBe('revoked');
    clocked.clock.advance(DAY_MS + 1);
    const later = await signIn(clocked, owner);
    expect(await listedKey(clocked, later, minted.id)).toBeNull();
    const refused = await call(clocked, 'GET', '/v1/containers', minted.key);
    expectError(refused, 403, 'unauthorized');
    expect(refused.body.details.reason).toBe('revoked');
  });

  it('a key without expiry still works years later', async () => {
    const session = await signIn(clocked, owner);
    const minted = (
      await call(clocked, 'POST', '/v1/api-keys', session, { name: 'forever', level: 'read', all_views: true })
    ).body;
    clocked.clock.advance(5 * 365 * DAY_MS);
    expect((await call(clocked, 'GET', '/v1/containers', minted.key)).status).toBe(200);
  });
});
