/**
 * Each operation's rules, called through `invoke` as every door calls it, on a real store without
 * HTTP (test/helpers/operations.ts): the level a tool needs, reach over containers, the profile
 * tick, the owner's operations, and input validation. Tables, one row per operation; a refused call
 * must change nothing and count in the key's usage as refused. What each operation does when it is
 * allowed is in its area's file beside this one (containers, documents, facts, ...). The doors' own
 * answers (status lines, the envelope, MCP's tool list) are tested end to end under test/e2e/.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import type { Caller } from '../../src/auth/caller';
import { ServiceError } from '../../src/errors';
import * as ops from '../../src/operations/index';
import type { Operation } from '../../src/operations/operation';
import { type Harness, openHarness } from '../helpers/operations';

type Who = 'read' | 'suggest' | 'manage' | 'consent' | 'owner';
const LEVEL_OF: Record<Who, number> = { read: 1, suggest: 2, manage: 3, consent: 1, owner: 4 };

let h: Harness;
let notes: string;
let work: string;
/** Every caller reaches Notes only (the owner reaches everything) and has the profile tick. */
const callers = {} as Record<Who, Caller>;
/** A document and a fact in Work, which no caller but the owner reaches. */
let workDoc: string;
let workFact: string;

beforeAll(async () => {
  h = await openHarness(['Notes', 'Work']);
  ({ Notes: notes, Work: work } = h.containers as { Notes: string; Work: string });
  for (const level of ['read', 'suggest', 'manage'] as const)
    callers[level] = await h.key({ level, containers: [notes], profile: true });
  callers.consent = await h.consent([notes], true);
  callers.owner = h.owner;
  workDoc = (
    await h.run(ops.addDocument, h.owner, { container: work, content: 'The quarterly report is due on Friday.' })
  ).id;
  workFact = (await h.run(ops.addMemory, h.owner, { container: work, content: 'Reports go to Henrike.' })).id;
});
afterAll(() => h.close());

/** The refusal an operation call ended in (the call must fail with a ServiceError). */
async function refusal(
  call: Promise<unknown>,
): Promise<{ status: number; code: string; message: string; details: unknown }> {
  const err = await call.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(err instanceof ServiceError)) throw new Error(`expected a refusal, got ${err ? String(err) : 'success'}`);
  return { status: err.status, code: err.code, message: err.message, details: err.details };
}

/** What the account holds, as the owner sees it: a refused call must leave it as it was. */
async function holdings(): Promise<unknown> {
  return {
    containers: await h.run(ops.listContainers, h.owner, {}),
    documents: await h.run(ops.listDocuments, h.owner, { limit: 200 }),
    profile: await h.run(ops.getProfile, h.owner, {}),
    rules: await h.run(ops.memoryRules, h.owner, {}),
  };
}

interface ToolRow {
  op: Operation;
  /** The least level that holds it. */
  level: 'read' | 'suggest' | 'manage';
  /** An input in reach of every caller; made fresh for each call, so a row may delete what it names. */
  input: () => Promise<Record<string, unknown>>;
}

const freshDocument = async () =>
  (await h.run(ops.addDocument, h.owner, { container: notes, content: `A note made at ${crypto.randomUUID()}.` })).id;
const freshFact = async () =>
  (await h.run(ops.addMemory, h.owner, { container: notes, content: `A fact made at ${crypto.randomUUID()}.` })).id;

const TOOL_ROWS: ToolRow[] = [
  { op: ops.listContainers, level: 'read', input: async () => ({}) },
  { op: ops.searchMemories, level: 'read', input: async () => ({ q: 'oatmeal', container: notes }) },
  { op: ops.getProfile, level: 'read', input: async () => ({}) },
  { op: ops.listDocuments, level: 'read', input: async () => ({ container: notes }) },
  { op: ops.getDocument, level: 'read', input: async () => ({ document_id: await freshDocument() }) },
  { op: ops.memoryRules, level: 'read', input: async () => ({}) },
  { op: ops.addMemory, level: 'suggest', input: async () => ({ container: notes, content: 'Likes rye bread.' }) },
  {
    op: ops.addDocument,
    level: 'suggest',
    input: async () => ({ container: notes, content: 'Meeting moved to Friday.' }),
  },
  {
    op: ops.deleteDocument,
    level: 'manage',
    input: async () => ({ document_id: await freshDocument(), confirm: true }),
  },
  { op: ops.forgetMemory, level: 'manage', input: async () => ({ memory_id: await freshFact(), confirm: true }) },
];

