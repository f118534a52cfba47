/**
 * Resources and prompts, with the clients users run in both eras, over /mcp-http and through
 * `engram mcp`: each credential lists exactly what it may read (the profile only with its tick, the
 * containers in its reach, never another), reads each as its operation answers REST, and is refused
 * the rest with -32602 and the server's message and trace id, an unreachable container exactly as a
 * nonexistent one; prompts are offered to the credentials holding the tools they use, and their
 * arguments are checked.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { call, makeKey, startTestServer, type TestServer } from '../../helpers/server';
import { connect, type Owner, ownerWithBrowser } from '../../oauth/helpers';
import { connectEraClient, type Door, type EraClient, FLAVOURS } from './era-clients';

let server: TestServer;
let owner: Owner;
let food: string;
let work: string;
let secret: string;
let breakfast: string;
let hidden: string;
const keys = {} as Record<'readProfile' | 'read' | 'suggest', string>;
let consent: string;

beforeAll(async () => {
  server = await startTestServer();
  owner = await ownerWithBrowser(server, ['food', 'work', 'secret']);
  ({ food, work, secret } = owner.containers as { food: string; work: string; secret: string });
  const add = async (container: string, content: string, title: string) => {
    const res = await call(server, 'POST', '/v1/documents', owner.token, { container, content, title });
    expect(res.status).toBe(202);
    return res.body.id as string;
  };
  breakfast = await add(food, 'She eats oatmeal with blueberries for breakfast every morning.', 'Breakfast');
  await add(work, 'The quarterly report for the board is due on Friday.', 'Report');
  hidden = await add(secret, 'The oatmeal recipe in the secret container must never be read by a key.', 'Hidden');
  await server.learning.drain();
  for (const body of [
    { content: 'Prefers tea over coffee.', static: true },
    { content: 'Allergic to peanuts.', container: food },
  ])
    expect((await call(server, 'POST', '/v1/memories', owner.token, body)).status).toBe(201);
  const reach = { containers: [food, work] };
  keys.readProfile = (await makeKey(server, owner.token, { level: 'read', profile: true, ...reach })).key;
  keys.read = (await makeKey(server, owner.token, { level: 'read', profile: false, ...reach })).key;
  keys.suggest = (await makeKey(server, owner.token, { level: 'suggest', profile: false, ...reach })).key;
  consent = (await connect(server, owner, { containers: [food], profile: true })).access_token;
});
afterAll(async () => {
  await server.close();
});

/** The JSON-RPC error a call ended in, as either SDK raises it: code, message (without the SDK's prefix) and data. */
async function rpcError(call: Promise<unknown>): Promise<{ code: number; message: string; data: any }> {
  const err = (await call.then(
    () => {
      throw new Error('expected a JSON-RPC error, got an answer');
    },
    (e: unknown) => e,
  )) as { code: number; message: string; data: any };
  expect(typeof err.code).toBe('number');
  return { code: err.code, message: err.message.replace(/^MCP error -?\d+: /, ''), data: err.data };
}

/** A -32602 refusal with the server's message, the envelope's fields and the uri or prompt asked for. */
async function refused(call: Promise<unknown>, message: string, code: string, extra: Record<string, unknown>) {
  const err = await rpcError(call);
  expect(err).toEqual({
    code: -32602,
    message,
    data: { ...extra, code, details: expect.any(Object), retryable: false, trace_id: expect.stringMatching(/^tr_/) },
  });
  return err.data;
}

async function withClient(
  flavour: (typeof FLAVOURS)[number],
  door: Door,
  token: string,
  work: (c: EraClient) => Promise<void>,
) {
  const client = await connectEraClient(flavour, door, server.url, token);
  try {
    await work(client);
  } finally {
    await client.close();
  }
}

const rest = async (path: string, token: string) => {
  const res = await call(server, 'GET', path, token);
  expect(res.status).toBe(200);
  return res.body;
};

