/**
 * "See as" on the owner's search page: searching as a key or a connected app answers exactly what
 * that credential's own REST search answers (over several reaches, levels and profile ticks, and a
 * consent token), refuses a revoked key as the wire does and another account's key as unknown,
 * and leaves the credential's usage and access log untouched. Plain HTTP with the session cookie,
 * then one flow in Chromium (its screenshot goes to test-output/, gitignored).
 */
import { afterAll, beforeAll, describe, expect, it, setDefaultTimeout } from 'bun:test';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { browserAvailable, launchChromium, SCREENSHOTS, signedInPage } from '../helpers/browser';
import { exchangeCode, issueCode } from '../../src/auth/oauth-codes';
import { SCOPE } from '../../src/oauth/metadata';
import { resourceOf } from '../../src/site';
import { registerClient } from '../../src/oauth/register';
import { call, makeContainer, makeKey, makeOwner, startTestServer, type TestServer } from '../helpers/server';

setDefaultTimeout(60_000);

/** A passage of the page's answer, as its data attributes give it. */
interface Shown {
  container: string;
  document: string | null;
  memory: string | null;
  position: number;
  score: string;
}

const decode = (s: string) =>
  s
    .replaceAll('&quot;', '"')
    .replaceAll('&#39;', "'")
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&amp;', '&');

/** The passages listed on a search page, in order; null when the page shows no answer. */
function shownOn(html: string): Shown[] | null {
  if (!html.includes('id="results"')) return null;
  return [
    ...html.matchAll(
      /<li\s+class="passage" data-container="([^"]*)" data-document="([^"]*)" data-memory="([^"]*)"\s+data-position="(\d+)" data-score="([^"]*)"/g,
    ),
  ].map((m) => ({
    container: m[1]!,
    document: m[2] || null,
    memory: m[3] || null,
    position: Number(m[4]),
    score: m[5]!,
  }));
}

const alertOf = (html: string): string | null => {
  const m = /<p class="error" role="alert">([^<]*)<\/p>/.exec(html);
  return m ? decode(m[1]!) : null;
};

