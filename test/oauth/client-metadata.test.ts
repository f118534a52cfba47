/**
 * Client ID metadata documents: an https URL as client_id, fetched through the URL reader's address
 * guard (public addresses only, pinned, no redirects, size and time caps), cached with stale-on-error,
 * client_id equality and redirect URI membership checked. DNS and the web are stand-ins here.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { call, startTestServer, type TestServer } from '../helpers/server';
import { FakeInternet } from './fake-internet';
import { authorizeQuery, decide, mcpCall, mcpTools, type Owner, ownerWithBrowser, pkce, tokenRequest } from './helpers';

const DOC = 'https://client.example/oauth/metadata.json';
const REDIRECT = 'https://client.example/callback';

let net: FakeInternet;
let server: TestServer;
let owner: Owner;

beforeAll(async () => {
  net = new FakeInternet();
  server = await startTestServer({ clientMetadata: { lookup: net.lookup, fetch: net.fetch, timeoutMs: 300 } });
  owner = await ownerWithBrowser(server, ['work', 'health']);
});

afterAll(async () => {
  await server.close();
});

const doc = (clientId: string, extra: Record<string, unknown> = {}) => ({
  client_id: clientId,
  client_name: 'Documented App',
  redirect_uris: [REDIRECT, 'http://localhost/callback'],
  token_endpoint_auth_method: 'none',
  ...extra,
});

/** Opens the consent screen for a metadata-document client; the page's status and text. */
async function open(clientId: string, redirectUri = REDIRECT) {
  const res = await owner.browser.fetch(
    authorizeQuery({ clientId, redirectUri, challenge: pkce().challenge, state: 's' }),
  );
  return { status: res.status, location: res.headers.get('location'), text: await res.text() };
}

describe('a metadata-document client', () => {
  it('is fetched, shown by its document name and URL, and goes through to a token', async () => {
    net.serveJson(DOC, doc(DOC));
    const p = pkce();
    const page = await open(DOC);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Documented App');
    expect(page.text).toContain(DOC);
    const redirect = 'http://localhost:49152/callback'; // registered port-less: any loopback port
    const back = await decide(
      owner.browser,
      authorizeQuery({ clientId: DOC, redirectUri: redirect, challenge: p.challenge }),
      { containers: [owner.containers.work!] },
    );
    const token = await tokenRequest(server, {
      grant_type: 'authorization_code',
      code: back.searchParams.get('code')!,
      redirect_uri: redirect,
      client_id: DOC,
      code_verifier: p.verifier,
    });
    expect(token.status).toBe(200);
    expect(await mcpTools(server, token.body.access_token)).toEqual(['list_containers', 'search_memories']);
    const request = net.requests.find((r) => r.url === DOC)!;
    expect(request.address).toBe('93.184.215.14'); // connected to the checked address, not the name
  });

  it('is refused when the document names another client_id', async () => {
    const url = 'https://client.example/mismatch.json';
    net.serveJson(url, doc('https://client.example/other.json'));
    const page = await open(url);
    expect(page.status).toBe(400);
    expect(page.location).toBeNull();
    expect(page.text).toContain('not the URL it was fetched from');
  });

  it('is refused a redirect URI its document does not list', async () => {
    const url = 'https://client.example/narrow.json';
    net.serveJson(url, doc(url));
    const page = await open(url, 'https://client.example/elsewhere');
    expect(page.status).toBe(400);
    expect(page.location).toBeNull();
  });

  it('is refused when its document declares a client secret, has no redirect URIs, or is not JSON', async () => {
    const secret = 'https://client.example/secret.json';
    net.serveJson(secret, doc(secret, { token_endpoint_auth_method: 'client_secret_basic' }));
    expect((await open(secret)).text).toContain('client_secret_basic');
    const empty = 'https://client.example/empty.json';
    net.serveJson(empty, doc(empty, { redirect_uris: [] }));
    expect((await open(empty)).text).toContain('no redirect_uris');
    const html = 'https://client.example/page.html';
    net.pages.set(html, () => new Response('<html>hi</html>', { headers: { 'content-type': 'text/html' } }));
    expect((await open(html)).text).toContain('did not answer JSON');
  });

  it('is refused without a client_name, which MCP requires of a document, and held to the redirect rules of its application_type', async () => {
    const nameless = 'https://client.example/nameless.json';
    net.serveJson(nameless, doc(nameless, { client_name: undefined }));
    const page = await open(nameless);
    expect(page.status).toBe(400);
    expect(page.text).toContain('no client_name');
    const web = 'https://client.example/web.json';
    net.serveJson(web, doc(web, { application_type: 'web' }));
    expect((await open(web)).text).toContain(
      'a web application (application_type &quot;web&quot;) redirects to https on a host of its own',
    );
    const native = 'https://client.example/native.json';
    net.serveJson(native, doc(native, { application_type: 'native' }));
    expect((await open(native)).status).toBe(200);
  });

  it('is never fetched from a private or loopback address', async () => {
    net.dns.set('intranet.example', ['10.0.0.7']);
    net.dns.set('sneaky.example', ['93.184.215.14', '127.0.0.1']);
    const before = net.requests.length;
    for (const url of [
      'https://intranet.example/doc.json',
      'https://sneaky.example/doc.json',
      'https://127.0.0.1/doc.json',
      'https://localhost/doc.json',
      'https://[::1]/doc.json',
      'https://169.254.169.254/latest/meta-data',
    ]) {
      const page = await open(url);
      expect(page.status).toBe(400);
      expect(page.text).toContain('Refused to fetch');
    }
    expect(net.requests.length).toBe(before);
  });

  it('does not follow redirects', async () => {
    const url = 'https://client.example/moved.json';
    net.pages.set(url, () => new Response(null, { status: 302, headers: { location: DOC } }));
    const page = await open(url);
    expect(page.status).toBe(400);
    expect(page.text).toContain('redirect');
    expect(net.requests.filter((r) => r.url === url).length).toBe(1);
  });

  it('refuses a document over the size cap, and one that takes too long', async () => {
    const big = 'https://client.example/big.json';
    net.pages.set(big, () => Response.json(doc(big, { padding: 'x'.repeat(40_000) })));
    expect((await open(big)).text).toContain('larger than');
    const slow = 'https://client.example/slow.json';
    net.pages.set(
      slow,
      () => new Promise<Response>((resolve) => setTimeout(() => resolve(Response.json(doc(slow))), 1000)),
    );
    const page = await open(slow);
    expect(page.status).toBe(400);
    expect(page.text).toContain('took longer');
  });

  it('treats an http:// client_id as an unknown registration, never fetching it', async () => {
    const before = net.requests.length;
    const page = await open('http://client.example/doc.json');
    expect(page.status).toBe(400);
    expect(page.text).toContain('not registered');
    expect(net.requests.length).toBe(before);
  });
});