/** The contract's consent-minted client: these tools, whatever its level. */
const CONSENT_TOOLS = ['list_containers', 'search_memories', 'get_profile'];

describe('levels: each tool against each kind of caller', () => {
  it('covers the ten tools of the contract', () => {
    expect(TOOL_ROWS.map((r) => r.op)).toEqual([...ops.TOOLS]);
  });

  for (const row of TOOL_ROWS) {
    for (const who of ['read', 'suggest', 'manage', 'consent', 'owner'] as const) {
      const held = who === 'consent' ? CONSENT_TOOLS.includes(row.op.name) : LEVEL_OF[who] >= LEVEL_OF[row.level];
      it(`${row.op.name} with ${who}: ${held ? 'runs' : 'refused 403 unauthorized, nothing changed'}`, async () => {
        const input = await row.input();
        if (held) {
          await h.run(row.op, callers[who], input);
          return;
        }
        const before = await holdings();
        const got = await refusal(h.run(row.op, callers[who], input));
        const message =
          who === 'consent'
            ? `The tool ${row.op.name} is not in the agent's capability profile: an app connected with OAuth can only read.`
            : `The tool ${row.op.name} is not in this credential's capability profile.`;
        expect(got).toEqual({ status: 403, code: 'unauthorized', message, details: { tool: row.op.name } });
        expect(await holdings()).toEqual(before);
      });
    }
  }

  it("counts a Read key's refused calls in its usage as refused", async () => {
    const reader = await h.key({ level: 'read', containers: [notes] });
    await refusal(h.run(ops.addDocument, reader, { container: notes, content: 'x' }));
    await refusal(h.run(ops.forgetMemory, reader, { memory_id: 'mem_x', confirm: true }));
    await h.run(ops.listContainers, reader, {});
    const keyId = reader.kind === 'key' ? reader.grant.credentialId : '';
    const usage = await h.run(ops.keyUsage, h.owner, { key_id: keyId });
    expect(usage.refused).toBe(2);
    expect(usage.recent.map((r: any) => [r.tool, r.outcome])).toEqual(
      expect.arrayContaining([
        ['add_document', 'refused'],
        ['forget_memory', 'refused'],
        ['list_containers', 'ok'],
      ]),
    );
  });
});

interface ReachRow {
  op: Operation;
  /** Callers holding the tool (so the refusal is for reach, not level). */
  who: Who[];
  /** The input naming a target; `target` is Work's id (out of reach) or an id that does not exist. */
  input: (target: 'work' | 'missing') => Record<string, unknown>;
  refused: (target: 'work' | 'missing') => { status: number; code: string; message: string };
}

const MISSING_CONTAINER = 'ctr_doesNotExist00';
const container = (t: 'work' | 'missing') => (t === 'work' ? work : MISSING_CONTAINER);
const containerRefused = (t: 'work' | 'missing') => ({
  status: 403,
  code: 'unauthorized',
  message: `The container ${container(t)} may not be used with this credential.`,
});
const documentId = (t: 'work' | 'missing') => (t === 'work' ? workDoc : 'doc_doesNotExist00');
const memoryId = (t: 'work' | 'missing') => (t === 'work' ? workFact : 'mem_doesNotExist00');
const notFound = (message: string) => ({ status: 404, code: 'not_found', message });

