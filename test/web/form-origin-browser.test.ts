/**
 * What Chromium really sends when another page posts one of the owner's forms, and that the
 * server refuses it even when that page holds a valid CSRF token (as if it had leaked): a page on
 * another port of the same host (same site, so the session cookie goes along) posting with
 * `Referrer-Policy: no-referrer` sends `Origin: null`, which the server used to let through to the
 * token. The owner's own form still works. test/web/form-origin.test.ts covers every header case.
 */
import { afterAll, beforeAll, describe, expect, it, setDefaultTimeout } from 'bun:test';
import type { Browser, Page } from 'playwright-core';
import { browserAvailable, launchChromium, signedInPage } from '../helpers/browser';
import { call, makeOwner, startTestServer, type TestServer } from '../helpers/server';

setDefaultTimeout(30_000);

describe.skipIf(!browserAvailable)('an owner form posted from another page, in Chromium', () => {
  let server: TestServer;
  let owner: { token: string; email: string; password: string };
  let browser: Browser;
  let page: Page;
  let attacker: ReturnType<typeof Bun.serve>;
  /** What the attacker's page is: its referrer policy and the leaked token. */
  let served = { meta: '', csrf: '' };

  beforeAll(async () => {
    server = await startTestServer();
    owner = await makeOwner(server);
    attacker = Bun.serve({
      hostname: '127.0.0.1',
      port: 0,
      fetch: () =>
        new Response(
          `<!doctype html><html><head>${served.meta}</head><body>
        <form method="post" action="${server.url}/containers">
          <input type="hidden" name="csrf" value="${served.csrf}"><input type="hidden" name="name" value="Planted">
        </form><script>document.forms[0].submit()</script></body></html>`,
          { headers: { 'Content-Type': 'text/html' } },
        ),
    });
    browser = await launchChromium();
    page = await signedInPage(browser, server.url, owner);
  });

  afterAll(async () => {
    await browser?.close();
    attacker?.stop(true);
    await server?.close();
  });

  const names = async () =>
    (await call(server, 'GET', '/v1/containers', owner.token)).body.containers.map((c: { name: string }) => c.name);

  /** Opens the attacker's page; it posts at once. Returns the headers Chromium sent with the post. */
  async function attack(meta: string): Promise<Record<string, string>> {
    await page.goto(`${server.url}/containers`);
    served = { meta, csrf: await page.locator('input[name="csrf"]').first().inputValue() };
    const posted = page.waitForRequest((r) => r.method() === 'POST' && r.url() === `${server.url}/containers`);
    await page.goto(`http://127.0.0.1:${attacker.port}/`);
    const headers = await (await posted).allHeaders();
    await page.waitForURL((u) => u.origin === server.url);
    return headers;
  }

  it('refuses a post that Chromium sends with Origin: null (no-referrer), though it carries the session and a valid token', async () => {
    const headers = await attack('<meta name="referrer" content="no-referrer">');
    expect([headers.origin, headers['sec-fetch-site']]).toEqual(['null', 'same-site']);
    expect(await names()).toEqual([]);
    expect(await page.getByRole('alert').textContent()).toContain('came from another site');
  });

  it("refuses one with the other page's origin", async () => {
    const headers = await attack('');
    expect(headers.origin).toBe(`http://127.0.0.1:${attacker.port}`);
    expect(await names()).toEqual([]);
  });

  it("still takes the owner's own form", async () => {
    await page.goto(`${server.url}/containers`);
    await page.getByLabel('Name').fill('Mine');
    await page.getByRole('button', { name: 'Make container' }).click();
    await page.waitForURL((u) => u.pathname.startsWith('/containers/'));
    expect(await names()).toEqual(['Mine']);
  });
});
