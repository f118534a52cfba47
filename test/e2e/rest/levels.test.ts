/**
 * Levels, as a table: every tool route called with a Read, a Read & write and a Full access key
 * (and the owner's session), and every owner-only route called with a developer key and with
 * the owner's session. One row per route; each cell is the answer the contract expects.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { type Answer, call, startTestServer, type TestServer } from '../../helpers/server';
import { addDocument, addMemory, expectError, keyFor, makeAccount, type TestAccount } from '../../helpers/rest';

type Caller = 'read' | 'suggest' | 'manage' | 'owner';
interface Request {
  method: string;
  path: string;
  body?: unknown;
  /** After a refusal: proves the target was left as it was. */
  unchanged?: () => Promise<void>;
}
interface Outcome {
  status: number;
  code?: string;
  check?: (body: any) => void;
}
interface Row {
  tool: string;
  request: () => Promise<Request>;
  expect: Record<Caller, Outcome>;
}

let server: TestServer;
let account: TestAccount;
const tokens = {} as Record<Caller, string>;
let notes: string;
let learnedDoc: string;

beforeAll(async () => {
  server = await startTestServer();
  account = await makeAccount(server, ['Notes', 'Work']);
  notes = account.containers.Notes!;
  for (const level of ['read', 'suggest', 'manage'] as const) {
    tokens[level] = await keyFor(server, account.owner, { level, all_views: true, profile: true });
  }
  tokens.owner = account.owner;
  learnedDoc = await addDocument(server, account.owner, {
    container: notes,
    title: 'Breakfast',
    content: 'She eats oatmeal with blueberries.',
  });
  await server.learning.drain();
  await addMemory(server, account.owner, { container: notes, content: 'Prefers window seats on trains.' });
  await call(server, 'POST', '/v1/rules', account.owner, { text: 'Never share the address.' });
});
afterAll(() => server.close());

const REFUSED: Outcome = { status: 403, code: 'unauthorized' };
const all = (o: Outcome): Record<Caller, Outcome> => ({ read: o, suggest: o, manage: o, owner: o });

/** A fresh document in Notes, made by the owner, that a row may delete. */
async function freshDocument(): Promise<string> {
  return addDocument(server, account.owner, { container: notes, content: `A note made at ${crypto.randomUUID()}.` });
}

async function stillThere(path: string): Promise<void> {
  expect((await call(server, 'GET', path, account.owner)).status).toBe(200);
}

const TOOL_ROWS: Row[] = [
  {
    tool: 'list_containers',
    request: async () => ({ method: 'GET', path: '/v1/containers' }),
    expect: all({
      status: 200,
      check: (b) => expect(b.containers.map((c: any) => c.name).sort()).toEqual(['Notes', 'Work']),
    }),
  },
  {
    tool: 'search_memories',
    request: async () => ({ method: 'POST', path: '/v1/search', body: { q: 'blueberries', container: notes } }),
    expect: all({ status: 200, check: (b) => expect(b.results[0].document_id).toBe(learnedDoc) }),
  },
  {
    tool: 'get_profile',
    request: async () => ({ method: 'GET', path: '/v1/profile' }),
    expect: all({
      status: 200,
      check: (b) => expect(b.dynamic.map((f: any) => f.content)).toContain('Prefers window seats on trains.'),
    }),
  },
  {
    tool: 'list_documents',
    request: async () => ({ method: 'GET', path: `/v1/documents?container=${notes}` }),
    expect: all({ status: 200, check: (b) => expect(b.documents.map((d: any) => d.id)).toContain(learnedDoc) }),
  },
  {
    tool: 'get_document',
    request: async () => ({ method: 'GET', path: `/v1/documents/${learnedDoc}` }),
    expect: all({
      status: 200,
      check: (b) =>
        expect([b.id, b.learned, b.content]).toEqual([learnedDoc, true, 'She eats oatmeal with blueberries.']),
    }),
  },
  {
    tool: 'memory_rules',
    request: async () => ({ method: 'GET', path: '/v1/rules' }),
    expect: all({
      status: 200,
      check: (b) => expect(b.rules.map((r: any) => r.text)).toContain('Never share the address.'),
    }),
  },
  {
    tool: 'add_memory',
    request: async () => ({
      method: 'POST',
      path: '/v1/memories',
      body: { container: notes, content: 'Likes rye bread.' },
    }),
    expect: {
      read: REFUSED,
      ...(Object.fromEntries(
        (['suggest', 'manage', 'owner'] as const).map((c) => [
          c,
          {
            status: 201,
            check: (b: any) => expect([b.content, b.container, b.static]).toEqual(['Likes rye bread.', notes, false]),
          },
        ]),
      ) as Record<'suggest' | 'manage' | 'owner', Outcome>),
    },
  },
  {
    tool: 'add_document',
    request: async () => ({
      method: 'POST',
      path: '/v1/documents',
      body: { container: notes, content: 'Meeting moved to Friday.' },
    }),
    expect: {
      read: REFUSED,
      ...(Object.fromEntries(
        (['suggest', 'manage', 'owner'] as const).map((c) => [
          c,
          {
            status: 202,
            check: (b: any) => expect([b.status, b.container]).toEqual(['queued', notes]),
          },
        ]),
      ) as Record<'suggest' | 'manage' | 'owner', Outcome>),
    },
  },
  {
    tool: 'delete_document',
    request: async () => {
      const id = await freshDocument();
      return {
        method: 'DELETE',
        path: `/v1/documents/${id}?confirm=true`,
        unchanged: () => stillThere(`/v1/documents/${id}`),
      };
    },
    expect: {
      read: REFUSED,
      suggest: REFUSED,
      manage: { status: 200, check: (b) => expect(b.status).toBe('deleted') },
      owner: { status: 200, check: (b) => expect(b.status).toBe('deleted') },
    },
  },
  {
    tool: 'forget_memory',
    request: async () => {
      const id = await addMemory(server, account.owner, {
        container: notes,
        content: `A fact made at ${crypto.randomUUID()}.`,
      });
      const unchanged = async () => {
        const confirmation = await call(server, 'DELETE', `/v1/memories/${id}`, account.owner);
        expect(confirmation.body.status).toBe('confirmation_required'); // it is still there to be forgotten
      };
      return { method: 'DELETE', path: `/v1/memories/${id}?confirm=true`, unchanged };
    },
    expect: {
      read: REFUSED,
      suggest: REFUSED,
      manage: { status: 200, check: (b) => expect(b.status).toBe('forgotten') },
      owner: { status: 200, check: (b) => expect(b.status).toBe('forgotten') },
    },
  },
];