describe('see as a key or app on the search page', () => {
  let server: TestServer;
  let owner: string;
  let cookie: string;
  const c: Record<string, string> = {};
  /** Credential id → its token, for its own REST search. */
  const creds: { id: string; token: string; label: string }[] = [];

  const page = (query: Record<string, string>) =>
    fetch(`${server.url}/search?${new URLSearchParams(query)}`, { headers: { cookie }, redirect: 'manual' });

  /** What the credential's own REST search answers, as the page would list it, or its refusal's message. */
  async function restSearch(
    token: string,
    q: string,
    container: string,
  ): Promise<{ shown: Shown[] | null; error: string | null }> {
    const res = await call(server, 'POST', '/v1/search', token, { q, container });
    if (res.status !== 200) return { shown: null, error: res.body.message };
    return {
      shown: res.body.results.map((h: any) => ({
        container: h.container,
        document: h.document_id,
        memory: h.memory_id,
        position: h.position,
        score: h.score.toFixed(6),
      })),
      error: null,
    };
  }

  async function consentToken(containerIds: string[], profile: boolean): Promise<{ id: string; token: string }> {
    const { store, clock } = server.services;
    const redirectUri = 'http://127.0.0.1:9/callback';
    const registered = await registerClient(store, clock, {
      redirect_uris: [redirectUri],
      client_name: 'Trip planner',
    });
    if (!registered.ok) throw new Error(registered.description);
    const clientId = registered.body.client_id as string;
    const verifier = 'v'.repeat(43);
    const accountId = (await store.sessions.get(owner.split('_')[1]!))!.accountId;
    const code = await issueCode(store, clock, {
      accountId,
      clientId,
      redirectUri,
      codeChallenge: createHash('sha256').update(verifier).digest('base64url'),
      resource: resourceOf(server.site),
      scope: SCOPE,
      containerIds,
      profile,
    });
    const issued = await exchangeCode(store, clock, {
      code,
      clientId,
      redirectUri,
      codeVerifier: verifier,
      resource: resourceOf(server.site),
      clientName: 'Trip planner',
      ttlDays: 30,
    });
    return { id: issued.credential.id, token: issued.token };
  }

  beforeAll(async () => {
    server = await startTestServer();
    owner = (await makeOwner(server)).token;
    cookie = `engram_session=${owner}`;
    for (const name of ['Work', 'Home', 'Travel']) c[name] = await makeContainer(server, owner, name);
    const docs: [string, string][] = [
      ['Work', 'The quarterly plan for the harbour project is due on Friday; the budget plan needs review.'],
      ['Work', 'Meeting notes: the harbour crane plan was approved by the board.'],
      ['Home', 'Plan for the garden: plant tomatoes by the harbour wall in May.'],
      ['Travel', 'Travel plan: ferry from the harbour to the islands, then a train north.'],
      ['Travel', 'Packing list for the islands trip: boots, rain jacket, a map of the harbour.'],
    ];
    for (const [name, content] of docs)
      await call(server, 'POST', '/v1/documents', owner, { container: c[name], content });
    await call(server, 'POST', '/v1/memories', owner, {
      container: c.Home,
      content: 'Prefers the harbour walk on Sundays as a weekly plan.',
    });
    await server.learning.drain();

    const keys: [string, Record<string, unknown>][] = [
      ['all, read, profile', { name: 'Everything', level: 'read', all_views: true, profile: true }],
      ['work, suggest', { name: 'Work bot', level: 'suggest', containers: [c.Work], profile: false }],
      [
        'home+travel, manage, profile',
        { name: 'Family', level: 'manage', containers: [c.Home, c.Travel], profile: true },
      ],
    ];
    for (const [label, grant] of keys) {
      const k = await makeKey(server, owner, grant);
      creds.push({ id: k.id, token: k.key, label });
    }
    const app = await consentToken([c.Travel!], false);
    creds.push({ ...app, label: 'app: travel' });
  });
  afterAll(() => server.close());

  it("answers exactly what each credential's own REST search answers, over reaches and containers", async () => {
    let compared = 0;
    for (const cred of creds) {
      for (const q of ['harbour plan', 'islands', 'tomatoes']) {
        for (const container of ['*', c.Work!, c.Travel!]) {
          const own = await restSearch(cred.token, q, container);
          const res = await page({ q, container, as: cred.id });
          expect(res.status).toBe(200);
          const html = await res.text();
          expect({ cred: cred.label, q, container, shown: shownOn(html), error: alertOf(html) }).toEqual({
            cred: cred.label,
            q,
            container,
            ...own,
          });
          if (own.shown?.length) compared++;
        }
      }
    }
    // Not vacuous: most combinations found passages, and some were refused (a container outside reach).
    expect(compared).toBeGreaterThan(10);
  });

  it("offers the owner's active keys and the connected app, and lists only the containers in reach", async () => {
    const html = await (await page({})).text();
    for (const cred of creds) expect(html).toContain(`<option value="${cred.id}"`);
    expect(html).toContain('App: Trip planner');
    const work = await (await page({ as: creds[1]!.id })).text();
    expect(work).toContain(`<option value="${c.Work}"`);
    expect(work).not.toContain(`<option value="${c.Home}"`);
  });

  it("refuses a revoked key with the wire's reason, and shows nothing", async () => {
    const k = await makeKey(server, owner, { name: 'Old', level: 'read', all_views: true });
    expect((await call(server, 'DELETE', `/v1/exposures/${k.id}`, owner)).status).toBe(200);
    const own = await call(server, 'POST', '/v1/search', k.key, { q: 'harbour', container: '*' });
    expect(own.status).toBe(403);
    const html = await (await page({ q: 'harbour', as: k.id })).text();
    expect(alertOf(html)).toBe(own.body.message);
    expect(shownOn(html)).toBeNull();
    // It is no longer offered either.
    expect(html).not.toContain(`<option value="${k.id}"`);
  });

  it('refuses an expired key as the wire does', async () => {
    const k = await makeKey(server, owner, { name: 'Short', level: 'read', all_views: true, expires_in_days: 1 });
    server.clock.advance(2 * 24 * 60 * 60 * 1000);
    const own = await call(server, 'POST', '/v1/search', k.key, { q: 'harbour', container: '*' });
    expect(own.status).toBe(403);
    const html = await (await page({ q: 'harbour', as: k.id })).text();
    expect(alertOf(html)).toBe(own.body.message);
    expect(shownOn(html)).toBeNull();
  });

  it("treats another account's key as unknown, and searches nothing with it", async () => {
    const other = (await makeOwner(server)).token;
    const theirs = await makeContainer(server, other, 'Theirs');
    await call(server, 'POST', '/v1/documents', other, { container: theirs, content: 'Their harbour plan is secret.' });
    await server.learning.drain();
    const k = await makeKey(server, other, { name: 'Theirs', level: 'read', all_views: true });
    const html = await (await page({ q: 'harbour', as: k.id })).text();
    expect(alertOf(html)).toBe(`No key or connected app ${k.id}.`);
    expect(shownOn(html)).toBeNull();
    expect(html).not.toContain(theirs);
  });

  it("does not count see-as searches as the key's calls, nor log them as what it read", async () => {
    const key = creds[0]!;
    const usage = async () => (await call(server, 'GET', `/v1/api-keys/${key.id}/usage`, owner)).body;
    const listed = async () =>
      (await call(server, 'GET', '/v1/api-keys', owner)).body.active.find((k: any) => k.id === key.id);
    const log = async () => (await call(server, 'GET', `/v1/api-keys/${key.id}/access-log`, owner)).body.entries;
    const before = await usage();
    const lastUsed = (await listed()).last_used_at;
    const logged = await log();
    for (let i = 0; i < 3; i++) await page({ q: 'harbour', container: '*', as: key.id });
    expect(await usage()).toEqual(before);
    expect((await listed()).last_used_at).toBe(lastUsed);
    expect(await log()).toEqual(logged);
    // The same search with the key itself does count: the checks above can fail.
    await restSearch(key.token, 'harbour', '*');
    expect(await usage()).not.toEqual(before);
    expect((await log()).length).toBe(logged.length + 1);
  });

  it('does not log see-as searches as what the connected app read', async () => {
    const app = creds[3]!;
    const clientId = (await server.services.store.credentials.get(
      (await server.services.store.sessions.get(owner.split('_')[1]!))!.accountId,
      app.id,
    ))!.clientId!;
    const log = async () =>
      (await call(server, 'GET', `/v1/connected-apps/${encodeURIComponent(clientId)}/access-log`, owner)).body.entries;
    const logged = await log();
    for (let i = 0; i < 3; i++) await page({ q: 'islands', container: '*', as: app.id });
    expect(await log()).toEqual(logged);
    await restSearch(app.token, 'islands', '*');
    expect((await log()).length).toBe(logged.length + 1);
  });

  it("needs the owner's session: without it, the page sends to sign in", async () => {
    const res = await fetch(`${server.url}/search?${new URLSearchParams({ q: 'harbour', as: creds[0]!.id })}`, {
      redirect: 'manual',
    });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toStartWith('/sign-in');
  });
});