const REACH_ROWS: ReachRow[] = [
  {
    op: ops.searchMemories,
    who: ['read', 'consent'],
    input: (t) => ({ q: 'report', container: container(t) }),
    refused: containerRefused,
  },
  { op: ops.listDocuments, who: ['read'], input: (t) => ({ container: container(t) }), refused: containerRefused },
  { op: ops.getContainer, who: ['read'], input: (t) => ({ container_id: container(t) }), refused: containerRefused },
  {
    op: ops.addMemory,
    who: ['suggest'],
    input: (t) => ({ container: container(t), content: 'Out of reach.' }),
    refused: containerRefused,
  },
  {
    op: ops.addDocument,
    who: ['suggest'],
    input: (t) => ({ container: container(t), content: 'Out of reach.' }),
    refused: containerRefused,
  },
  {
    op: ops.getDocument,
    who: ['read'],
    input: (t) => ({ document_id: documentId(t) }),
    refused: (t) => notFound(`No document ${documentId(t)}.`),
  },
  {
    op: ops.deleteDocument,
    who: ['manage'],
    input: (t) => ({ document_id: documentId(t), confirm: true }),
    refused: (t) => notFound(`No document ${documentId(t)}.`),
  },
  {
    op: ops.forgetMemory,
    who: ['manage'],
    input: (t) => ({ memory_id: memoryId(t), confirm: true }),
    refused: (t) => notFound(`No memory ${memoryId(t)}.`),
  },
];

describe('reach: a target outside it is refused exactly like one that does not exist', () => {
  for (const row of REACH_ROWS) {
    for (const who of row.who) {
      it(`${row.op.name} with ${who}: Work (out of reach) and a missing id get the same answer, nothing changed`, async () => {
        const before = await holdings();
        const outside = await refusal(h.run(row.op, callers[who], row.input('work')));
        const missing = await refusal(h.run(row.op, callers[who], row.input('missing')));
        expect({ status: outside.status, code: outside.code, message: outside.message }).toEqual(row.refused('work'));
        expect({ status: missing.status, code: missing.code, message: missing.message }).toEqual(
          row.refused('missing'),
        );
        expect(await holdings()).toEqual(before);
      });
    }
  }

  it('lists only the containers in reach', async () => {
    for (const who of ['read', 'suggest', 'manage', 'consent'] as const) {
      expect((await h.run(ops.listContainers, callers[who], {})).containers.map((c: any) => c.id)).toEqual([notes]);
    }
  });
});

describe('the profile tick', () => {
  let unticked: Caller;
  let consentUnticked: Caller;
  let staticFact: string;
  beforeAll(async () => {
    unticked = await h.key({ level: 'manage', containers: [notes] });
    consentUnticked = await h.consent([notes], false);
    staticFact = (await h.run(ops.addMemory, h.owner, { content: 'Lives in Porto.', static: true })).id;
  });

  it('does not offer get_profile without it, to a key or a consent token', async () => {
    for (const caller of [unticked, consentUnticked]) {
      expect(await refusal(h.run(ops.getProfile, caller, {}))).toMatchObject({
        status: 403,
        code: 'unauthorized',
        details: { tool: 'get_profile' },
      });
    }
    expect((await h.run(ops.getProfile, callers.manage, {})).static.map((f: any) => f.id)).toContain(staticFact);
  });

  it('refuses a static fact without it, and saves nothing', async () => {
    const before = await holdings();
    expect(await refusal(h.run(ops.addMemory, unticked, { content: 'Vegetarian.', static: true }))).toEqual({
      status: 403,
      code: 'unauthorized',
      message: 'The profile may not be used with this credential: its profile tick is off.',
      details: {},
    });
    expect(await holdings()).toEqual(before);
  });

  it('answers a profile fact without it like one that does not exist', async () => {
    expect(await refusal(h.run(ops.forgetMemory, unticked, { memory_id: staticFact, confirm: true }))).toMatchObject({
      status: 404,
      code: 'not_found',
      message: `No memory ${staticFact}.`,
    });
  });
});

/** Every operation of the owner's (containers, keys, rules, apps, shares), from the operation table itself. */
const OWNER_ONLY = (Object.values(ops) as unknown[]).filter(
  (v): v is Operation => typeof v === 'object' && v !== null && 'run' in v && (v as Operation).access === 'owner',
);

