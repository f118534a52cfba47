/**
 * The profile and the memory rules, by what they do: get_profile's standing and recent facts (and
 * passages on a topic) for what the caller reaches; rules added for every credential or one key,
 * read back by whom they apply to, and deleted; each answer checked, and what the store holds.
 */
import { afterEach, beforeEach, describe, expect, it } from 'bun:test';
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

const contents = (facts: { content: string }[]) => facts.map((f) => f.content);

describe('get_profile', () => {
  it('answers the standing facts and the recent facts of the containers, newest first', async () => {
    await h.run(ops.addMemory, h.owner, { content: 'Is vegetarian.', static: true });
    await h.run(ops.addMemory, h.owner, { container: notes, content: 'Started a pottery class.' });
    h.clock.advance(1000);
    await h.run(ops.addMemory, h.owner, { container: work, content: 'Moved to the Berlin office.' });
    const profile = await h.run(ops.getProfile, h.owner, {});
    expect(contents(profile.static)).toEqual(['Is vegetarian.']);
    expect(contents(profile.dynamic)).toEqual(['Moved to the Berlin office.', 'Started a pottery class.']);
    expect(profile).not.toHaveProperty('results');
  });

  it('answers a key the recent facts of its containers only, and every standing fact', async () => {
    await h.run(ops.addMemory, h.owner, { content: 'Is vegetarian.', static: true });
    await h.run(ops.addMemory, h.owner, { container: notes, content: 'Started a pottery class.' });
    await h.run(ops.addMemory, h.owner, { container: work, content: 'Moved to the Berlin office.' });
    const key = await h.key({ level: 'read', containers: [notes], profile: true });
    const profile = await h.run(ops.getProfile, key, {});
    expect(contents(profile.static)).toEqual(['Is vegetarian.']);
    expect(contents(profile.dynamic)).toEqual(['Started a pottery class.']);
  });

  it('adds the passages on a topic, from the containers in reach', async () => {
    await h.run(ops.addDocument, h.owner, {
      container: notes,
      content: 'The pottery class meets on Wednesday evenings.',
    });
    await h.run(ops.addDocument, h.owner, { container: work, content: 'The pottery kiln at work is broken.' });
    await h.learn();
    const key = await h.key({ level: 'read', containers: [notes], profile: true });
    const { results } = await h.run(ops.getProfile, key, { q: 'pottery' });
    expect(results.map((r: { content: string; container: string }) => [r.container, r.content])).toEqual([
      [notes, 'The pottery class meets on Wednesday evenings.'],
    ]);
  });

  it('refuses a key without the profile tick (403)', async () => {
    const key = await h.key({ level: 'read', containers: [notes], profile: false });
    expect(await refused(h.run(ops.getProfile, key, {}))).toMatchObject({ status: 403, code: 'unauthorized' });
  });
});

describe('memory rules', () => {
  it('stores a rule for every credential, which every caller reads', async () => {
    const rule = await h.run(ops.addRule, h.owner, { text: '  Never store health details.  ' });
    expect(rule.id).toStartWith('rul_');
    expect(rule).toMatchObject({ text: 'Never store health details.', scope: 'account', credential_id: null });
    expect(await h.store.rules.get(h.owner.accountId, rule.id)).toMatchObject({
      text: 'Never store health details.',
      credentialId: null,
    });
    const key = await h.key({ level: 'read', containers: [notes] });
    expect((await h.run(ops.memoryRules, key, {})).rules.map((r: { id: string }) => r.id)).toEqual([rule.id]);
  });

  it("keeps a key's own rule to that key", async () => {
    const key = await h.key({ level: 'read', containers: [notes] });
    const other = await h.key({ level: 'read', containers: [notes] });
    const keyId = key.kind === 'owner' ? '' : key.grant.credentialId!;
    const rule = await h.run(ops.addRule, h.owner, { text: 'Answer in German.', credential_id: keyId });
    expect(rule).toMatchObject({ scope: 'credential', credential_id: keyId });
    expect((await h.run(ops.memoryRules, key, {})).rules.map((r: { id: string }) => r.id)).toEqual([rule.id]);
    expect((await h.run(ops.memoryRules, other, {})).rules).toEqual([]);
  });

  it('refuses a rule for a key the account does not hold (400) and stores none', async () => {
    expect(await refused(h.run(ops.addRule, h.owner, { text: 'x', credential_id: 'key_nothere' }))).toMatchObject({
      status: 400,
      details: { fields: ['credential_id'] },
    });
    expect(await h.store.rules.list(h.owner.accountId, null)).toEqual([]);
  });

  it('deletes a rule, and answers 404 when it is gone', async () => {
    const { id } = await h.run(ops.addRule, h.owner, { text: 'Be brief.' });
    expect(await h.run(ops.deleteRule, h.owner, { rule_id: id })).toEqual({ status: 'deleted', id });
    expect(await h.store.rules.get(h.owner.accountId, id)).toBeNull();
    expect(await refused(h.run(ops.deleteRule, h.owner, { rule_id: id }))).toMatchObject({ status: 404 });
  });
});
