/**
 * The connected apps' operations, by what they do: an app that went through consent listed with
 * what it reaches, its tokens listed, what it read logged (ids only), and the app disconnected
 * (every token of it revoked); each answer checked, and what the store holds.
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

const consentTokens = () => h.store.credentials.list(h.owner.accountId, 'consent_token');
const clientOf = async () => (await consentTokens())[0]!.clientId!;

describe('list_connected_apps', () => {
  it('lists each app with the containers its tokens reach, the profile tick and its redirect host', async () => {
    await h.consent([notes], false, 'Chat app');
    await h.consent([work], true, 'Chat app');
    const { apps } = await h.run(ops.listConnectedApps, h.owner, {});
    // Each consent registers a client of its own here: two apps of one name, each with its own reach.
    expect(apps).toHaveLength(2);
    expect(
      apps.map((a: { name: string; containers: { id: string }[]; profile: boolean; tokens: number }) => [
        a.name,
        a.containers.map((c) => c.id),
        a.profile,
        a.tokens,
      ]),
    ).toEqual(
      expect.arrayContaining([
        ['Chat app', [notes], false, 1],
        ['Chat app', [work], true, 1],
      ]),
    );
    expect(apps[0].redirect_hosts).toEqual(['127.0.0.1:9']);
  });

  it('leaves out an app whose tokens are all revoked', async () => {
    await h.consent([notes], false);
    await h.run(ops.disconnectApp, h.owner, { client_id: await clientOf() });
    expect((await h.run(ops.listConnectedApps, h.owner, {})).apps).toEqual([]);
  });
});

describe('list_consent_tokens', () => {
  it('lists each consent token with its app and its state', async () => {
    await h.consent([notes], false, 'Notebook app');
    const clientId = await clientOf();
    expect(await h.run(ops.listConsentTokens, h.owner, {})).toEqual({
      tokens: [
        {
          id: expect.any(String),
          client_id: clientId,
          app: 'Notebook app',
          state: 'active',
          created_at: new Date(h.clock.now()).toISOString(),
        },
      ],
    });
  });
});

describe('app_access_log', () => {
  it('logs what the app read, by id, with what each id names now', async () => {
    const fact = (await h.run(ops.addMemory, h.owner, { container: notes, content: 'Walks the dog at seven.' })).id;
    const app = await h.consent([notes], false, 'Reader');
    await h.run(ops.searchMemories, app, { q: 'dog', container: notes });
    const log = await h.run(ops.appAccessLog, h.owner, { client_id: await clientOf() });
    expect(log.entries).toHaveLength(1);
    expect(log.entries[0]).toMatchObject({ operation: 'search_memories', credential_kind: 'consent' });
    expect(log.entries[0].items).toEqual([
      expect.objectContaining({ action: 'returned', kind: 'fact', id: fact, label: 'Walks the dog at seven.' }),
    ]);
  });
});

describe('disconnect_app', () => {
  it('revokes every token of the app, counted, and lists them as revoked', async () => {
    await h.consent([notes], false);
    await h.consent([notes], false);
    const [first, second] = await consentTokens();
    // Both tokens were minted for their own clients; the second app stays connected.
    const clientId = first!.clientId!;
    expect(await h.run(ops.disconnectApp, h.owner, { client_id: clientId })).toEqual({
      status: 'disconnected',
      client_id: clientId,
      revoked: 1,
    });
    const after = new Map((await consentTokens()).map((t) => [t.id, t.revokedAt]));
    expect([after.get(first!.id), after.get(second!.id)]).toEqual([h.clock.now(), null]);
    const states = (await h.run(ops.listConsentTokens, h.owner, {})).tokens.map(
      (t: { client_id: string; state: string }) => [t.client_id, t.state],
    );
    expect(states).toEqual(
      expect.arrayContaining([
        [clientId, 'revoked'],
        [second!.clientId, 'active'],
      ]),
    );
  });

  it('answers 404 for an app never connected', async () => {
    expect(await refused(h.run(ops.disconnectApp, h.owner, { client_id: 'no-such-client' }))).toMatchObject({
      status: 404,
      code: 'not_found',
    });
  });
});