const LABEL: Record<Caller, string> = {
  read: 'a Read key',
  suggest: 'a Read & write key',
  manage: 'a Full access key',
  owner: "the owner's session",
};

describe('every tool at every level', () => {
  it('covers the ten tool routes of the contract', () => {
    expect(TOOL_ROWS.map((r) => r.tool)).toEqual([
      'list_containers',
      'search_memories',
      'get_profile',
      'list_documents',
      'get_document',
      'memory_rules',
      'add_memory',
      'add_document',
      'delete_document',
      'forget_memory',
    ]);
  });

  for (const row of TOOL_ROWS) {
    for (const caller of ['read', 'suggest', 'manage', 'owner'] as const) {
      const want = row.expect[caller];
      const outcome = want.code
        ? `is refused ${want.status} ${want.code}: the tool is above the level`
        : `answers ${want.status}`;
      it(`${row.tool} with ${LABEL[caller]} ${outcome}`, async () => {
        const req = await row.request();
        const res = await call(server, req.method, req.path, tokens[caller], req.body);
        if (want.code) {
          expectError(res, want.status, want.code);
          expect(res.body.message).toBe(`The tool ${row.tool} is not in this credential's capability profile.`);
          expect(res.body.details.tool).toBe(row.tool);
          await req.unchanged?.();
        } else {
          expect(res.status).toBe(want.status);
          expect(res.headers.get('X-Trace-Id')).toMatch(/^tr_/);
          want.check?.(res.body);
        }
      });
    }
  }
});

interface OwnerRow {
  route: string;
  request: () => Promise<Request>;
  status: number;
  check?: (body: any) => void;
}

/** A key the owner-only rows act on, with its token so a row can prove it still works. */
async function targetKey(): Promise<{ id: string; key: string }> {
  const res = await call(server, 'POST', '/v1/api-keys', account.owner, {
    name: 'target',
    level: 'read',
    containers: [notes],
  });
  return { id: res.body.id, key: res.body.key };
}

async function targetContainer(): Promise<string> {
  const res = await call(server, 'POST', '/v1/containers', account.owner, { name: `Box ${crypto.randomUUID()}` });
  return res.body.id;
}

async function containerNames(): Promise<string[]> {
  const res = await call(server, 'GET', '/v1/containers', account.owner);
  return res.body.containers.map((c: any) => c.name);
}