describe.skipIf(!browserAvailable)('see as in Chromium', () => {
  it('picks a key in the select and shows only what that key finds', async () => {
    const server = await startTestServer();
    const browser = await launchChromium();
    try {
      const login = await makeOwner(server);
      const work = await makeContainer(server, login.token, 'Work');
      const home = await makeContainer(server, login.token, 'Home');
      await call(server, 'POST', '/v1/documents', login.token, {
        container: work,
        content: 'The lighthouse budget is approved for spring.',
      });
      await call(server, 'POST', '/v1/documents', login.token, {
        container: home,
        content: 'Paint the lighthouse model with the children.',
      });
      await server.learning.drain();
      const key = await makeKey(server, login.token, { name: 'Work bot', level: 'read', containers: [work] });
      const own = await call(server, 'POST', '/v1/search', key.key, { q: 'lighthouse', container: '*' });

      const page = await signedInPage(browser, server.url, login);
      await page.goto(`${server.url}/search`);
      await page.getByLabel('Query').fill('lighthouse');
      const hint = (await call(server, 'GET', '/v1/api-keys', login.token)).body.active.find(
        (k: any) => k.id === key.id,
      ).hint;
      await page.selectOption('#see-as', { label: `Key: Work bot (${hint})` });
      await page.getByRole('button', { name: 'Search' }).click();
      await page.waitForURL((u) => u.searchParams.get('as') === key.id);
      const shown = await page
        .locator('#results li')
        .evaluateAll((lis) => lis.map((li) => (li as HTMLElement).dataset.container));
      expect(shown).toEqual(own.body.results.map((h: any) => h.container));
      expect(shown).toEqual([work]);
      await page.screenshot({ path: join(SCREENSHOTS, 'owner-see-as.png'), fullPage: true });
      // Without see-as, the owner finds both.
      await page.selectOption('#see-as', { value: '' });
      await page.getByRole('button', { name: 'Search' }).click();
      await page.waitForURL((u) => u.searchParams.get('as') === '');
      expect(await page.locator('#results li').count()).toBe(2);
    } finally {
      await browser.close();
      await server.close();
    }
  });
});
