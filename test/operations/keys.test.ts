/**
 * The developer keys' operations, by what they do: a key minted (its secret shown once, only its
 * hash stored), changed, narrowed to containers, revoked, expired, listed by state, and its use
 * counted; each answer checked, what the store holds, and what the key can still open.
 */
import { afterEach, beforeEach, describe, expect, it } from 'bun:test';
import { AuthError, authenticate } from '../../src/auth/credentials';
import { DAY_MS, iso } from '../../src/clock';
import * as ops from '../../src/operations/index';
import { type Harness, openHarness, refused } from '../helpers/operations';

let h: Harness;
let notes: string;
let work: string;
beforeEach(async () => {
  h = await openHarness(['Notes', 'Work']);
  ({ Notes: notes, Work: work } = h.containers as { Notes: string; Work: string });
});
afterEach(() => h.close());

const opens = (bearer: string) =>
  authenticate(h.store, h.clock, bearer).then(
    (c) => c.kind,
    (e: unknown) => (e instanceof AuthError ? e.reason : Promise.reject(e)),
  );

describe('create_key', () => {
  it('mints a key shown once, stores only its hash, and the key opens as a caller of that grant', async () => {
    const minted = await h.run(ops.createKey, h.owner, {
      name: 'Laptop script',
      level: 'suggest',
      containers: [notes],
      profile: true,
      expires_in_days: 30,
    });
    expect(minted.key).toStartWith('egm_');
    expect(minted).toMatchObject({
      name: 'Laptop script',
      level: 'suggest',
      containers: [notes],
      all_views: false,
      profile: true,
      expires_in_days: 30,
      expires_at: iso(h.clock.now() + 30 * DAY_MS),
      revoked_at: null,
      state: 'active',
      last_used_at: null,
    });
    const stored = (await h.store.credentials.get(h.owner.accountId, minted.id))!;
    expect(stored).toMatchObject({ kind: 'developer_key', level: 'suggest', containerIds: [notes], profile: true });
    expect(stored.secretHash).not.toContain(minted.key.split('_').at(-1));
    const caller = await authenticate(h.store, h.clock, minted.key);
    expect(caller).toMatchObject({
      kind: 'key',
      accountId: h.owner.accountId,
      grant: { credentialId: minted.id, level: 'suggest', containerIds: [notes] },
    });
  });

  it('refuses a container list with all_views (400), and a container of another account (400, named), minting nothing', async () => {
    const other = await h.otherAccount('other@example.org', ['Theirs']);
    expect(
      await refused(h.run(ops.createKey, h.owner, { name: 'k', level: 'read', containers: [notes], all_views: true })),
    ).toMatchObject({ status: 400 });
    expect(
      await refused(h.run(ops.createKey, h.owner, { name: 'k', level: 'read', containers: [other.containers.Theirs] })),
    ).toMatchObject({
      status: 400,
      details: { fields: ['containers'], unknown: [other.containers.Theirs] },
    });
    expect(await h.store.credentials.list(h.owner.accountId)).toEqual([]);
  });
});

describe('changing a key', () => {
  it('update_key changes the name, level and profile tick it is given, and nothing else', async () => {
    const { id } = await h.run(ops.createKey, h.owner, { name: 'Old', level: 'read', containers: [notes] });
    const updated = await h.run(ops.updateKey, h.owner, { key_id: id, name: 'New', level: 'manage', profile: true });
    expect(updated).toMatchObject({ id, name: 'New', level: 'manage', profile: true, containers: [notes] });
    expect(await h.store.credentials.get(h.owner.accountId, id)).toMatchObject({
      name: 'New',
      level: 'manage',
      profile: true,
      containerIds: [notes],
    });
  });

  it('set_key_containers makes the list the reach from now on, turning all_views off', async () => {
    const { id, key } = await h.run(ops.createKey, h.owner, { name: 'k', level: 'read', all_views: true });
    expect((await h.run(ops.listContainers, await authenticate(h.store, h.clock, key), {})).containers).toHaveLength(2);
    const narrowed = await h.run(ops.setKeyContainers, h.owner, { key_id: id, containers: [work] });
    expect(narrowed).toMatchObject({ containers: [work], all_views: false });
    expect(await h.store.credentials.get(h.owner.accountId, id)).toMatchObject({
      containerIds: [work],
      allContainers: false,
    });
    const reach = (await h.run(ops.listContainers, await authenticate(h.store, h.clock, key), {})).containers;
    expect(reach.map((c: { id: string }) => c.id)).toEqual([work]);
  });
});

describe("a key's end", () => {
  it('revoke_key records when, lists the key as revoked, and the key no longer opens', async () => {
    const { id, key } = await h.run(ops.createKey, h.owner, { name: 'k', level: 'read', containers: [notes] });
    h.clock.advance(1000);
    expect(await h.run(ops.revokeKey, h.owner, { key_id: id })).toMatchObject({
      id,
      state: 'revoked',
      revoked_at: iso(h.clock.now()),
    });
    expect((await h.store.credentials.get(h.owner.accountId, id))!.revokedAt).toBe(h.clock.now());
    expect(await opens(key)).toBe('revoked');
    const listed = await h.run(ops.listKeys, h.owner, {});
    expect([listed.active.length, listed.expired.length, listed.revoked.map((k: { id: string }) => k.id)]).toEqual([
      0,
      0,
      [id],
    ]);
  });

  it("revoking again changes nothing: the first revocation's time stays", async () => {
    const { id } = await h.run(ops.createKey, h.owner, { name: 'k', level: 'read', containers: [notes] });
    await h.run(ops.revokeKey, h.owner, { key_id: id });
    const first = (await h.store.credentials.get(h.owner.accountId, id))!.revokedAt;
    h.clock.advance(5000);
    await h.run(ops.revokeKey, h.owner, { key_id: id });
    expect((await h.store.credentials.get(h.owner.accountId, id))!.revokedAt).toBe(first!);
  });

  it('a key past its expiry is listed as expired and no longer opens', async () => {
    const { id, key } = await h.run(ops.createKey, h.owner, {
      name: 'k',
      level: 'read',
      containers: [notes],
      expires_in_days: 1,
    });
    h.clock.advance(DAY_MS + 1);
    expect(await opens(key)).toBe('expired');
    expect((await h.run(ops.listKeys, h.owner, {})).expired.map((k: { id: string }) => k.id)).toEqual([id]);
  });
});

describe('key_usage', () => {
  it('counts each call of the key by tool, the refused ones apart', async () => {
    const { id, key } = await h.run(ops.createKey, h.owner, { name: 'k', level: 'read', containers: [notes] });
    const caller = await authenticate(h.store, h.clock, key);
    await h.run(ops.listContainers, caller, {});
    await h.run(ops.listContainers, caller, {});
    await refused(h.run(ops.addMemory, caller, { container: notes, content: 'A read key cannot write this.' }));
    const usage = await h.run(ops.keyUsage, h.owner, { key_id: id });
    expect(usage).toMatchObject({ key_id: id, refused: 1 });
    expect(usage.per_tool).toEqual(
      expect.arrayContaining([
        { tool: 'list_containers', calls: 2, refused: 0 },
        { tool: 'add_memory', calls: 1, refused: 1 },
      ]),
    );
  });
});
