/**
 * The shares' operations, by what they do: an agent share or a workflow minted (its token shown
 * once), opening as a share that holds its own tool only, listed by state and revoked; each answer
 * checked, what the store holds, and what the token can still open.
 */
import { afterEach, beforeEach, describe, expect, it } from 'bun:test';
import { AuthError, authenticate } from '../../src/auth/credentials';
import { iso } from '../../src/clock';
import * as ops from '../../src/operations/index';
import { type Harness, openHarness, refused } from '../helpers/operations';

let h: Harness;
let notes: string;
beforeEach(async () => {
  h = await openHarness(['Notes', 'Work']);
  notes = h.containers.Notes!;
});
afterEach(() => h.close());

describe('create_share', () => {
  it('mints an agent share over the containers named, stores only its hash, and its token opens as that share', async () => {
    const made = await h.run(ops.createShare, h.owner, {
      kind: 'agent_share',
      name: 'Family helper',
      containers: [notes],
      expires_in_days: 7,
    });
    expect(made.token).toStartWith('egx_');
    expect(made).toMatchObject({
      kind: 'agent_share',
      name: 'Family helper',
      instruction: null,
      containers: [notes],
      state: 'active',
      revoked_at: null,
    });
    const stored = (await h.store.shares.getById(made.id))!;
    expect(stored).toMatchObject({ accountId: h.owner.accountId, kind: 'agent_share', containerIds: [notes] });
    expect(stored.secretHash).not.toContain(made.token.split('_').at(-1));
    const caller = await authenticate(h.store, h.clock, made.token);
    expect(caller).toMatchObject({
      kind: 'share',
      accountId: h.owner.accountId,
      grant: { credentialId: made.id, containerIds: [notes] },
    });
  });

  it("keeps a workflow's instruction, trimmed, and refuses a workflow without one (400), minting nothing", async () => {
    const made = await h.run(ops.createShare, h.owner, {
      kind: 'workflow',
      name: 'Weekly digest',
      containers: [notes],
      instruction: '  Summarise the week.  ',
    });
    expect(made).toMatchObject({ kind: 'workflow', instruction: 'Summarise the week.' });
    expect(
      await refused(
        h.run(ops.createShare, h.owner, { kind: 'workflow', name: 'Empty', containers: [notes], instruction: '   ' }),
      ),
    ).toMatchObject({
      status: 400,
      details: { fields: ['instruction'] },
    });
    expect((await h.store.shares.list(h.owner.accountId)).map((s) => s.name)).toEqual(['Weekly digest']);
  });
});

describe('what a share holds', () => {
  it("holds its own tool only: a contract tool and an owner's operation are refused (403), the latter naming a share's token", async () => {
    const { token } = await h.run(ops.createShare, h.owner, {
      kind: 'agent_share',
      name: 'Helper',
      containers: [notes],
    });
    const share = await authenticate(h.store, h.clock, token);
    expect(await refused(h.run(ops.listContainers, share, {}))).toMatchObject({ status: 403, code: 'unauthorized' });
    const err = await refused(h.run(ops.listKeys, share, {}));
    expect(err).toMatchObject({ status: 403, code: 'unauthorized' });
    expect(err!.message).toContain("share's token cannot do it");
  });

  it('asks the language model, and without one is refused as unavailable, not as unauthorized', async () => {
    const { token } = await h.run(ops.createShare, h.owner, {
      kind: 'agent_share',
      name: 'Helper',
      containers: [notes],
    });
    const share = await authenticate(h.store, h.clock, token);
    expect(await refused(h.run(ops.askAgent, share, { message: 'What is planned for Friday?' }))).toMatchObject({
      code: 'capability_unavailable',
    });
  });
});

describe('list_shares and revoke_share', () => {
  it('revoking records when, lists the share as revoked, and its token no longer opens', async () => {
    const { id, token } = await h.run(ops.createShare, h.owner, {
      kind: 'agent_share',
      name: 'Helper',
      containers: [notes],
    });
    expect((await h.run(ops.listShares, h.owner, {})).active.map((s: { id: string }) => s.id)).toEqual([id]);
    h.clock.advance(1000);
    expect(await h.run(ops.revokeShare, h.owner, { key_id: id })).toMatchObject({
      id,
      state: 'revoked',
      revoked_at: iso(h.clock.now()),
    });
    expect((await h.store.shares.getById(id))!.revokedAt).toBe(h.clock.now());
    const listed = await h.run(ops.listShares, h.owner, {});
    expect([listed.active, listed.revoked.map((s: { id: string }) => s.id)]).toEqual([[], [id]]);
    const reason = await authenticate(h.store, h.clock, token).then(
      () => null,
      (e: unknown) => (e instanceof AuthError ? e.reason : null),
    );
    expect(reason).toBe('revoked');
  });

  it("answers 404 for another account's share and leaves it active", async () => {
    const other = await h.otherAccount('other@example.org', ['Theirs']);
    const { id } = await h.run(ops.createShare, other.owner, {
      kind: 'agent_share',
      name: 'Theirs',
      containers: [other.containers.Theirs],
    });
    expect(await refused(h.run(ops.revokeShare, h.owner, { key_id: id }))).toMatchObject({ status: 404 });
    expect((await h.store.shares.getById(id))!.revokedAt).toBeNull();
  });
});
