/**
 * The containers' operations, by what they do: each call's answer, and what it left in the store
 * (read back through the store's own repositories, not through another operation).
 */
import { afterEach, beforeEach, describe, expect, it } from 'bun:test';
import { refusalOf } from '../../src/errors';
import * as ops from '../../src/operations/index';
import { type Harness, openHarness, refused } from '../helpers/operations';

let h: Harness;
beforeEach(async () => {
  h = await openHarness(['Notes']);
});
afterEach(() => h.close());

describe('create_container', () => {
  it("stores the container under the caller's account and answers it as stored", async () => {
    h.clock.advance(1000);
    const made = await h.run(ops.createContainer, h.owner, {
      name: 'Travel',
      description: 'Trips and bookings',
      learns_into_profile: false,
    });
    expect(made).toEqual({
      id: expect.stringMatching(/^ctr_/),
      name: 'Travel',
      description: 'Trips and bookings',
      created_at: new Date(h.clock.now()).toISOString(),
      learns_into_profile: false,
    });
    const stored = await h.store.containers.get(h.owner.accountId, made.id);
    expect(stored).toMatchObject({
      name: 'Travel',
      description: 'Trips and bookings',
      learnsIntoProfile: false,
      createdAt: h.clock.now(),
    });
  });

  it('learns into the profile unless told otherwise, with an empty description', async () => {
    const made = await h.run(ops.createContainer, h.owner, { name: 'Health' });
    expect(made).toMatchObject({ description: '', learns_into_profile: true });
    expect(await h.store.containers.get(h.owner.accountId, made.id)).toMatchObject({
      description: '',
      learnsIntoProfile: true,
    });
  });

  it('refuses a second container of the same name (409), leaving one', async () => {
    const err = await refused(h.run(ops.createContainer, h.owner, { name: 'Notes' }));
    expect(err).toMatchObject({ status: 409, code: 'conflict', details: { fields: ['name'] } });
    expect((await h.store.containers.list(h.owner.accountId)).map((c) => c.name)).toEqual(['Notes']);
  });

  it('keeps accounts apart: another account may use the same name, and lists only its own', async () => {
    const other = await h.otherAccount('other@example.org', ['Notes', 'Garden']);
    expect(
      (await h.run(ops.listContainers, other.owner, {})).containers.map((c: { name: string }) => c.name).sort(),
    ).toEqual(['Garden', 'Notes']);
    expect((await h.run(ops.listContainers, h.owner, {})).containers.map((c: { name: string }) => c.name)).toEqual([
      'Notes',
    ]);
  });
});

describe('list_containers', () => {
  it('answers a key only the containers in its reach', async () => {
    const work = (await h.run(ops.createContainer, h.owner, { name: 'Work' })).id;
    const key = await h.key({ level: 'read', containers: [work] });
    expect((await h.run(ops.listContainers, key, {})).containers.map((c: { id: string }) => c.id)).toEqual([work]);
  });
});

describe('get_container', () => {
  it('answers a container in reach with its newest documents first, without their content, and its latest facts, not the profile', async () => {
    const notes = h.containers.Notes!;
    const older = (await h.run(ops.addDocument, h.owner, { container: notes, content: 'Bins go out on Tuesday.' })).id;
    h.clock.advance(1000);
    const newer = (await h.run(ops.addDocument, h.owner, { container: notes, content: 'The boiler was serviced.' })).id;
    const fact = (await h.run(ops.addMemory, h.owner, { container: notes, content: 'Keeps the spare key next door.' }))
      .id;
    await h.run(ops.addMemory, h.owner, { content: 'Prefers tea.', static: true });
    const key = await h.key({ level: 'read', containers: [notes] });
    const got = await h.run(ops.getContainer, key, { container_id: notes });
    expect(got.container).toMatchObject({ id: notes, name: 'Notes' });
    expect(got.documents.map((d: { id: string }) => d.id)).toEqual([newer, older]);
    expect(got.documents.every((d: object) => !('content' in d))).toBe(true);
    expect(got.facts.map((f: { id: string }) => f.id)).toEqual([fact]);
  });

  it('shows at most the 20 newest documents and the 20 latest facts', async () => {
    const notes = h.containers.Notes!;
    for (let i = 0; i < 21; i++) {
      h.clock.advance(1);
      await h.run(ops.addDocument, h.owner, { container: notes, content: `Note ${i}.` });
      await h.run(ops.addMemory, h.owner, { container: notes, content: `Fact ${i}.` });
    }
    const got = await h.run(ops.getContainer, h.owner, { container_id: notes });
    expect(got.documents).toHaveLength(20);
    expect(got.facts).toHaveLength(20);
    expect(got.facts.map((f: { content: string }) => f.content)).not.toContain('Fact 0.');
  });

  it('is refused to an app’s consent token, whose tools list no documents', async () => {
    const consent = await h.consent([h.containers.Notes!], true);
    expect(await refused(h.run(ops.getContainer, consent, { container_id: h.containers.Notes! }))).toMatchObject({
      status: 403,
      code: 'unauthorized',
    });
  });
});