for (const door of ['http', 'stdio'] as Door[]) {
  for (const flavour of FLAVOURS) {
    describe(`${flavour} over ${door === 'http' ? '/mcp-http' : 'engram mcp'}`, () => {
      it('lists the profile and the containers in reach, and reads each as REST answers it', async () => {
        await withClient(flavour, door, keys.readProfile, async (client) => {
          const listed = await client.resources();
          expect(listed.map((r) => r.uri)).toEqual([
            'engram://profile',
            `engram://containers/${food}`,
            `engram://containers/${work}`,
          ]);
          expect(listed.map((r) => r.name)).toEqual(['profile', 'food', 'work']);
          expect((await client.templates()).map((t) => t.uriTemplate)).toEqual(['engram://documents/{document_id}']);

          const profile = await client.read('engram://profile');
          expect(profile).toEqual(await rest('/v1/profile', keys.readProfile));
          expect(profile.static.map((f: { content: string }) => f.content)).toEqual(['Prefers tea over coffee.']);

          const container = await client.read(`engram://containers/${food}`);
          expect(container.container).toMatchObject({ id: food, name: 'food' });
          expect(container.documents.map((d: { id: string }) => d.id)).toEqual([breakfast]);
          expect(container.facts.map((f: { content: string }) => f.content)).toEqual(['Allergic to peanuts.']);

          const document = await client.read(`engram://documents/${breakfast}`);
          expect(document).toEqual(await rest(`/v1/documents/${breakfast}`, keys.readProfile));
          expect(document.content).toContain('oatmeal');
        });
      });

      it('never names nor gives the profile without its tick, nor a container outside reach', async () => {
        await withClient(flavour, door, keys.read, async (client) => {
          expect((await client.resources()).map((r) => r.uri)).toEqual([
            `engram://containers/${food}`,
            `engram://containers/${work}`,
          ]);
          await refused(
            client.read('engram://profile'),
            'The resource engram://profile may not be read with this credential.',
            'unauthorized',
            { uri: 'engram://profile' },
          );
          // Outside reach and nonexistent read alike: the same words, only the id differs.
          for (const id of [secret, 'ctr_doesNotExist00']) {
            const uri = `engram://containers/${id}`;
            await refused(
              client.read(uri),
              `The container ${id} may not be used with this credential.`,
              'unauthorized',
              { uri },
            );
          }
          for (const id of [hidden, 'doc_doesNotExist00']) {
            const uri = `engram://documents/${id}`;
            await refused(client.read(uri), `No document ${id}.`, 'not_found', { uri });
          }
          await refused(client.read('https://example.org/x'), 'No resource https://example.org/x.', 'not_found', {
            uri: 'https://example.org/x',
          });
        });
      });

      it('gives an app’s consent token the profile it was ticked for and the recall prompt, nothing more', async () => {
        await withClient(flavour, door, consent, async (client) => {
          expect((await client.resources()).map((r) => r.uri)).toEqual(['engram://profile']);
          expect(await client.templates()).toEqual([]);
          expect((await client.prompts()).map((p) => p.name)).toEqual(['recall']);
          expect(await client.read('engram://profile')).toEqual(await rest('/v1/profile', consent));
          const uri = `engram://containers/${food}`;
          await refused(client.read(uri), `The resource ${uri} may not be read with this credential.`, 'unauthorized', {
            uri,
          });
        });
      });

      it('offers recall to a reader and save_decisions to a writer, each shaped for the model, its arguments checked', async () => {
        await withClient(flavour, door, keys.read, async (client) => {
          expect((await client.prompts()).map((p) => p.name)).toEqual(['recall']);
          const recalled = await client.prompt('recall', { subject: 'what she eats for breakfast' });
          expect(recalled).toContain('holds about "what she eats for breakfast"');
          expect(recalled).toContain(
            `1. [food] She eats oatmeal with blueberries for breakfast every morning. (document ${breakfast})`,
          );
          expect(recalled).not.toContain('secret container');
          await refused(client.prompt('save_decisions'), 'No prompt named save_decisions.', 'not_found', {
            prompt: 'save_decisions',
          });
          const empty = await refused(
            client.prompt('recall', { subject: '  ' }),
            'Invalid input: subject: must not be empty',
            'validation',
            {
              prompt: 'recall',
            },
          );
          expect(empty.details.fields).toEqual(['subject']);
          const unknown = await refused(
            client.prompt('recall', { subject: 'x', topic: 'y' }),
            expect.stringContaining('topic') as never,
            'validation',
            {
              prompt: 'recall',
            },
          );
          expect(unknown.details.fields).toEqual(['(body)']);
        });
        await withClient(flavour, door, keys.suggest, async (client) => {
          expect((await client.prompts()).map((p) => p.name)).toEqual(['recall', 'save_decisions']);
          const anywhere = await client.prompt('save_decisions');
          expect(anywhere).toContain('add_memory');
          expect(anywhere).toContain(`- "${food}": food`);
          expect(anywhere).toContain(`- "${work}": work`);
          expect(anywhere).not.toContain(secret);
          const here = await client.prompt('save_decisions', { container: work });
          expect(here).toContain(`with container "${work}" (work)`);
          await refused(
            client.prompt('save_decisions', { container: secret }),
            `The container ${secret} may not be used with this credential.`,
            'unauthorized',
            { prompt: 'save_decisions' },
          );
        });
      });
    });
  }
}
