/**
 * The isolation matrix: every credential kind of account A × every REST route of REST_ROUTES (tool
 * routes and owner routes) and every MCP tool name (current and retired) × targets (own container in
 * reach, own out of reach, account B's ids, nonexistent ids). Each expected outcome comes from one
 * oracle written from the contract's rules; every answer is asserted, and an answer about account
 * B's ids must be byte-identical (trace_id aside, the echoed id aside) to one about an id that
 * does not exist.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { REST_ROUTES } from '../../../src/http/rest';
import { DAY_MS, addDocument, addMemory, makeAccount, type TestAccount } from '../../helpers/rest';
import { type Answer, call, makeKey, startTestServer, type TestServer } from '../../helpers/server';
import { Browser, connect, type Owner } from '../../oauth/helpers';

type Level = 'read' | 'suggest' | 'manage';

interface Cred {
  label: string;
  token: string | null;
  /** good: a live credential of account A. bad: unknown, expired, revoked or malformed. none: no bearer. */
  kind: 'owner' | 'key' | 'consent' | 'bad' | 'none';
  level: Level;
  /** Container ids of A in reach. */
  reach: Set<string>;
  profile: boolean;
}

type TargetKind = 'none' | 'own_in' | 'own_out' | 'own_profile' | 'other' | 'other_profile' | 'missing';

interface Case {
  transport: 'rest' | 'mcp';
  cred: Cred;
  /** The contract tool (or owner operation) the call stands for. */
  tool: string;
  /** REST: method and path; MCP: the called name. */
  name: string;
  method: string;
  path: string;
  body?: Record<string, unknown>;
  args?: Record<string, unknown>;
  targetKind: TargetKind;
  /** The id the case names, replaced by a placeholder before comparing answers. */
  targetId: string | null;
  /** Which comparison group the case belongs to (same call, different target). */
  group: string;
  /** The kind of thing targeted: container, document, memory or an owner-route id. */
  targetType: 'container' | 'document' | 'memory' | 'owner_id' | 'none';
}

interface Outcome {
  status: number;
  /** 'ok' for success, the envelope code for an error, 'invalid_token' for MCP's RFC 6750 401. */
  code: string;
}

const READ_TOOLS = [
  'list_containers',
  'search_memories',
  'get_profile',
  'list_documents',
  'get_document',
  'memory_rules',
];
const SUGGEST_TOOLS = [...READ_TOOLS, 'add_memory', 'add_document'];
const MANAGE_TOOLS = [...SUGGEST_TOOLS, 'delete_document', 'forget_memory'];
const LEVEL_TOOLS: Record<Level, string[]> = { read: READ_TOOLS, suggest: SUGGEST_TOOLS, manage: MANAGE_TOOLS };
const CONSENT_TOOLS = ['list_containers', 'search_memories', 'get_profile'];
const OWNER_OPS = new Set(REST_ROUTES.filter((r) => r.op.access === 'owner').map((r) => r.op.name));
const SUCCESS_STATUS: Record<string, number> = { add_memory: 201, add_document: 202 };

/** Whether the credential holds the tool: the level table, the consent row, the profile tick, owner-only operations. */
function holds(cred: Cred, tool: string): boolean {
  if (tool === 'ask_agent' || tool === 'workflow_invoke') return false; // no credential of this server holds them
  if (cred.kind === 'owner') return true;
  if (OWNER_OPS.has(tool)) return false;
  if (tool === 'get_profile' && !cred.profile) return false;
  if (cred.kind === 'consent') return CONSENT_TOOLS.includes(tool);
  return LEVEL_TOOLS[cred.level].includes(tool);
}

/** Whether the target is reachable by the credential. */
function reaches(cred: Cred, c: Case, ids: Ids): boolean {
  switch (c.targetKind) {
    case 'none':
      return true;
    case 'own_in':
      return true;
    case 'own_out':
      return cred.reach.has(ids.a2); // own_out names A2's container, document or fact
    case 'own_profile':
      return cred.profile;
    default:
      return false; // another account's ids and nonexistent ids are never reachable
  }
}

