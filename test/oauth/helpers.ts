/**
 * Driving the OAuth door the way an app and a person do, over real HTTP: registering, PKCE, the
 * owner's browser (a cookie jar that signs in through the sign-in form and answers the consent
 * form), the token exchange, and MCP calls with the token that comes out.
 */
import { createHash, randomBytes } from 'node:crypto';
import { makeContainer, makeOwner, type TestServer } from '../helpers/server';

export interface Pkce {
  verifier: string;
  challenge: string;
}

export function pkce(): Pkce {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** POST /oauth/register with a JSON body; the answer's status and body. */
export async function register(
  server: { url: string },
  body: unknown,
): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await fetch(`${server.url}/oauth/register`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json(), headers: res.headers };
}

/** Registers and insists it worked; the client_id. */
export async function registerClientId(
  server: { url: string },
  redirectUris: string[],
  extra: Record<string, unknown> = {},
): Promise<string> {
  const res = await register(server, { client_name: 'Test App', redirect_uris: redirectUris, ...extra });
  if (res.status !== 201) throw new Error(`register: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.client_id;
}

/** A browser of one person: keeps cookies, follows nothing by itself. */
export class Browser {
  readonly cookies = new Map<string, string>();

  constructor(readonly server: { url: string }) {}

  async fetch(pathOrUrl: string, init: RequestInit = {}): Promise<Response> {
    const url = pathOrUrl.startsWith('http') ? pathOrUrl : `${this.server.url}${pathOrUrl}`;
    const headers = new Headers(init.headers);
    if (this.cookies.size) headers.set('Cookie', [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; '));
    const res = await fetch(url, { ...init, headers, redirect: 'manual' });
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      const expired = attrs.some((a) => /max-age=0\b/i.test(a.trim()) || /expires=Thu, 01 Jan 1970/i.test(a));
      if (expired || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return res;
  }

  /** Posts a form as the browser would from one of the server's own pages. */
  postForm(path: string, fields: [string, string][] | Record<string, string>): Promise<Response> {
    const body = new URLSearchParams(Array.isArray(fields) ? fields : Object.entries(fields));
    return this.fetch(path, {
      method: 'POST',
      body,
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: new URL(this.server.url).origin },
    });
  }

  /** Signs in through the sign-in page; insists it worked. */
  async signIn(email: string, password: string): Promise<void> {
    const page = await this.fetch('/sign-in');
    const { fields } = parseForm(await page.text(), '/sign-in');
    const res = await this.postForm('/sign-in', { ...Object.fromEntries(fields), email, password });
    if (res.status !== 303) throw new Error(`sign-in: ${res.status} ${await res.text()}`);
  }
}

/** The hidden and preset fields of the form posting to `action` in an HTML page. */
export function parseForm(
  html: string,
  action: string,
): { fields: [string, string][]; checkboxes: { name: string; value: string; label: string }[] } {
  const start = html.indexOf(`action="${action}"`);
  if (start < 0) throw new Error(`no form posting to ${action} in: ${html.slice(0, 500)}`);
  const form = html.slice(start, html.indexOf('</form>', start));
  const fields: [string, string][] = [];
  const checkboxes: { name: string; value: string; label: string }[] = [];
  for (const m of form.matchAll(/<input([^>]*)\/?>([^<]*)?/g)) {
    const attr = (name: string) => m[1]!.match(new RegExp(`\\s${name}="([^"]*)"`))?.[1];
    const type = attr('type');
    const name = attr('name');
    const value = unescapeHtml(attr('value') ?? '');
    if (!name) continue;
    if (type === 'hidden') fields.push([name, value]);
    if (type === 'checkbox') checkboxes.push({ name, value, label: m[2] ?? '' });
  }
  return { fields, checkboxes };
}

const unescapeHtml = (s: string) =>
  s
    .replaceAll('&quot;', '"')
    .replaceAll('&#39;', "'")
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&amp;', '&');

export interface AuthorizeParams {
  clientId: string;
  redirectUri: string;
  challenge?: string;
  method?: string | null;
  state?: string;
  resource?: string | null;
  scope?: string;
  extra?: Record<string, string>;
}

export function authorizeQuery(p: AuthorizeParams): string {
  const q = new URLSearchParams({ response_type: 'code', client_id: p.clientId, redirect_uri: p.redirectUri });
  if (p.challenge !== undefined) q.set('code_challenge', p.challenge);
  if (p.method !== null) q.set('code_challenge_method', p.method ?? 'S256');
  if (p.state !== undefined) q.set('state', p.state);
  if (p.resource) q.set('resource', p.resource);
  if (p.scope) q.set('scope', p.scope);
  for (const [k, v] of Object.entries(p.extra ?? {})) q.set(k, v);
  return `/oauth/authorize?${q}`;
}

