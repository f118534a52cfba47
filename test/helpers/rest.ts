/**
 * Helpers for the REST end-to-end suites: asserting the error envelope, making a whole account
 * (owner session and named containers) in one call, and counting what an account holds.
 */
import { expect } from 'bun:test';
import { type Answer, call, makeContainer, makeKey, makeOwner, type TestServer } from './server';

export const DAY_MS = 86_400_000;

const ENVELOPE_FIELDS = ['code', 'details', 'message', 'retryable', 'trace_id'];

/**
 * Asserts an error answer: its status, the envelope `{code, message, details, retryable, trace_id}`
 * with exactly those fields, and the X-Trace-Id header equal to the envelope's trace_id.
 */
export function expectError(res: Answer, status: number, code: string): void {
  const seen = { status: res.status, code: res.body?.code };
  expect(seen).toEqual({ status, code });
  expect(Object.keys(res.body).sort()).toEqual(ENVELOPE_FIELDS);
  expect(res.body.message).toBeString();
  expect(res.body.message.length).toBeGreaterThan(0);
  expect(typeof res.body.details).toBe('object');
  expect(res.body.details).not.toBeNull();
  expect(res.body.retryable).toBe(
    ['rate_limited', 'conflict', 'internal', 'unavailable', 'storage_full'].includes(code),
  );
  expect(res.body.trace_id).toMatch(/^tr_\w+$/);
  expect(res.headers.get('X-Trace-Id')).toBe(res.body.trace_id);
}

/** A 422 `validation` answer whose details.fields name `field`. */
export function expectMalformed(res: Answer, field: string): void {
  expectError(res, 422, 'validation');
  expect(res.body.details.fields).toContain(field);
}

export interface TestAccount {
  owner: string;
  email: string;
  password: string;
  /** Container ids by the names asked for. */
  containers: Record<string, string>;
}

/** An account with its owner's session and one container per name. */
export async function makeAccount(server: TestServer, names: string[] = []): Promise<TestAccount> {
  const { token, email, password } = await makeOwner(server);
  const containers: Record<string, string> = {};
  for (const name of names) containers[name] = await makeContainer(server, token, name);
  return { owner: token, email, password, containers };
}

/** A key with the given grant; the token alone. */
export async function keyFor(server: TestServer, owner: string, grant: Record<string, unknown>): Promise<string> {
  return (await makeKey(server, owner, grant)).key;
}

/** Adds a document and insists it was queued; returns its id. */
export async function addDocument(server: TestServer, token: string, body: Record<string, unknown>): Promise<string> {
  const res = await call(server, 'POST', '/v1/documents', token, body);
  if (res.status !== 202) throw new Error(`add_document: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.id;
}

/** Adds a fact and insists it was saved; returns its id. */
export async function addMemory(server: TestServer, token: string, body: Record<string, unknown>): Promise<string> {
  const res = await call(server, 'POST', '/v1/memories', token, body);
  if (res.status !== 201) throw new Error(`add_memory: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.id;
}

/** Every document the token can list, following the cursor to the end. */
export async function listAllDocuments(server: TestServer, token: string, container?: string): Promise<any[]> {
  const out: any[] = [];
  let cursor: string | null = null;
  do {
    const query = new URLSearchParams({ limit: '200' });
    if (container) query.set('container', container);
    if (cursor) query.set('cursor', cursor);
    const res = await call(server, 'GET', `/v1/documents?${query}`, token);
    if (res.status !== 200) throw new Error(`list_documents: ${res.status} ${JSON.stringify(res.body)}`);
    out.push(...res.body.documents);
    cursor = res.body.next_cursor;
  } while (cursor);
  return out;
}

/** The key record as the owner's listing shows it, with the group it is in. */
export async function listedKey(
  server: TestServer,
  owner: string,
  id: string,
): Promise<{ group: string; key: any } | null> {
  const res = await call(server, 'GET', '/v1/api-keys', owner);
  if (res.status !== 200) throw new Error(`list_keys: ${res.status} ${JSON.stringify(res.body)}`);
  for (const group of ['active', 'expired', 'revoked']) {
    const key = (res.body[group] as any[]).find((k) => k.id === id);
    if (key) return { group, key };
  }
  return null;
}

/** A fresh owner session for an existing account, through POST /v1/session. */
export async function signIn(server: TestServer, account: { email: string; password: string }): Promise<string> {
  const res = await call(server, 'POST', '/v1/session', null, { email: account.email, password: account.password });
  if (res.status !== 201) throw new Error(`session: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.token;
}