/** The one oracle: the contract's rules turned into the expected status and code. */
function expected(c: Case, ids: Ids): Outcome {
  const { cred } = c;
  if (c.transport === 'rest') {
    if (cred.kind === 'none') return { status: 401, code: 'unauthorized' };
    if (cred.kind === 'bad') return { status: 403, code: 'unauthorized' };
    if (!holds(cred, c.tool)) return { status: 403, code: 'unauthorized' };
    if (!reaches(cred, c, ids)) {
      return c.targetType === 'container' ? { status: 403, code: 'unauthorized' } : { status: 404, code: 'not_found' };
    }
    return { status: SUCCESS_STATUS[c.tool] ?? 200, code: 'ok' };
  }
  // MCP: any bad or missing bearer is RFC 6750's 401; a tool outside the grant is 403 with the envelope;
  // a name that is no MCP tool is a tool error not_found; the rest are tool results (errors with isError).
  if (cred.kind === 'none' || cred.kind === 'bad') return { status: 401, code: 'invalid_token' };
  if (c.tool === 'get_document' || OWNER_OPS.has(c.tool)) return { status: 200, code: 'not_found' };
  if (!holds(cred, c.tool)) return { status: 403, code: 'unauthorized' };
  if (!reaches(cred, c, ids)) return { status: 200, code: c.targetType === 'container' ? 'unauthorized' : 'not_found' };
  return { status: 200, code: 'ok' };
}

interface Ids {
  a1: string;
  a2: string;
  b1: string;
  docA1: string;
  docA2: string;
  docB1: string;
  factA1: string;
  factA2: string;
  factAProfile: string;
  factB1: string;
  factBProfile: string;
  keyB: string;
  ruleB: string;
  ruleA: string;
  keyA: string;
}

const fake = (prefix: string) => `${prefix}_${'Zz9'.repeat(6).slice(0, 16)}`;
const MISSING = {
  container: fake('ctr'),
  document: fake('doc'),
  memory: fake('mem'),
  key: 'Zz9Zz9Zz9Zz9',
  rule: fake('rul'),
};

let server: TestServer;
let A: TestAccount;
let B: TestAccount;
let ids: Ids;
const creds: Cred[] = [];
/** Strings of account B (ids and content) that no answer to an account-A credential may carry. */
const bSecrets: string[] = [];