describe('update_container', () => {
  it('renames, redescribes and switches learning into the profile, and stores each', async () => {
    const id = h.containers.Notes!;
    h.clock.advance(5000);
    const updated = await h.run(ops.updateContainer, h.owner, {
      container_id: id,
      name: 'Journal',
      description: 'Daily',
      learns_into_profile: false,
    });
    expect(updated).toMatchObject({ id, name: 'Journal', description: 'Daily', learns_into_profile: false });
    expect(await h.store.containers.get(h.owner.accountId, id)).toMatchObject({
      name: 'Journal',
      description: 'Daily',
      learnsIntoProfile: false,
      updatedAt: h.clock.now(),
    });
  });

  it('changes only the fields given', async () => {
    const id = h.containers.Notes!;
    await h.run(ops.updateContainer, h.owner, { container_id: id, description: 'Loose notes' });
    expect(await h.store.containers.get(h.owner.accountId, id)).toMatchObject({
      name: 'Notes',
      description: 'Loose notes',
      learnsIntoProfile: true,
    });
  });

  it('refuses a name another container has (409) and leaves both as they were', async () => {
    const work = (await h.run(ops.createContainer, h.owner, { name: 'Work' })).id;
    expect(await refused(h.run(ops.updateContainer, h.owner, { container_id: work, name: 'Notes' }))).toMatchObject({
      status: 409,
      code: 'conflict',
    });
    expect((await h.store.containers.list(h.owner.accountId)).map((c) => c.name).sort()).toEqual(['Notes', 'Work']);
  });

  it("answers 404 for another account's container and changes nothing of it", async () => {
    const other = await h.otherAccount('other@example.org', ['Private']);
    const id = other.containers.Private!;
    expect(await refused(h.run(ops.updateContainer, h.owner, { container_id: id, name: 'Mine' }))).toMatchObject({
      status: 404,
      code: 'not_found',
    });
    expect(await h.store.containers.get(other.owner.accountId, id)).toMatchObject({ name: 'Private' });
  });
});

describe('delete_container', () => {
  it('asks for confirmation first, naming what would go, and deletes nothing', async () => {
    const id = h.containers.Notes!;
    await h.run(ops.addDocument, h.owner, { container: id, content: 'The boiler was serviced in March.' });
    await h.learn();
    const asked = await h.run(ops.deleteContainer, h.owner, { container_id: id });
    expect(asked).toMatchObject({ status: 'confirmation_required', verb: 'delete_container' });
    expect(asked.how).toContain('"Notes"');
    expect(asked.how).toContain('1 document');
    expect(await h.store.containers.get(h.owner.accountId, id)).not.toBeNull();
    expect((await h.store.documents.list(h.owner.accountId, [id], 10, null)).documents).toHaveLength(1);
  });

  it('confirmed, removes the container with its documents, passages and facts, and counts them', async () => {
    const id = h.containers.Notes!;
    const doc = (await h.run(ops.addDocument, h.owner, { container: id, content: 'The boiler was serviced in March.' }))
      .id;
    const fact = (await h.run(ops.addMemory, h.owner, { container: id, content: 'Keeps the spare key under the mat.' }))
      .id;
    await h.learn();
    const done = await h.run(ops.deleteContainer, h.owner, { container_id: id, confirm: true });
    expect(done).toEqual({
      status: 'deleted',
      id,
      forgotten: { documents: 1, passages: 1, facts: 1 },
      kept: { facts: 0 },
    });
    expect(await h.store.containers.get(h.owner.accountId, id)).toBeNull();
    expect(await h.store.documents.get(h.owner.accountId, doc)).toBeNull();
    expect(await h.store.facts.get(h.owner.accountId, fact)).toBeNull();
    expect(await h.store.passages.search(h.owner.accountId, [id], 'boiler', 10)).toEqual([]);
  });

  it('refuses a write that lost the race with the deletion as a retryable 409, writing nothing', async () => {
    const id = h.containers.Notes!;
    // Authenticated before the deletion: the call's reach, read with its credential, still holds Notes.
    const key = await h.key({ level: 'manage', containers: [id] });
    await h.run(ops.deleteContainer, h.owner, { container_id: id, confirm: true });
    const lostRace = (call: Promise<unknown>) =>
      call.then(
        () => null,
        (err: unknown) => refusalOf(err),
      );
    const refusal = { status: 409, code: 'conflict', retryable: true, details: { reason: 'deleted_meanwhile' } };
    expect(
      await lostRace(h.run(ops.addDocument, key, { container: id, content: 'Written after it went.' })),
    ).toMatchObject(refusal);
    expect(
      await lostRace(h.run(ops.addMemory, key, { container: id, content: 'Learned after it went.' })),
    ).toMatchObject(refusal);
    expect(await h.store.facts.list(h.owner.accountId)).toEqual([]);
    expect((await h.store.documents.list(h.owner.accountId, [id], 10, null)).documents).toEqual([]);
    expect(
      (await h.run(ops.keyUsage, h.owner, { key_id: key.kind === 'owner' ? '' : key.grant.credentialId })).recent.map(
        (r: any) => r.status,
      ),
    ).toEqual([409, 409]);
  });
});
