/**
 * The per-container switch "learns into the profile": on by default; off, no learning turn puts a
 * fact drawn from that container's documents in the profile (a standing fact stays in the
 * container, and no profile fact is rewritten from it), so a key with the profile tick that reaches
 * only another container reads nothing of it. Through REST, with a fake model that extracts facts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { EXTRACT_SYSTEM } from '../../../src/learning/fact-extractor';
import { type ChatRequest, type FakeModel, startFakeModel } from '../../agent/fake-model';
import { call, makeContainer, makeKey, makeOwner, startTestServer, type TestServer } from '../../helpers/server';

/** Standing facts from "born in ..." passages; a move replaces the known "Lives in Oslo." when the model is shown it. */
function model(req: ChatRequest) {
  if (req.messages[0]!.content !== EXTRACT_SYSTEM) return { httpStatus: 400 }; // the profile merge falls back to its own rule
  const user = req.messages[1]!.content;
  const oslo = /\(F(\d+)\) Lives in Oslo\./.exec(user);
  const facts: unknown[] = [];
  for (const m of user.matchAll(/^\[(\d+)\] (.*)$/gm)) {
    const born = /born in (\w+)/.exec(m[2]!);
    if (born) facts.push({ content: `Was born in ${born[1]}.`, passage: Number(m[1]), standing: true });
    if (m[2]!.includes('moved to Bergen'))
      facts.push({
        content: 'Lives in Bergen.',
        passage: Number(m[1]),
        standing: true,
        replaces: oslo ? Number(oslo[1]) : null,
      });
  }
  return { facts };
}

describe('learns into the profile', () => {
  let server: TestServer;
  let fake: FakeModel;
  let owner: string;
  let notes: string;
  let secret: string;
  /** Reaches only Notes, with the profile tick. */
  let notesKey: string;
  /** Reaches everything, with the profile tick. */
  let allKey: string;

  beforeAll(async () => {
    fake = startFakeModel(model);
    server = await startTestServer({
      env: { ENGRAM_MODEL_URL: fake.url, ENGRAM_MODEL: 'm', ENGRAM_MODEL_RETRIES: '0' },
    });
    owner = (await makeOwner(server)).token;
    notes = await makeContainer(server, owner, 'Notes');
    const made = await call(server, 'POST', '/v1/containers', owner, { name: 'Secret', learns_into_profile: false });
    expect(made.status).toBe(201);
    secret = made.body.id;
    notesKey = (await makeKey(server, owner, { level: 'suggest', containers: [notes], profile: true })).key;
    allKey = (await makeKey(server, owner, { level: 'suggest', all_views: true, profile: true })).key;
    expect(
      (await call(server, 'POST', '/v1/memories', allKey, { content: 'Lives in Oslo.', static: true })).status,
    ).toBe(201);
  });
  afterAll(async () => {
    await server?.close();
    await fake?.stop();
  });

  const add = (container: string, content: string) =>
    call(server, 'POST', '/v1/documents', allKey, { container, content });
  const profile = async (key: string) =>
    (await call(server, 'GET', '/v1/profile', key)).body as {
      static: { content: string }[];
      dynamic: { content: string; container: string }[];
    };

  it('is on by default and shown on every container record; the owner turns it on and off', async () => {
    const listed = (await call(server, 'GET', '/v1/containers', allKey)).body.containers.map(
      (c: { name: string; learns_into_profile: boolean }) => [c.name, c.learns_into_profile],
    );
    expect(listed).toEqual([
      ['Notes', true],
      ['Secret', false],
    ]);
    const turned = await call(server, 'PATCH', `/v1/containers/${notes}`, owner, { learns_into_profile: false });
    expect([turned.status, turned.body.learns_into_profile, turned.body.name]).toEqual([200, false, 'Notes']);
    expect(
      (await call(server, 'PATCH', `/v1/containers/${notes}`, owner, { learns_into_profile: true })).body
        .learns_into_profile,
    ).toBe(true);
    // A key cannot turn it: containers are the owner's.
    expect(
      (await call(server, 'PATCH', `/v1/containers/${secret}`, allKey, { learns_into_profile: true })).status,
    ).toBe(403);
  });

  it('keeps a standing fact learned in a container that does not learn into the profile inside that container', async () => {
    await add(secret, 'I was born in Vantablue harbour.');
    await add(notes, 'I was born in Karlstad, they say.');
    await server.learning.drain();
    // The key reaching only Notes, with the profile tick, reads Notes' standing fact and nothing of Secret.
    const seen = await profile(notesKey);
    expect(seen.static.map((f) => f.content).sort()).toEqual(['Lives in Oslo.', 'Was born in Karlstad.']);
    expect(JSON.stringify(seen)).not.toContain('Vantablue');
    // The fact is learned all the same: a fact of Secret, for what reaches Secret.
    const all = await profile(allKey);
    expect(all.static.map((f) => f.content)).not.toContain('Was born in Vantablue.');
    expect(all.dynamic.filter((f) => f.content === 'Was born in Vantablue.').map((f) => f.container)).toEqual([secret]);
  });

  it('rewrites no profile fact from such a container: the newer fact stays in it', async () => {
    await add(secret, 'Last spring I moved to Bergen for work.');
    await server.learning.drain();
    expect((await profile(notesKey)).static.map((f) => f.content)).toContain('Lives in Oslo.');
    expect(
      (await profile(allKey)).dynamic.filter((f) => f.content === 'Lives in Bergen.').map((f) => f.container),
    ).toEqual([secret]);
  });

  it('does not rewrite a profile fact either when the switch is turned off while the model thinks', async () => {
    await add(notes, 'Last spring I moved to Bergen for work, again.');
    fake.delayMs = 600;
    const asked = fake.requests.length;
    const drained = server.learning.drain();
    while (fake.requests.length === asked) await Bun.sleep(10); // the model has the passages, with "Lives in Oslo." among the known facts
    expect(fake.requests.at(-1)!.messages[1]!.content).toContain('Lives in Oslo.');
    expect((await call(server, 'PATCH', `/v1/containers/${notes}`, owner, { learns_into_profile: false })).status).toBe(
      200,
    );
    await drained;
    fake.delayMs = 0;
    expect((await profile(notesKey)).static.map((f) => f.content)).toContain('Lives in Oslo.');
    expect(
      (await profile(allKey)).dynamic
        .filter((f) => f.content === 'Lives in Bergen.')
        .map((f) => f.container)
        .sort(),
    ).toEqual([notes, secret].sort());
  });

  it('promotes again once it is turned back on', async () => {
    expect((await call(server, 'PATCH', `/v1/containers/${notes}`, owner, { learns_into_profile: true })).status).toBe(
      200,
    );
    await add(notes, 'I was born in Umea, my mother says.');
    await server.learning.drain();
    expect((await profile(notesKey)).static.map((f) => f.content)).toContain('Was born in Umea.');
  });
});