beforeAll(async () => {
  server = await startTestServer({ env: { ENGRAM_RATE_LIMIT_PER_MIN: '1000000', ENGRAM_EMBEDDER: 'none' } });
  A = await makeAccount(server, ['a-one', 'a-two']);
  B = await makeAccount(server, ['b-one']);
  const a1 = A.containers['a-one']!;
  const a2 = A.containers['a-two']!;
  const b1 = B.containers['b-one']!;
  const docA1 = await addDocument(server, A.owner, {
    container: a1,
    content: 'Alpha one notes about gardening tomatoes.',
    title: 'A1 doc',
  });
  const docA2 = await addDocument(server, A.owner, {
    container: a2,
    content: 'Alpha two notes about gardening roses.',
    title: 'A2 doc',
  });
  const docB1 = await addDocument(server, B.owner, {
    container: b1,
    content: 'Bravo zulu secret about gardening orchids.',
    title: 'B1 doc',
  });
  await server.learning.drain();
  const factA1 = await addMemory(server, A.owner, { content: 'A1 fact gardening daily.', container: a1 });
  const factA2 = await addMemory(server, A.owner, { content: 'A2 fact gardening weekly.', container: a2 });
  const factAProfile = await addMemory(server, A.owner, { content: 'A profile fact: likes gardening.', static: true });
  const factB1 = await addMemory(server, B.owner, { content: 'Bravo zulu fact gardening hourly.', container: b1 });
  const factBProfile = await addMemory(server, B.owner, {
    content: 'Bravo zulu profile: likes gardening.',
    static: true,
  });
  const keyB = (await makeKey(server, B.owner, { level: 'manage', all_views: true })).id;
  const keyA = (await makeKey(server, A.owner, { level: 'read', containers: [a1] })).id;
  const ruleB = (await call(server, 'POST', '/v1/rules', B.owner, { text: 'Bravo zulu rule about gardening.' })).body
    .id;
  const ruleA = (await call(server, 'POST', '/v1/rules', A.owner, { text: 'Alpha rule about gardening.' })).body.id;
  ids = {
    a1,
    a2,
    b1,
    docA1,
    docA2,
    docB1,
    factA1,
    factA2,
    factAProfile,
    factB1,
    factBProfile,
    keyB,
    ruleB,
    ruleA,
    keyA,
  };
  bSecrets.push(b1, docB1, factB1, factBProfile, keyB, ruleB, 'Bravo zulu');

  // An expired key: one day of life, then the clock moves two days.
  const expired = (
    await makeKey(server, A.owner, { level: 'manage', all_views: true, profile: true, expires_in_days: 1 })
  ).key;
  server.clock.advance(2 * DAY_MS);
  const revokedKey = await makeKey(server, A.owner, { level: 'manage', all_views: true, profile: true });
  const rev = await call(server, 'DELETE', `/v1/exposures/${revokedKey.id}`, A.owner);
  expect(rev.status).toBe(200);

  creds.push({
    label: 'owner session',
    token: A.owner,
    kind: 'owner',
    level: 'manage',
    reach: new Set([a1, a2]),
    profile: true,
  });
  for (const level of ['read', 'suggest', 'manage'] as Level[]) {
    for (const all of [false, true]) {
      for (const profile of [false, true]) {
        const grant = all ? { level, all_views: true, profile } : { level, containers: [a1], profile };
        const { key } = await makeKey(server, A.owner, grant);
        creds.push({
          label: `key ${level} ${all ? 'all' : 'narrow'} ${profile ? '+profile' : '-profile'}`,
          token: key,
          kind: 'key',
          level,
          reach: new Set(all ? [a1, a2] : [a1]),
          profile,
        });
      }
    }
  }
  const browser = new Browser(server);
  await browser.signIn(A.email, A.password);
  const owner: Owner = { token: A.owner, email: A.email, password: A.password, browser, containers: A.containers };
  for (const profile of [false, true]) {
    const { access_token } = await connect(server, owner, { containers: [a1], profile });
    creds.push({
      label: `consent ${profile ? '+profile' : '-profile'}`,
      token: access_token,
      kind: 'consent',
      level: 'read',
      reach: new Set([a1]),
      profile,
    });
  }
  const bad = (label: string, token: string) =>
    creds.push({ label, token, kind: 'bad', level: 'read', reach: new Set(), profile: false });
  bad('expired key', expired);
  bad('revoked key', revokedKey.key);
  bad('malformed token', 'not-a-token');
  bad('unknown well-formed key', `egm_Zz9Zz9Zz9Zz9_${'x'.repeat(43)}`);
  bad('key of account A with a wrong secret', `${expired.slice(0, 17)}${'y'.repeat(43)}`);
  creds.push({ label: 'no bearer', token: null, kind: 'none', level: 'read', reach: new Set(), profile: false });
}, 60_000);

afterAll(async () => {
  await server?.close();
});

/** The targets of each type, by kind. */
function targets(type: 'container' | 'document' | 'memory'): [TargetKind, string][] {
  if (type === 'container')
    return [
      ['own_in', ids.a1],
      ['own_out', ids.a2],
      ['other', ids.b1],
      ['missing', MISSING.container],
    ];
  if (type === 'document')
    return [
      ['own_in', ids.docA1],
      ['own_out', ids.docA2],
      ['other', ids.docB1],
      ['missing', MISSING.document],
    ];
  return [
    ['own_in', ids.factA1],
    ['own_out', ids.factA2],
    ['own_profile', ids.factAProfile],
    ['other', ids.factB1],
    ['other_profile', ids.factBProfile],
    ['missing', MISSING.memory],
  ];
}

/** Confirmed deletes go only at ids no credential of A may touch (B's and nonexistent ones). */
const confirmable = (kind: TargetKind) => kind === 'other' || kind === 'other_profile' || kind === 'missing';

/** One call's description, transport aside: tool, REST method/path/body and MCP arguments. */
interface Call {
  tool: string;
  method: string;
  path: string;
  body?: Record<string, unknown>;
  args: Record<string, unknown>;
  targetKind: TargetKind;
  targetId: string | null;
  targetType: Case['targetType'];
  variant: string;
}

