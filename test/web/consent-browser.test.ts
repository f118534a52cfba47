/**
 * The sign-in and consent pages in a real browser (Debian's Chromium driven by playwright-core):
 * the owner signs in, ticks two of three containers and the profile, approves; the token the app
 * gets offers exactly what was ticked. Then Connected apps, where Disconnect ends it. A screenshot
 * of the consent screen is kept in test-output/ (gitignored).
 *
 * Chromium is installed by scripts/ensure-chromium.sh when missing; only when that is impossible
 * (no root, no apt) is the suite skipped, loudly.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { browserAvailable, launchChromium, SCREENSHOTS } from '../helpers/browser';
import { call, makeContainer, makeOwner, startTestServer, type TestServer } from '../helpers/server';
import { authorizeQuery, mcpCall, mcpTools, pkce, registerClientId, tokenRequest } from '../oauth/helpers';

describe.skipIf(!browserAvailable)('sign-in and consent in Chromium', () => {
  let server: TestServer;
  let browser: Browser;
  let app: ReturnType<typeof Bun.serve>;
  const callbacks: URL[] = [];
  let owner: { token: string; email: string; password: string };
  const containers: Record<string, string> = {};

  beforeAll(async () => {
    server = await startTestServer();
    owner = await makeOwner(server);
    for (const name of ['Work notes', 'Health', 'Travel plans'])
      containers[name] = await makeContainer(server, owner.token, name);
    await call(server, 'POST', '/v1/memories', owner.token, {
      container: containers.Health,
      content: 'Blood type is O negative',
    });
    await call(server, 'POST', '/v1/memories', owner.token, {
      static: true,
      content: 'Prefers answers in British English',
    });
    // The app's own callback page, where the browser lands after the decision.
    app = Bun.serve({
      hostname: '127.0.0.1',
      port: 0,
      fetch(req) {
        callbacks.push(new URL(req.url));
        return new Response('<!doctype html><title>App</title><p id="done">Connected. You can close this tab.</p>', {
          headers: { 'content-type': 'text/html' },
        });
      },
    });
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await app?.stop(true);
    await server?.close();
  });

  /** Console messages that report a Content-Security-Policy violation. */
  function watchCsp(page: Page): string[] {
    const violations: string[] = [];
    page.on('console', (m) => {
      if (/Content Security Policy|Refused to/i.test(m.text())) violations.push(m.text());
    });
    return violations;
  }

  it('signs in, ticks two of three containers and the profile, approves; the token matches the ticks', async () => {
    const redirect = `http://127.0.0.1:${app.port}/callback`;
    const clientId = await registerClientId(server, [redirect], { client_name: 'Browser Test Assistant' });
    const p = pkce();
    const state = 'browser-state-1';
    const authorize = authorizeQuery({
      clientId,
      redirectUri: redirect,
      challenge: p.challenge,
      state,
      resource: `${server.url}/mcp-http`,
      scope: 'memory.read',
    });
    const context = await browser.newContext();
    const page = await context.newPage();
    const csp = watchCsp(page);

    await page.goto(`${server.url}${authorize}`);
    expect(new URL(page.url()).pathname).toBe('/sign-in');
    await page.getByLabel('Email').fill(owner.email);
    await page.getByLabel('Password').fill(owner.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((url) => url.pathname === '/oauth/authorize');

    expect(await page.locator('#app-name').textContent()).toBe('Browser Test Assistant');
    expect(await page.locator('#redirect-host').textContent()).toBe(`127.0.0.1:${app.port}`);
    expect(await page.getByRole('checkbox').count()).toBe(4);
    // The stylesheet loaded under the page's own policy.
    expect(await page.locator('button.primary').evaluate((b) => getComputedStyle(b).color)).toBe('rgb(255, 255, 255)');

    await page.getByLabel('Work notes').check();
    await page.getByLabel('Travel plans').check();
    await page.getByLabel('Profile access').check();
    await page.screenshot({ path: join(SCREENSHOTS, 'consent-screen.png'), fullPage: true });

    await page.getByRole('button', { name: 'Approve' }).click();
    await page.waitForURL((url) => url.port === String(app.port));
    expect(await page.locator('#done').textContent()).toContain('Connected');
    expect(csp).toEqual([]);
    await context.close();

    const back = callbacks.filter((u) => u.pathname === '/callback').at(-1)!;
    expect(back.searchParams.get('state')).toBe(state);
    expect(back.searchParams.get('iss')).toBe(server.site.baseUrl);
    const token = await tokenRequest(server, {
      grant_type: 'authorization_code',
      code: back.searchParams.get('code')!,
      redirect_uri: redirect,
      client_id: clientId,
      code_verifier: p.verifier,
      resource: `${server.url}/mcp-http`,
    });
    expect(token.status).toBe(200);
    const access = token.body.access_token as string;

    expect(await mcpTools(server, access)).toEqual(['list_containers', 'search_memories', 'get_profile']);
    const listed = await mcpCall(server, access, 'tools/call', { name: 'list_containers', arguments: {} });
    expect(listed.body.result.structuredContent.containers.map((c: { name: string }) => c.name)).toEqual([
      'Work notes',
      'Travel plans',
    ]);
    const health = await mcpCall(server, access, 'tools/call', {
      name: 'search_memories',
      arguments: { q: 'blood type', container: containers.Health },
    });
    expect(health.body.result.isError).toBe(true);
    expect(JSON.parse(health.body.result.content[0].text).code).toBe('unauthorized');
    const profile = await mcpCall(server, access, 'tools/call', { name: 'get_profile', arguments: {} });
    expect(profile.body.result.structuredContent.static.map((f: { content: string }) => f.content)).toContain(
      'Prefers answers in British English',
    );
  });

  it('shows the app under Connected apps, and Disconnect revokes its token', async () => {
    const redirect = `http://127.0.0.1:${app.port}/callback`;
    const clientId = await registerClientId(server, [redirect], { client_name: 'Disconnect Me' });
    const context = await browser.newContext();
    const page = await context.newPage();
    const csp = watchCsp(page);
    const p = pkce();
    const authorize = authorizeQuery({ clientId, redirectUri: redirect, challenge: p.challenge });
    await page.goto(`${server.url}${authorize}`);
    await page.getByLabel('Email').fill(owner.email);
    await page.getByLabel('Password').fill(owner.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((url) => url.pathname === '/oauth/authorize');
    await page.getByLabel('Health').check();
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.waitForURL((url) => url.port === String(app.port));
    const code = new URL(page.url()).searchParams.get('code')!;
    const token = await tokenRequest(server, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirect,
      client_id: clientId,
      code_verifier: p.verifier,
    });
    const access = token.body.access_token as string;
    expect((await mcpCall(server, access, 'tools/list')).status).toBe(200);

    await page.goto(`${server.url}/connected-apps`);
    const row = page.locator(`tr[data-client-id="${clientId}"]`);
    expect(await row.locator('strong').textContent()).toBe('Disconnect Me');
    expect(await row.locator('li').allTextContents()).toEqual(['Health']);
    await row.getByRole('button', { name: 'Disconnect' }).click();
    await page.getByRole('status').filter({ hasText: 'The app was disconnected' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/connected-apps');
    expect(await page.locator(`tr[data-client-id="${clientId}"]`).count()).toBe(0);
    expect(csp).toEqual([]);
    await context.close();

    expect((await mcpCall(server, access, 'tools/list')).status).toBe(401);
  });

  it('sends the owner back with access_denied on Deny', async () => {
    const redirect = `http://127.0.0.1:${app.port}/callback`;
    const clientId = await registerClientId(server, [redirect]);
    const context = await browser.newContext();
    const page = await context.newPage();
    const authorize = authorizeQuery({ clientId, redirectUri: redirect, challenge: pkce().challenge, state: 'no' });
    await page.goto(`${server.url}${authorize}`);
    await page.getByLabel('Email').fill(owner.email);
    await page.getByLabel('Password').fill(owner.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((url) => url.pathname === '/oauth/authorize');
    await page.getByRole('button', { name: 'Deny' }).click();
    await page.waitForURL((url) => url.port === String(app.port));
    const back = new URL(page.url());
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect(back.searchParams.get('state')).toBe('no');
    expect(back.searchParams.get('code')).toBeNull();
    await context.close();
  });
});