const OWNER_ROWS: OwnerRow[] = [
  {
    route: 'POST /v1/containers',
    request: async () => {
      const name = `New ${crypto.randomUUID()}`;
      return {
        method: 'POST',
        path: '/v1/containers',
        body: { name },
        unchanged: async () => expect(await containerNames()).not.toContain(name),
      };
    },
    status: 201,
    check: (b) => expect(b.id).toMatch(/^ctr_/),
  },
  {
    route: 'PATCH /v1/containers/{id}',
    request: async () => {
      const id = await targetContainer();
      const unchanged = async () => {
        const listed = (await call(server, 'GET', '/v1/containers', account.owner)).body.containers.find(
          (c: any) => c.id === id,
        );
        expect(listed.description).toBe('');
      };
      return { method: 'PATCH', path: `/v1/containers/${id}`, body: { description: 'changed' }, unchanged };
    },
    status: 200,
    check: (b) => expect(b.description).toBe('changed'),
  },
  {
    route: 'DELETE /v1/containers/{id}',
    request: async () => {
      const id = await targetContainer();
      const unchanged = async () =>
        expect(
          (await call(server, 'GET', '/v1/containers', account.owner)).body.containers.map((c: any) => c.id),
        ).toContain(id);
      return { method: 'DELETE', path: `/v1/containers/${id}?confirm=true`, unchanged };
    },
    status: 200,
    check: (b) => expect(b.status).toBe('deleted'),
  },
  {
    route: 'GET /v1/api-keys',
    request: async () => ({ method: 'GET', path: '/v1/api-keys' }),
    status: 200,
    check: (b) => expect(b.active.length).toBeGreaterThanOrEqual(3),
  },
  {
    route: 'POST /v1/api-keys',
    request: async () => ({
      method: 'POST',
      path: '/v1/api-keys',
      body: { name: 'minted', level: 'manage', all_views: true },
    }),
    status: 201,
    check: (b) => expect(b.key).toMatch(/^egm_/),
  },
  {
    route: 'PATCH /v1/api-keys/{id}',
    request: async () => {
      const target = await targetKey();
      const unchanged = async () =>
        expect((await call(server, 'POST', '/v1/memories', target.key, { content: 'x' })).status).toBe(403);
      return { method: 'PATCH', path: `/v1/api-keys/${target.id}`, body: { level: 'manage' }, unchanged };
    },
    status: 200,
    check: (b) => expect(b.level).toBe('manage'),
  },
  {
    route: 'PATCH /v1/exposures/{id}/views',
    request: async () => {
      const target = await targetKey();
      const unchanged = async () =>
        expect(
          (await call(server, 'GET', '/v1/containers', target.key)).body.containers.map((c: any) => c.name),
        ).toEqual(['Notes']);
      return {
        method: 'PATCH',
        path: `/v1/exposures/${target.id}/views`,
        body: { containers: [account.containers.Work] },
        unchanged,
      };
    },
    status: 200,
    check: (b) => expect(b.containers).toEqual([account.containers.Work]),
  },
  {
    route: 'GET /v1/api-keys/{id}/usage',
    request: async () => ({ method: 'GET', path: `/v1/api-keys/${(await targetKey()).id}/usage` }),
    status: 200,
    check: (b) => expect(b.recent).toEqual([]),
  },
  {
    route: 'DELETE /v1/exposures/{id}',
    request: async () => {
      const target = await targetKey();
      const unchanged = async () => expect((await call(server, 'GET', '/v1/containers', target.key)).status).toBe(200);
      return { method: 'DELETE', path: `/v1/exposures/${target.id}`, unchanged };
    },
    status: 200,
    check: (b) => expect(b.state).toBe('revoked'),
  },
  {
    route: 'POST /v1/rules',
    request: async () => ({
      method: 'POST',
      path: '/v1/rules',
      body: { text: 'Be brief.' },
      unchanged: async () => {
        const rules = (await call(server, 'GET', '/v1/rules', account.owner)).body.rules.map((r: any) => r.text);
        expect(rules).not.toContain('Be brief.');
      },
    }),
    status: 201,
    check: (b) => expect([b.text, b.scope]).toEqual(['Be brief.', 'account']),
  },
  {
    route: 'DELETE /v1/rules/{id}',
    request: async () => {
      const rule = await call(server, 'POST', '/v1/rules', account.owner, { text: `Rule ${crypto.randomUUID()}` });
      const unchanged = async () => {
        const rules = (await call(server, 'GET', '/v1/rules', account.owner)).body.rules.map((r: any) => r.id);
        expect(rules).toContain(rule.body.id);
      };
      return { method: 'DELETE', path: `/v1/rules/${rule.body.id}`, unchanged };
    },
    status: 200,
    check: (b) => expect(b.status).toBe('deleted'),
  },
];

describe('owner-only routes', () => {
  for (const row of OWNER_ROWS) {
    it(`${row.route} is refused for a Full access developer key with 403 unauthorized, changing nothing`, async () => {
      const req = await row.request();
      const res: Answer = await call(server, req.method, req.path, tokens.manage, req.body);
      expectError(res, 403, 'unauthorized');
      expect(res.body.message).toContain("owner's signed-in session");
      await req.unchanged?.();
    });
    it(`${row.route} is accepted for the owner's session with ${row.status}`, async () => {
      const req = await row.request();
      const res = await call(server, req.method, req.path, tokens.owner, req.body);
      expect(res.status).toBe(row.status);
      row.check?.(res.body);
    });
  }

  it('DELETE /v1/session is refused for a developer key, which has no session to end', async () => {
    const res = await call(server, 'DELETE', '/v1/session', tokens.manage);
    expectError(res, 403, 'unauthorized');
    expect((await call(server, 'GET', '/v1/containers', tokens.manage)).status).toBe(200);
  });
});
