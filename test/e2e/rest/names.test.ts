/**
 * Names people read (containers, keys, shares, apps): a character that does not show, or shows as
 * a blank that is not the space, is refused in the owner's names (422 naming `name` and the
 * character) and dropped from an app's self-chosen name; and two container names that read the
 * same (case, NFKC, a joiner inside) are one name, refused with 409 like an exact duplicate.
 * Over REST and the OAuth registration endpoint, on an in-process server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { register } from '../../oauth/helpers';
import { call, makeContainer, makeOwner, startTestServer, type TestServer } from '../../helpers/server';

/** Each character the attack used, and names it could pass for another in. */
const HIDDEN: [string, string[]][] = [
  ['U+3164', ['Notes\u3164', 'Claude\u3164Official']], // Hangul filler
  ['U+FFA0', ['Notes\uFFA0', 'Claude\uFFA0Official']], // halfwidth Hangul filler
  ['U+2800', ['Notes\u2800', 'Claude\u2800Official']], // braille pattern blank
  ['U+034F', ['Notes\u034F', 'Cla\u034Fude']], // combining grapheme joiner
  ['U+17B4', ['Notes\u17B4', 'Cla\u17B4ude']], // Khmer vowel inherent Aq
  ['U+3000', ['Claude\u3000Official']], // ideographic space (at either end it is trimmed, as every space is)
  ['U+00A0', ['Claude\u00A0Official']], // no-break space
  ['U+00AD', ['Notes\u00AD', 'Cla\u00ADude']], // soft hyphen
  ['U+FE0F', ['\uFE0FNotes', 'Notes \uFE0F']], // a variation selector after nothing that shows
];

describe('names', () => {
  let server: TestServer;
  let owner: string;
  let notes: string;
  let keyId: string;

  beforeAll(async () => {
    server = await startTestServer();
    owner = (await makeOwner(server)).token;
    notes = await makeContainer(server, owner, 'Notes');
    keyId = (await call(server, 'POST', '/v1/api-keys', owner, { name: 'laptop', level: 'read', containers: [notes] }))
      .body.id;
  });
  afterAll(() => server.close());

  const names = async () =>
    (await call(server, 'GET', '/v1/containers', owner)).body.containers.map((c: { name: string }) => c.name);

  it('refuses invisible letters and blank look-alikes in container, key and share names: 422 naming the field and the character, nothing stored', async () => {
    const before = {
      containers: await names(),
      keys: (await call(server, 'GET', '/v1/api-keys', owner)).body,
      shares: (await call(server, 'GET', '/v1/shares', owner)).body,
    };
    for (const [code, tried] of HIDDEN) {
      for (const name of tried) {
        const answers = [
          await call(server, 'POST', '/v1/containers', owner, { name }),
          await call(server, 'PATCH', `/v1/containers/${notes}`, owner, { name }),
          await call(server, 'POST', '/v1/api-keys', owner, { name, level: 'read', containers: [notes] }),
          await call(server, 'PATCH', `/v1/api-keys/${keyId}`, owner, { name }),
          await call(server, 'POST', '/v1/shares', owner, { kind: 'agent_share', name, containers: [notes] }),
        ];
        for (const answer of answers) {
          expect({ name, status: answer.status, code: answer.body.code, fields: answer.body.details?.fields }).toEqual({
            name,
            status: 422,
            code: 'validation',
            fields: ['name'],
          });
          expect(answer.body.message).toContain(`(found ${code})`);
        }
      }
    }
    expect({
      containers: await names(),
      keys: (await call(server, 'GET', '/v1/api-keys', owner)).body,
      shares: (await call(server, 'GET', '/v1/shares', owner)).body,
    }).toEqual(before);
  });

  it('keeps what scripts and emoji need: joiners between letters, a variation selector after a symbol', async () => {
    for (const name of [
      'می\u200Cخواهم',
      '👩\u200D💻 Work',
      '❤\uFE0F Health',
      '🏳\uFE0F\u200D🌈 Pride',
      'Café crème',
      'H₂O',
    ]) {
      expect({ name, status: (await call(server, 'POST', '/v1/containers', owner, { name })).status }).toEqual({
        name,
        status: 201,
      });
    }
  });

  it('refuses a container name that reads as another one with 409, like an exact duplicate, on create and on rename', async () => {
    const work = await makeContainer(server, owner, 'Work');
    for (const name of [
      'Notes',
      'notes',
      'NOTES',
      'Ｎｏｔｅｓ',
      'No\u200Dtes',
      'ℕotes',
      '❤ Health',
      'café crème',
      'H2O',
      'h₂o',
    ]) {
      const made = await call(server, 'POST', '/v1/containers', owner, { name });
      expect({ name, status: made.status, code: made.body.code, fields: made.body.details?.fields }).toEqual({
        name,
        status: 409,
        code: 'conflict',
        fields: ['name'],
      });
      const renamed = await call(server, 'PATCH', `/v1/containers/${work}`, owner, { name });
      expect({ name, status: renamed.status }).toEqual({ name, status: 409 });
    }
    expect((await names()).filter((n: string) => n === 'Work')).toEqual(['Work']);
    // A container keeps its own name under another case: it reads as itself.
    expect((await call(server, 'PATCH', `/v1/containers/${work}`, owner, { name: 'WORK' })).status).toBe(200);
    expect((await names()).filter((n: string) => n.toLowerCase() === 'work')).toEqual(['WORK']);
  });

  it("drops them from an app's own name at registration: a blank becomes a space, the rest goes", async () => {
    for (const [name, shown] of [
      ['Claude\u3164', 'Claude'],
      ['Claude\u3164Official', 'Claude Official'],
      ['Cla\u034Fude\u2800App', 'Claude App'],
      ['\u3164\uFFA0', 'Unnamed app'],
    ]) {
      const res = await register(server, { client_name: name, redirect_uris: ['https://app.example/cb'] });
      expect(res.status).toBe(201);
      expect({ name, shown: res.body.client_name }).toEqual({ name, shown });
    }
  });
});