function toolCalls(): Call[] {
  const out: Call[] = [];
  const none = { targetKind: 'none' as const, targetId: null, targetType: 'none' as const, variant: '' };
  out.push({ tool: 'list_containers', method: 'GET', path: '/v1/containers', args: {}, ...none });
  out.push({ tool: 'get_profile', method: 'GET', path: '/v1/profile?q=gardening', args: { q: 'gardening' }, ...none });
  out.push({ tool: 'memory_rules', method: 'GET', path: '/v1/rules', args: {}, ...none });
  out.push({ tool: 'list_documents', method: 'GET', path: '/v1/documents', args: {}, ...none });
  out.push({
    tool: 'search_memories',
    method: 'POST',
    path: '/v1/search',
    body: { q: 'gardening', container: '*' },
    args: { q: 'gardening', container: '*' },
    ...none,
    variant: 'star',
  });
  out.push({
    tool: 'ask_agent',
    method: 'POST',
    path: '/v1/ask',
    body: { message: 'hello' },
    args: { message: 'hello' },
    ...none,
  });
  for (const [kind, id] of targets('container')) {
    const t = { targetKind: kind, targetId: id, targetType: 'container' as const, variant: '' };
    out.push({
      tool: 'search_memories',
      method: 'POST',
      path: '/v1/search',
      body: { q: 'gardening', container: id },
      args: { q: 'gardening', container: id },
      ...t,
    });
    out.push({
      tool: 'list_documents',
      method: 'GET',
      path: `/v1/documents?container=${id}`,
      args: { container: id },
      ...t,
    });
    out.push({
      tool: 'add_memory',
      method: 'POST',
      path: '/v1/memories',
      body: { content: 'matrix fact', container: id },
      args: { content: 'matrix fact', container: id },
      ...t,
    });
    out.push({
      tool: 'add_document',
      method: 'POST',
      path: '/v1/documents',
      body: { content: 'matrix document', container: id },
      args: { content: 'matrix document', container: id },
      ...t,
    });
  }
  for (const [kind, id] of targets('document')) {
    const t = { targetKind: kind, targetId: id, targetType: 'document' as const };
    out.push({
      tool: 'get_document',
      method: 'GET',
      path: `/v1/documents/${id}`,
      args: { document_id: id },
      ...t,
      variant: '',
    });
    out.push({
      tool: 'delete_document',
      method: 'DELETE',
      path: `/v1/documents/${id}`,
      args: { document_id: id },
      ...t,
      variant: '',
    });
    if (confirmable(kind))
      out.push({
        tool: 'delete_document',
        method: 'DELETE',
        path: `/v1/documents/${id}?confirm=true`,
        args: { document_id: id, confirm: true },
        ...t,
        variant: 'confirm',
      });
  }
  for (const [kind, id] of targets('memory')) {
    const t = { targetKind: kind, targetId: id, targetType: 'memory' as const };
    out.push({
      tool: 'forget_memory',
      method: 'DELETE',
      path: `/v1/memories/${id}`,
      args: { memory_id: id },
      ...t,
      variant: '',
    });
    if (confirmable(kind))
      out.push({
        tool: 'forget_memory',
        method: 'DELETE',
        path: `/v1/memories/${id}?confirm=true`,
        args: { memory_id: id, confirm: true },
        ...t,
        variant: 'confirm',
      });
  }
  return out;
}