describe('who can make the server fetch', () => {
  it('fetches nothing for someone who is not signed in: they are sent to sign in first', async () => {
    const url = 'https://anonymous.example/doc.json';
    net.serveJson(url, doc(url));
    const res = await fetch(
      `${server.url}${authorizeQuery({ clientId: url, redirectUri: REDIRECT, challenge: pkce().challenge })}`,
      { redirect: 'manual' },
    );
    expect(res.status).toBe(303);
    expect(new URL(res.headers.get('location')!, server.url).pathname).toBe('/sign-in');
    expect(net.fetchesOf(url)).toBe(0);
  });
});

describe('disconnecting a metadata-document app', () => {
  it('works over REST with the URL client_id percent-encoded in the path', async () => {
    const url = 'https://client.example/oauth/metadata.json';
    net.serveJson(url, doc(url));
    const p = pkce();
    const back = await decide(
      owner.browser,
      authorizeQuery({ clientId: url, redirectUri: REDIRECT, challenge: p.challenge }),
      { containers: [owner.containers.work!] },
    );
    const token = await tokenRequest(server, {
      grant_type: 'authorization_code',
      code: back.searchParams.get('code')!,
      redirect_uri: REDIRECT,
      client_id: url,
      code_verifier: p.verifier,
    });
    const apps = await call(server, 'GET', '/v1/connected-apps', owner.token);
    expect(apps.body.apps.find((a: { client_id: string }) => a.client_id === url)).toMatchObject({
      name: 'Documented App',
      redirect_hosts: ['client.example', 'localhost'],
    });
    const res = await call(server, 'DELETE', `/v1/connected-apps/${encodeURIComponent(url)}`, owner.token);
    expect(res.status).toBe(200);
    expect(res.body.client_id).toBe(url);
    expect(res.body.revoked).toBeGreaterThanOrEqual(1);
    expect((await mcpCall(server, token.body.access_token, 'tools/list')).status).toBe(401);
  });
});

describe('the cache of metadata documents', () => {
  it('keeps a document for its max-age, fetches again after, and serves the stale copy when the app is down', async () => {
    const url = 'https://cached.example/doc.json';
    let status = 200;
    net.dns.set('cached.example', ['93.184.215.14']);
    net.pages.set(url, () =>
      status === 200
        ? Response.json(doc(url), { headers: { 'cache-control': 'public, max-age=600' } })
        : new Response('down', { status }),
    );
    expect((await open(url)).status).toBe(200);
    expect((await open(url)).status).toBe(200);
    expect(net.fetchesOf(url)).toBe(1);

    server.clock.advance(11 * 60_000);
    status = 503;
    const stale = await open(url);
    expect(stale.status).toBe(200); // stale-on-error
    expect(net.fetchesOf(url)).toBe(2);

    status = 404; // not a passing failure: the app withdrew its document
    const gone = await open(url);
    expect(gone.status).toBe(400);
    expect(net.fetchesOf(url)).toBe(3);

    status = 200;
    expect((await open(url)).status).toBe(200);
    server.clock.advance(8 * 24 * 3_600_000);
    status = 503;
    expect((await open(url)).status).toBe(400); // too stale to stand in
  });
});