describe("the owner's operations: refused to keys and consent tokens before their input is read", () => {
  it('finds the owner-only operations in the table', () => {
    expect(OWNER_ONLY.map((op) => op.name)).toEqual(
      expect.arrayContaining(['create_container', 'create_key', 'revoke_key', 'add_rule']),
    );
  });

  for (const op of OWNER_ONLY) {
    it(`${op.name}: 403 to a Full access key and to a consent token`, async () => {
      const everything = await h.key({ level: 'manage', all_views: true, profile: true });
      const before = await holdings();
      expect(await refusal(h.run(op, everything, { anything: 'at all' }))).toEqual({
        status: 403,
        code: 'unauthorized',
        message: `${op.name} needs the owner's signed-in session; a developer key cannot do it.`,
        details: { tool: op.name },
      });
      expect(await refusal(h.run(op, callers.consent, {}))).toMatchObject({
        status: 403,
        code: 'unauthorized',
        message: `${op.name} needs the owner's signed-in session; an app's consent token cannot do it.`,
      });
      expect(await holdings()).toEqual(before);
    });
  }
});

interface ValidationRow {
  rule: string;
  op: Operation;
  input: () => Record<string, unknown>;
  status: 400 | 422;
  fields: string[];
}

/** Schemas check presence and type (422); rules in `run` answer 400 (docs/architecture.md, "Operations"). */
const VALIDATION_ROWS: ValidationRow[] = [
  {
    rule: 'an empty query',
    op: ops.searchMemories,
    input: () => ({ q: '   ', container: notes }),
    status: 400,
    fields: ['q'],
  },
  {
    rule: 'a limit of 0',
    op: ops.searchMemories,
    input: () => ({ q: 'tea', container: notes, limit: 0 }),
    status: 422,
    fields: ['limit'],
  },
  {
    rule: 'a query that is not text',
    op: ops.searchMemories,
    input: () => ({ q: 42, container: notes }),
    status: 422,
    fields: ['q'],
  },
  {
    rule: 'no container with two in reach',
    op: ops.addDocument,
    input: () => ({ content: 'Which one?' }),
    status: 400,
    fields: ['container'],
  },
  {
    rule: 'both content and url',
    op: ops.addDocument,
    input: () => ({ container: notes, content: 'x', url: 'https://example.org/' }),
    status: 400,
    fields: ['content', 'url'],
  },
  {
    rule: 'neither content nor url',
    op: ops.addDocument,
    input: () => ({ container: notes }),
    status: 400,
    fields: ['content', 'url'],
  },
  {
    rule: 'a url that is not http(s)',
    op: ops.addDocument,
    input: () => ({ container: notes, url: 'file:///etc/passwd' }),
    status: 400,
    fields: ['url'],
  },
  {
    rule: 'content over 1 MiB',
    op: ops.addDocument,
    input: () => ({ container: notes, content: 'a'.repeat(1024 * 1024 + 1) }),
    status: 422,
    fields: ['content'],
  },
  {
    rule: 'an empty fact',
    op: ops.addMemory,
    input: () => ({ container: notes, content: '  ' }),
    status: 400,
    fields: ['content'],
  },
  {
    rule: 'a page size of 201',
    op: ops.listDocuments,
    input: () => ({ container: notes, limit: 201 }),
    status: 422,
    fields: ['limit'],
  },
  {
    rule: 'an empty document id',
    op: ops.getDocument,
    input: () => ({ document_id: '' }),
    status: 422,
    fields: ['document_id'],
  },
];

describe('validation: refused with the fields named, nothing stored', () => {
  let twoContainers: Caller;
  beforeAll(async () => {
    twoContainers = await h.key({ level: 'manage', all_views: true, profile: true });
  });

  for (const row of VALIDATION_ROWS) {
    it(`${row.op.name}: ${row.rule} is ${row.status} validation`, async () => {
      const before = await holdings();
      const got = await refusal(h.run(row.op, twoContainers, row.input()));
      expect({ status: got.status, code: got.code }).toEqual({ status: row.status, code: 'validation' });
      expect((got.details as { fields: string[] }).fields).toEqual(row.fields);
      expect(await holdings()).toEqual(before);
    });
  }
});