/** Owner routes called by every credential with A's own ids, B's and nonexistent ones. */
function ownerCalls(): Call[] {
  const out: Call[] = [];
  const idsFor: Record<string, [TargetKind, string][]> = {
    container_id: [
      ['own_in', ids.a1],
      ['other', ids.b1],
      ['missing', MISSING.container],
    ],
    key_id: [
      ['own_in', ids.keyA],
      ['other', ids.keyB],
      ['missing', MISSING.key],
    ],
    rule_id: [
      ['own_in', ids.ruleA],
      ['other', ids.ruleB],
      ['missing', MISSING.rule],
    ],
    memory_id: [
      ['own_in', ids.factA1],
      ['other', ids.factB1],
      ['missing', MISSING.memory],
    ],
    client_id: [
      ['other', 'https://b.example/client.json'],
      ['missing', 'https://nobody.example/client.json'],
    ],
  };
  const bodies: Record<string, Record<string, unknown>> = {
    create_container: { name: 'matrix container' },
    update_container: { name: 'renamed by matrix' },
    create_key: { name: 'matrix', level: 'manage', all_views: true, profile: true },
    update_key: { level: 'manage', all_views: true, profile: true },
    set_key_containers: { containers: [] },
    add_rule: { text: 'matrix rule' },
  };
  for (const route of REST_ROUTES.filter((r) => r.op.access === 'owner')) {
    const method = route.method.toUpperCase();
    const param = route.path.match(/\{(\w+)\}/)?.[1];
    const confirm = route.query?.confirm ? '?confirm=true' : '';
    const body = method === 'POST' || method === 'PATCH' ? (bodies[route.op.name] ?? {}) : undefined;
    if (!param) {
      out.push({
        tool: route.op.name,
        method,
        path: route.path,
        body,
        args: body ?? {},
        targetKind: 'none',
        targetId: null,
        targetType: 'none',
        variant: '',
      });
      continue;
    }
    for (const [kind, id] of idsFor[param]!) {
      const path = route.path.replace(`{${param}}`, encodeURIComponent(id)) + confirm;
      out.push({
        tool: route.op.name,
        method,
        path,
        body,
        args: { ...(body ?? {}), [param]: id },
        targetKind: kind,
        targetId: id,
        targetType: 'owner_id',
        variant: '',
      });
    }
  }
  return out;
}

/** Every MCP name and the tool it stands for, with the calls' arguments. */
function mcpNames(c: Call): string[] {
  const names: Record<string, string[]> = {
    list_containers: ['list_containers', 'memory_list', 'memory_view_query'],
    search_memories: ['search_memories', 'memory_recall', 'memory_view_query'],
    list_documents: ['list_documents', 'memory_list_sources'],
    add_memory: ['add_memory', 'memory_remember'],
    add_document: ['add_document', 'memory_ingest'],
    delete_document: ['delete_document', 'memory_forget'],
    ask_agent: ['ask_agent', 'agent_invoke'],
  };
  return names[c.tool] ?? [c.tool];
}

function buildCases(): Case[] {
  const cases: Case[] = [];
  const tools = toolCalls();
  const owners = ownerCalls();
  for (const cred of creds) {
    // The owner's own session calls owner routes only at B's and nonexistent ids: at its own ids they would change A.
    const ownerRoutes =
      cred.kind === 'owner' ? owners.filter((o) => o.targetKind === 'other' || o.targetKind === 'missing') : owners;
    for (const c of [...tools, ...ownerRoutes]) {
      const group = `rest|${cred.label}|${c.tool}|${c.method}|${c.variant}`;
      cases.push({
        transport: 'rest',
        cred,
        tool: c.tool,
        name: `${c.method} ${c.path}`,
        method: c.method,
        path: c.path,
        body: c.body,
        targetKind: c.targetKind,
        targetId: c.targetId,
        group,
        targetType: c.targetType,
      });
    }
    if (cred.kind === 'owner') continue; // the owner's session on MCP is covered by the MCP suites
    const mcpCallsList = [
      ...tools,
      {
        tool: 'workflow_invoke',
        method: 'MCP',
        path: '',
        args: { input: {} },
        targetKind: 'none' as const,
        targetId: null,
        targetType: 'none' as const,
        variant: '',
      },
      // Owner operations are no MCP tools: calling their names is an unknown tool.
      ...owners.filter((o) => o.targetKind !== 'own_in'),
    ];
    for (const c of mcpCallsList) {
      for (const name of mcpNames(c)) {
        const args = { ...c.args };
        if (name === 'memory_view_query' && c.tool === 'list_containers') delete args.q;
        const group = `mcp|${cred.label}|${name}|${c.tool}|${c.method}|${c.variant}`;
        cases.push({
          transport: 'mcp',
          cred,
          tool: c.tool,
          name,
          method: 'POST',
          path: '/mcp-http',
          args,
          targetKind: c.targetKind,
          targetId: c.targetId,
          group,
          targetType: c.targetType,
        });
      }
    }
  }
  return cases;
}

interface Result {
  c: Case;
  answer: Answer;
  outcome: Outcome;
}

