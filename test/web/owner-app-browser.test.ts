/**
 * The owner's web app in a real browser (Debian's Chromium driven by playwright-core), done as the
 * owner would: first-run setup, sign-in, a container, a Read & write key for it (profile ticked,
 * 30 days), the key read from the page and used from a test client, the calls in the usage view,
 * the key lowered to Read and the next write refused, rotation, revocation, a fact forgotten, the
 * profile, rules and the search box. A screenshot of each page is kept in test-output/ (gitignored).
 */
import { afterAll, beforeAll, describe, expect, it, setDefaultTimeout } from 'bun:test';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { browserAvailable, launchChromium, SCREENSHOTS } from '../helpers/browser';
import { call, startTestServer, type TestServer } from '../helpers/server';

setDefaultTimeout(30_000);

const EMAIL = 'owner@example.org';
const PASSWORD = 'a long enough passphrase';

describe.skipIf(!browserAvailable)('the owner web app in Chromium', () => {
  let server: TestServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const csp: string[] = [];
  let journal = '';
  let key = '';
  let keyId = '';
  let rotated = '';
  let rotatedId = '';

  const shot = (name: string) => page.screenshot({ path: join(SCREENSHOTS, `owner-${name}.png`), fullPage: true });
  const path = () => new URL(page.url()).pathname;

  beforeAll(async () => {
    server = await startTestServer();
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1000, height: 800 } });
    page = await context.newPage();
    page.on('console', (m) => {
      if (/Content Security Policy|Refused to/i.test(m.text())) csp.push(m.text());
    });
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('sets up the owner account on first run, then signs out and in again', async () => {
    await page.goto(`${server.url}/`);
    expect(path()).toBe('/setup');
    await page.getByLabel('Email').fill(EMAIL);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByLabel('Password again').fill(PASSWORD);
    await shot('setup');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL((u) => u.pathname === '/containers');
    expect(await page.getByRole('status').textContent()).toContain('Your account is ready');

    const cookie = (await context.cookies()).find((c) => c.name === 'engram_session')!;
    expect(cookie.httpOnly).toBe(true);
    expect(cookie.sameSite).toBe('Lax');
    // Once an owner exists, setup is closed.
    expect((await fetch(`${server.url}/setup`, { redirect: 'manual' })).headers.get('location')).toBe('/sign-in');

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL((u) => u.pathname === '/sign-in');
    await page.goto(`${server.url}/keys`);
    expect(path()).toBe('/sign-in');
    await page.getByLabel('Email').fill(EMAIL);
    await page.getByLabel('Password').fill(PASSWORD);
    await shot('sign-in');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((u) => u.pathname === '/keys');
  });

  it('makes containers', async () => {
    await page.getByRole('link', { name: 'Memory' }).click();
    for (const [name, description] of [
      ['Journal', 'Daily notes'],
      ['Work', ''],
    ]) {
      await page.getByLabel('Name').fill(name!);
      await page.getByLabel('Description').fill(description!);
      await page.getByRole('button', { name: 'Make container' }).click();
      await page.waitForURL((u) => u.pathname.startsWith('/containers/ctr_'));
      if (name === 'Journal') journal = path().split('/')[2]!;
      await page.getByRole('link', { name: 'Memory' }).click();
    }
    expect(await page.locator('#containers li a').allTextContents()).toEqual(['Journal', 'Work']);
    await shot('containers');
  });

  it('mints a Read & write key for Journal with the profile and 30 days, shown once', async () => {
    await page.getByRole('link', { name: 'Keys' }).click();
    await page.getByLabel('Name').fill('Notes app');
    await page.getByLabel('Read & write').check();
    await page.getByLabel('Only the containers ticked below').check();
    await page.getByLabel('Journal').check();
    await page.getByLabel('Profile access').check();
    await page.getByLabel('Expires').selectOption({ label: '30 days' });
    await shot('mint');
    await page.getByRole('button', { name: 'Make key' }).click();
    await page.waitForSelector('#new-key');
    expect(await page.locator('#minted').textContent()).toContain('you will not see it again');
    // The copy button is shown by the script (hidden without it).
    expect(await page.getByRole('button', { name: 'Copy' }).isVisible()).toBe(true);
    key = await page.locator('#new-key').inputValue();
    expect(key).toMatch(/^egm_/);
    await shot('key-minted');

    const row = page.locator('#keys-active tr[data-key-id]');
    keyId = (await row.getAttribute('data-key-id'))!;
    expect(await row.textContent()).toContain('Read & write');
    expect(await row.textContent()).toContain('Journal');
    // Afterwards only the hint.
    await page.goto(`${server.url}/keys`);
    expect(await page.content()).not.toContain(key);
    const listed = await call(server, 'GET', '/v1/containers', key);
    expect(listed.body.containers.map((c: { name: string }) => c.name)).toEqual(['Journal']);
  });

  it('uses the key from a client and shows the calls in the usage view', async () => {
    const added = await call(server, 'POST', '/v1/documents', key, {
      container: journal,
      title: 'Trip',
      content: 'We hiked the Tatra mountains in June and camped by a lake.',
    });
    expect(added.status).toBe(202);
    await call(server, 'POST', '/v1/memories', key, {
      container: journal,
      content: 'Favourite tea is smoky lapsang souchong',
    });
    await server.learning.drain();
    const found = await call(server, 'POST', '/v1/search', key, { q: 'Tatra hike', container: journal });
    expect(found.body.results[0].content).toContain('Tatra');
    // Calls on three days, for the chart.
    server.clock.advance(86_400_000);
    await call(server, 'POST', '/v1/search', key, { q: 'lapsang tea' });
    await call(server, 'GET', '/v1/containers', key);
    server.clock.advance(86_400_000);
    expect((await call(server, 'GET', '/v1/profile', key)).status).toBe(200);

    await page.goto(`${server.url}/keys/${keyId}`);
    expect(await page.locator('#per-tool tr[data-tool="search_memories"] td').nth(1).textContent()).toBe('2');
    expect(await page.locator('#per-tool tr[data-tool="add_document"]').count()).toBe(1);
    expect(await page.locator('#recent tbody tr').count()).toBe(7);
    expect(await page.locator('#usage-calls').textContent()).toBe('7');
    expect(await page.locator('#usage-chart rect').count()).toBe(14);
    expect(await page.locator('#usage-chart rect[height="0"]').count()).toBe(11);
    expect(await page.locator('main').textContent()).not.toContain('last used never');
    await shot('usage');
    await page.locator('#usage').screenshot({ path: join(SCREENSHOTS, 'owner-usage-view.png') });
  });

  it('lowers the key to Read in place; the next write is refused and counted', async () => {
    await page.getByLabel('Read', { exact: true }).check();
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.waitForSelector('text=The next call with this key reads the new grant');
    const refused = await call(server, 'POST', '/v1/documents', key, { container: journal, content: 'Another note' });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('unauthorized');
    expect((await call(server, 'POST', '/v1/search', key, { q: 'Tatra' })).status).toBe(200);
    await page.reload();
    expect(await page.locator('#usage-refused').textContent()).toBe('1');
    expect(await page.locator('#recent tbody tr[data-outcome="refused"]').count()).toBe(1);
  });

  it('rotates: the new key starts from the old grant and names what it replaces; the old one still works', async () => {
    await page.getByRole('link', { name: 'Rotate' }).click();
    expect(await page.getByLabel('Read', { exact: true }).isChecked()).toBe(true);
    expect(await page.getByLabel('Journal').isChecked()).toBe(true);
    expect(await page.getByLabel('Work').isChecked()).toBe(false);
    expect(await page.getByLabel('Profile access').isChecked()).toBe(true);
    expect(await page.getByLabel('Expires').inputValue()).toBe('30');
    await shot('rotate');
    await page.getByRole('button', { name: 'Make the new key' }).click();
    await page.waitForSelector('#new-key');
    rotated = await page.locator('#new-key').inputValue();
    expect(rotated).not.toBe(key);
    await page.getByRole('link', { name: 'See this key’s page' }).click();
    rotatedId = path().split('/')[2]!;
    expect(await page.locator('#lineage').textContent()).toContain('Replaces Notes app');
    expect((await call(server, 'GET', '/v1/containers', rotated)).status).toBe(200);
    expect((await call(server, 'GET', '/v1/containers', key)).status).toBe(200);
  });

  it('revokes the old key after a confirmation; it stops working and is listed under Revoked', async () => {
    await page.goto(`${server.url}/keys/${keyId}`);
    await page.getByRole('link', { name: 'Revoke' }).click();
    expect(await page.locator('h1').textContent()).toContain('Revoke');
    await shot('revoke-confirm');
    await page.getByRole('button', { name: 'Revoke key' }).click();
    await page.waitForURL((u) => u.pathname === `/keys/${keyId}`);
    expect(await page.locator('#key-state').textContent()).toBe('revoked');
    expect((await call(server, 'GET', '/v1/containers', key)).status).toBe(403);
    expect((await call(server, 'GET', '/v1/containers', rotated)).status).toBe(200);
    await page.getByRole('link', { name: 'Keys' }).click();
    expect(await page.locator(`#keys-revoked tr[data-key-id="${keyId}"]`).count()).toBe(1);
    expect(await page.locator(`#keys-active tr[data-key-id="${rotatedId}"]`).textContent()).toContain(
      'replaces Notes app',
    );
    await shot('keys');
  });

  it('shows the container’s documents, passages and facts, adds a note, and forgets a fact', async () => {
    await page.goto(`${server.url}/containers/${journal}`);
    expect(await page.locator('#documents tbody tr').count()).toBe(1);
    expect(await page.locator('#documents .badge').textContent()).toBe('learned');
    await page.getByLabel('Title (optional)').fill('Garden');
    await page.getByLabel('Note').fill('The tomatoes ripen late in August on the balcony.');
    await page.getByRole('button', { name: 'Add' }).click();
    await page.waitForSelector('text=It will be searchable once learned');
    // Newest first, queued until learning runs.
    expect(await page.locator('#documents tbody tr').first().textContent()).toContain('Garden');
    expect(await page.locator('#documents tbody tr .badge').first().textContent()).toBe('queued');
    // An address learning refuses (a loopback one) shows as failed, with the reason.
    await page.getByLabel('Or a web address').fill('http://127.0.0.1:9/private');
    await page.getByRole('button', { name: 'Add' }).click();
    await page.waitForSelector('text=It will be searchable once learned');
    await server.learning.drain();
    await page.reload();
    const failed = page.locator('#documents tbody tr', { hasText: '127.0.0.1' });
    expect(await failed.locator('.badge').textContent()).toBe('failed');
    expect((await failed.locator('.error-reason').textContent())!.trim().length).toBeGreaterThan(0);
    expect(await page.locator('#documents tbody tr', { hasText: 'Garden' }).locator('.badge').textContent()).toBe(
      'learned',
    );
    await shot('container');

    await page.getByRole('link', { name: 'Trip' }).click();
    expect(await page.locator('#passages li').first().textContent()).toContain('Tatra');
    await shot('document');

    await page.goto(`${server.url}/containers/${journal}`);
    const fact = page.locator('#facts li', { hasText: 'lapsang' });
    await fact.getByRole('link', { name: 'Forget' }).click();
    await page.getByRole('button', { name: 'Forget fact' }).click();
    await page.waitForURL((u) => u.pathname === `/containers/${journal}`);
    expect(await page.locator('#facts li', { hasText: 'lapsang' }).count()).toBe(0);
    const after = await call(server, 'POST', '/v1/search', rotated, { q: 'lapsang tea' });
    expect(after.body.results.some((h: { content: string }) => h.content.includes('lapsang'))).toBe(false);
  });

  it('adds and removes a standing fact on the profile', async () => {
    await page.getByRole('link', { name: 'Profile' }).click();
    await page.getByLabel('New standing fact').fill('Lives in Kraków');
    await page.getByRole('button', { name: 'Add standing fact' }).click();
    await page.waitForSelector('#static-facts li');
    expect(await page.locator('#static-facts').textContent()).toContain('Lives in Kraków');
    const profile = await call(server, 'GET', '/v1/profile', rotated);
    expect(profile.body.static.map((f: { content: string }) => f.content)).toEqual(['Lives in Kraków']);
    await shot('profile');
    await page.locator('#static-facts li', { hasText: 'Kraków' }).getByRole('link', { name: 'Remove' }).click();
    await page.getByRole('button', { name: 'Remove fact' }).click();
    await page.waitForURL((u) => u.pathname === '/profile');
    expect(await page.locator('#static-facts').count()).toBe(0);
  });

  it('adds standing rules account-wide and for one key', async () => {
    await page.getByRole('link', { name: 'Rules' }).click();
    await page.getByLabel('Rule', { exact: true }).fill('Never share health details');
    await page.getByRole('button', { name: 'Add rule' }).click();
    await page.waitForSelector('#rules');
    await page.getByLabel('Rule', { exact: true }).fill('Only journal entries from this year');
    await page.locator('select[name=credential_id]').selectOption(rotatedId);
    await page.getByRole('button', { name: 'Add rule' }).click();
    await page.waitForSelector('text=Only journal entries from this year');
    const rules = await call(server, 'GET', '/v1/rules', rotated);
    expect(rules.body.rules.map((r: { text: string }) => r.text)).toEqual([
      'Never share health details',
      'Only journal entries from this year',
    ]);
    await shot('rules');
  });

  it('shows what an app would get in the search box', async () => {
    await page.getByRole('link', { name: 'Search' }).click();
    await page.getByLabel('Query').fill('tomatoes balcony');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForSelector('#results');
    expect(await page.locator('#results li').first().textContent()).toContain('tomatoes');
    expect(await page.locator('#results li').first().textContent()).toContain('Journal');
    await shot('search');
  });

  it('deletes a container after a confirmation', async () => {
    await page.getByRole('link', { name: 'Memory' }).click();
    await page.getByRole('link', { name: 'Work' }).click();
    await page.getByRole('link', { name: 'Delete container' }).click();
    await page.getByRole('button', { name: 'Delete container' }).click();
    await page.waitForURL((u) => u.pathname === '/containers');
    expect(await page.locator('#containers li a').allTextContents()).toEqual(['Journal']);
  });

  it('refuses a form post without the CSRF token, and broke no CSP rule on any page', async () => {
    const cookies = (await context.cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
    const res = await fetch(`${server.url}/containers`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: cookies, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'name=Sneaky',
    });
    expect(res.status).toBe(303);
    expect(
      (await call(server, 'GET', '/v1/containers', rotated)).body.containers.map((c: { name: string }) => c.name),
    ).toEqual(['Journal']);
    const keysPage = await fetch(`${server.url}/keys`, { headers: { cookie: cookies } });
    expect(keysPage.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(keysPage.headers.get('cache-control')).toBe('no-store');
    expect(csp).toEqual([]);
  });

  it('reads on a phone-sized screen without sideways scrolling of the page', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${server.url}/keys`);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await shot('keys-phone');
  });
});