export interface Decision {
  /** Container ids to tick. */
  containers?: string[];
  profile?: boolean;
  decision?: 'approve' | 'deny';
}

/**
 * Opens the consent screen at `authorizePath` in the browser (signed in already), ticks and decides;
 * returns the redirect the server answered with.
 */
export async function decide(browser: Browser, authorizePath: string, d: Decision = {}): Promise<URL> {
  const page = await browser.fetch(authorizePath);
  if (page.status !== 200)
    throw new Error(
      `consent page: ${page.status} ${page.headers.get('location') ?? (await page.text()).slice(0, 500)}`,
    );
  const { fields } = parseForm(await page.text(), '/oauth/authorize');
  const body: [string, string][] = [...fields];
  for (const id of d.containers ?? []) body.push(['containers', id]);
  if (d.profile) body.push(['profile', 'on']);
  body.push(['decision', d.decision ?? 'approve']);
  const res = await browser.postForm('/oauth/authorize', body);
  if (res.status !== 303) throw new Error(`consent answer: ${res.status} ${(await res.text()).slice(0, 800)}`);
  return new URL(res.headers.get('location')!);
}

/** POST /oauth/token, form-encoded. */
export async function tokenRequest(
  server: { url: string },
  params: Record<string, string>,
): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await fetch(`${server.url}/oauth/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(params),
  });
  return { status: res.status, body: await res.json(), headers: res.headers };
}

export interface Owner {
  token: string;
  email: string;
  password: string;
  browser: Browser;
  containers: Record<string, string>;
}

/** An owner with named containers, signed in in a browser of their own. */
export async function ownerWithBrowser(
  server: TestServer,
  names: string[] = ['work', 'health', 'travel'],
): Promise<Owner> {
  const { token, email, password } = await makeOwner(server);
  const containers: Record<string, string> = {};
  for (const name of names) containers[name] = await makeContainer(server, token, name);
  const browser = new Browser(server);
  await browser.signIn(email, password);
  return { token, email, password, browser, containers };
}

/**
 * The whole flow for a newly registered client: consent with `d` in the owner's (signed-in)
 * browser, exchange; the token response. Throws an ordinary Error at the first step that fails, so
 * scripts (scripts/lib/consent-token.ts) use it as the tests do.
 */
export async function connect(
  server: { url: string },
  owner: Pick<Owner, 'browser'>,
  d: Decision,
  redirectUri = 'http://127.0.0.1:7777/callback',
): Promise<{ access_token: string; clientId: string; body: any }> {
  const clientId = await registerClientId(server, [redirectUri]);
  const p = pkce();
  const back = await decide(
    owner.browser,
    authorizeQuery({ clientId, redirectUri, challenge: p.challenge, state: 's1' }),
    d,
  );
  const code = back.searchParams.get('code');
  if (!code)
    throw new Error(`consent: no code in the redirect (${back.searchParams.get('error') ?? 'no error either'})`);
  const res = await tokenRequest(server, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: redirectUri,
    client_id: clientId,
    code_verifier: p.verifier,
  });
  if (res.status !== 200 || typeof res.body.access_token !== 'string')
    throw new Error(`token exchange: ${res.status} ${JSON.stringify(res.body).slice(0, 500)}`);
  return { access_token: res.body.access_token, clientId, body: res.body };
}

/** One JSON-RPC call on /mcp-http with a bearer; the HTTP answer. */
export async function mcpCall(
  server: { url: string },
  token: string | null,
  method: string,
  params: Record<string, unknown> = {},
): Promise<{ status: number; body: any; headers: Headers }> {
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    Accept: 'application/json, text/event-stream',
    'MCP-Protocol-Version': '2025-06-18',
  };
  if (token) headers.Authorization = `Bearer ${token}`;
  const res = await fetch(`${server.url}/mcp-http`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {}
  return { status: res.status, body, headers: res.headers };
}

/** The tool names tools/list offers the token. */
export async function mcpTools(server: { url: string }, token: string): Promise<string[]> {
  const res = await mcpCall(server, token, 'tools/list');
  if (res.status !== 200) throw new Error(`tools/list: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.result.tools.map((t: { name: string }) => t.name);
}