async function run(c: Case): Promise<Result> {
  if (c.transport === 'rest') {
    const answer = await call(server, c.method, c.path, c.cred.token, c.body);
    const outcome = {
      status: answer.status,
      code:
        answer.status < 300 ? 'ok' : (answer.body?.code ?? `(no code: ${JSON.stringify(answer.body).slice(0, 100)})`),
    };
    return { c, answer, outcome };
  }
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    Accept: 'application/json, text/event-stream',
    'MCP-Protocol-Version': '2025-06-18',
  };
  if (c.cred.token) headers.Authorization = `Bearer ${c.cred.token}`;
  const res = await fetch(`${server.url}/mcp-http`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: c.name, arguments: c.args } }),
  });
  const text = await res.text();
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch {}
  const answer = { status: res.status, body, headers: res.headers };
  let code: string;
  if (res.status === 401) code = body?.error ?? '(none)';
  else if (res.status !== 200) code = body?.error?.data?.code ?? '(none)';
  else if (body?.result?.isError) code = body.result.structuredContent?.code ?? '(none)';
  else if (body?.result) code = 'ok';
  else code = `(rpc error ${JSON.stringify(body?.error)})`;
  return { c, answer, outcome: { status: res.status, code } };
}

/** The answer with trace ids dropped and the named id replaced, for comparing two answers. */
function normalized(r: Result): unknown {
  const id = r.c.targetId;
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') {
      if (v.startsWith('{')) {
        try {
          return walk(JSON.parse(v));
        } catch {}
      }
      return id ? v.split(id).join('<ID>').split(encodeURIComponent(id)).join('<ID>') : v;
    }
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object')
      return Object.fromEntries(
        Object.entries(v)
          .filter(([k]) => k !== 'trace_id')
          .map(([k, x]) => [k, walk(x)]),
      );
    return v;
  };
  return { status: r.answer.status, body: walk(r.answer.body) };
}

const describeCase = (c: Case) =>
  `[${c.transport}] ${c.cred.label} → ${c.name} (${c.tool}, target ${c.targetKind} ${c.targetId ?? ''})`;

describe('isolation matrix', () => {
  it('answers every credential × route × target as the contract says, and B ids exactly like nonexistent ones', async () => {
    const bCountsBefore = await countsOf(B.owner);
    const cases = buildCases();
    const results: Result[] = [];
    const BATCH = 24;
    for (let i = 0; i < cases.length; i += BATCH) {
      results.push(...(await Promise.all(cases.slice(i, i + BATCH).map(run))));
    }
    console.log(
      `isolation matrix: ${cases.length} cases (${cases.filter((c) => c.transport === 'rest').length} REST, ${cases.filter((c) => c.transport === 'mcp').length} MCP), ${creds.length} credentials`,
    );

    const mismatches: string[] = [];
    const envelopeProblems: string[] = [];
    const leaks: string[] = [];
    for (const r of results) {
      const want = expected(r.c, ids);
      if (r.outcome.status !== want.status || r.outcome.code !== want.code) {
        mismatches.push(
          `${describeCase(r.c)}: expected ${want.status} ${want.code}, got ${r.outcome.status} ${r.outcome.code} ${JSON.stringify(r.answer.body).slice(0, 200)}`,
        );
      }
      envelopeProblems.push(...checkShape(r));
      // No answer to a credential of account A carries anything of account B, unless it echoes the id the call named.
      const text = JSON.stringify(r.answer.body);
      for (const s of bSecrets)
        if (s !== r.c.targetId && text.includes(s)) leaks.push(`${describeCase(r.c)} carries ${s}`);
      // A success answer carries nothing outside the credential's reach.
      if (r.outcome.code === 'ok' && r.c.cred.kind !== 'owner' && !r.c.cred.reach.has(ids.a2)) {
        for (const s of [ids.a2, ids.docA2, ids.factA2, 'Alpha two', 'A2 fact'])
          if (text.includes(s)) leaks.push(`${describeCase(r.c)} carries out-of-reach ${s}`);
      }
      if (r.outcome.code === 'ok' && !r.c.cred.profile && r.c.cred.kind !== 'owner' && text.includes('A profile fact'))
        leaks.push(`${describeCase(r.c)} carries the profile without the tick`);
    }

    // B's ids and own out-of-reach ids are answered exactly like nonexistent ones.
    const byGroup = new Map<string, Result[]>();
    for (const r of results) byGroup.set(r.c.group, [...(byGroup.get(r.c.group) ?? []), r]);
    const diffs: string[] = [];
    let compared = 0;
    for (const group of byGroup.values()) {
      const missing = group.find((r) => r.c.targetKind === 'missing');
      if (!missing) continue;
      for (const r of group) {
        if (r === missing) continue;
        const kind = r.c.targetKind;
        const hidden =
          kind === 'other' ||
          kind === 'other_profile' ||
          ((kind === 'own_out' || kind === 'own_profile') && expected(r.c, ids).code !== 'ok');
        if (!hidden) continue;
        compared++;
        const a = normalized(r);
        const b = normalized(missing);
        if (JSON.stringify(a) !== JSON.stringify(b))
          diffs.push(`${describeCase(r.c)}: ${JSON.stringify(a).slice(0, 300)} ≠ ${JSON.stringify(b).slice(0, 300)}`);
      }
    }
    console.log(`isolation matrix: ${compared} answers compared with the nonexistent-id answer`);

    expect(mismatches.slice(0, 40)).toEqual([]);
    expect(envelopeProblems.slice(0, 40)).toEqual([]);
    expect(leaks.slice(0, 40)).toEqual([]);
    expect(diffs.slice(0, 40)).toEqual([]);
    expect(compared).toBeGreaterThan(300);

    // Nothing of B was changed by A's confirmed deletes and forgets.
    expect(await countsOf(B.owner)).toEqual(bCountsBefore);
  }, 180_000);
});

/** Documents, facts and containers an owner sees. */
async function countsOf(owner: string): Promise<Record<string, unknown>> {
  const containers = (await call(server, 'GET', '/v1/containers', owner)).body.containers
    .map((c: { id: string }) => c.id)
    .sort();
  const documents = (await call(server, 'GET', '/v1/documents?limit=200', owner)).body.documents
    .map((d: { id: string }) => d.id)
    .sort();
  const profile = (await call(server, 'GET', '/v1/profile', owner)).body;
  const fact = await call(server, 'DELETE', `/v1/memories/${ids.factB1}`, owner);
  return {
    containers,
    documents,
    static: profile.static.map((f: { id: string }) => f.id),
    factB1: fact.status,
    rules: (await call(server, 'GET', '/v1/rules', owner)).body.rules.length,
  };
}

/**
 * Error answers carry the envelope with a trace id equal to X-Trace-Id (on MCP, a JSON-RPC error
 * whose message and data are the envelope's fields); MCP's 401 is RFC 6750.
 */
function checkShape(r: Result): string[] {
  const out: string[] = [];
  const { answer } = r;
  if (answer.status >= 500) out.push(`${describeCase(r.c)}: ${answer.status}`);
  if (r.c.transport === 'mcp' && answer.status === 401) {
    if (answer.body?.error !== 'invalid_token' || typeof answer.body?.error_description !== 'string')
      out.push(`${describeCase(r.c)}: 401 body ${JSON.stringify(answer.body)}`);
    if (
      !/^Bearer error="invalid_token", resource_metadata="http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-protected-resource\/mcp-http"$/.test(
        answer.headers.get('WWW-Authenticate') ?? '',
      )
    ) {
      out.push(`${describeCase(r.c)}: WWW-Authenticate ${answer.headers.get('WWW-Authenticate')}`);
    }
    return out;
  }
  let env: any = null;
  if (answer.status >= 400 && r.c.transport === 'mcp')
    env = answer.body?.error && { message: answer.body.error.message, ...answer.body.error.data };
  else if (answer.status >= 400) env = answer.body;
  else if (r.c.transport === 'mcp' && answer.body?.result?.isError) env = answer.body.result.structuredContent;
  if (!env) return out;
  const keys = Object.keys(env ?? {})
    .sort()
    .join(',');
  if (keys !== 'code,details,message,retryable,trace_id') out.push(`${describeCase(r.c)}: envelope keys ${keys}`);
  if (!/^tr_\w+$/.test(env?.trace_id ?? '')) out.push(`${describeCase(r.c)}: trace_id ${env?.trace_id}`);
  if (answer.status >= 400 && answer.headers.get('X-Trace-Id') !== env?.trace_id)
    out.push(`${describeCase(r.c)}: X-Trace-Id ${answer.headers.get('X-Trace-Id')} ≠ ${env?.trace_id}`);
  return out;
}
