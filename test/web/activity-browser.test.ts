/**
 * The activity pages in Chromium: a key's page shows what its search returned (links to exactly
 * the documents the answer held) and the facts it saved, each with an Undo that forgets the fact
 * (search and the profile no longer return it); a connected app's page shows its search; the
 * export holds every entry. Screenshots go to test-output/ (gitignored).
 */
import { afterAll, beforeAll, describe, expect, it, setDefaultTimeout } from 'bun:test';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { browserAvailable, launchChromium, SCREENSHOTS, signedInPage } from '../helpers/browser';
import { addDocument } from '../helpers/rest';
import { call, makeKey, startTestServer, type TestServer } from '../helpers/server';
import { connect, type Owner, ownerWithBrowser } from '../oauth/helpers';

setDefaultTimeout(30_000);

/** The documents of a search answer's passages, in its order. */
const documentsOf = (results: any[]) => results.filter((r) => r.document_id).map((r) => r.document_id);

describe.skipIf(!browserAvailable)('the activity pages in Chromium', () => {
  let server: TestServer;
  let owner: Owner;
  let writer: { id: string; key: string };
  let browser: Browser;
  let page: Page;
  const shot = (name: string) =>
    page.screenshot({ path: join(SCREENSHOTS, `owner-activity-${name}.png`), fullPage: true });

  beforeAll(async () => {
    server = await startTestServer();
    owner = await ownerWithBrowser(server, ['work']);
    for (const text of [
      'The garden plan: tomatoes along the south fence.',
      'Garden chores: water the tomatoes every evening.',
    ]) {
      await addDocument(server, owner.token, { container: owner.containers.work, content: text });
    }
    await server.learning.drain();
    writer = await makeKey(server, owner.token, {
      name: 'Garden bot',
      level: 'suggest',
      all_views: true,
      profile: true,
    });
    browser = await launchChromium();
    page = await signedInPage(browser, server.url, owner);
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it("a key's page shows its search with links to the passages' documents, and Undo forgets a fact it saved", async () => {
    const search = await call(server, 'POST', '/v1/search', writer.key, {
      q: 'tomatoes garden',
      container: owner.containers.work,
    });
    expect(search.status).toBe(200);
    expect(documentsOf(search.body.results).length).toBeGreaterThan(1);
    server.clock.advance(1000);
    const saved = await call(server, 'POST', '/v1/memories', writer.key, {
      content: 'Grows heirloom tomatoes',
      container: owner.containers.work,
    });
    server.clock.advance(1000);
    const standing = await call(server, 'POST', '/v1/memories', writer.key, {
      content: 'Has a vegetable garden',
      static: true,
    });
    expect([saved.status, standing.status]).toEqual([201, 201]);
    await server.learning.drain(); // the fact becomes searchable

    await page.goto(`${server.url}/keys/${writer.id}`);
    await page.click('#activity-link');
    await page.waitForURL((u) => u.pathname === `/keys/${writer.id}/activity`);
    expect(await page.locator('h1').textContent()).toBe('What key “Garden bot” read and wrote');
    const entries = page.locator('#timeline > li');
    expect(await entries.evaluateAll((els) => els.map((e) => e.getAttribute('data-operation')))).toEqual([
      'add_memory',
      'add_memory',
      'search_memories',
    ]);
    const shown = page.locator('li[data-operation="search_memories"] ol.shown a[data-document]');
    expect(await shown.evaluateAll((els) => els.map((e) => e.getAttribute('href')))).toEqual(
      documentsOf(search.body.results).map((id) => `/documents/${id}`),
    );
    expect(await page.locator('li[data-operation="search_memories"] p').first().textContent()).toBe(
      `Showed these ${search.body.results.length} passages:`,
    );
    await shot('key');

    // Undo the container fact: one click, back on this page, the fact shown as gone.
    const written = (id: string) => page.locator(`ul.written li[data-id="${id}"]`);
    expect(await written(saved.body.id).textContent()).toContain('Grows heirloom tomatoes');
    await written(saved.body.id).getByRole('button', { name: 'Undo' }).click();
    await page.waitForURL((u) => u.pathname === `/keys/${writer.id}/activity`);
    expect(await page.locator('[role=status]').textContent()).toBe('Forgotten.');
    expect(await written(saved.body.id).locator(`[data-gone="${saved.body.id}"]`).count()).toBe(1);
    expect(await written(saved.body.id).getByRole('button', { name: 'Undo' }).count()).toBe(0);
    // And the standing fact, from the profile.
    await written(standing.body.id).getByRole('button', { name: 'Undo' }).click();
    await page.waitForURL((u) => u.pathname === `/keys/${writer.id}/activity`);
    await shot('key-undone');

    const after = await call(server, 'POST', '/v1/search', writer.key, {
      q: 'heirloom tomatoes',
      container: owner.containers.work,
    });
    expect(after.body.results.map((r: any) => r.memory_id)).not.toContain(saved.body.id);
    const profile = await call(server, 'GET', '/v1/profile', writer.key);
    const served = [...profile.body.static, ...profile.body.dynamic].map((f: any) => f.id);
    expect(served).not.toContain(saved.body.id);
    expect(served).not.toContain(standing.body.id);
    // The owner's undo is not the key's doing: its timeline gained only its own new search.
    expect(
      (await call(server, 'GET', `/v1/api-keys/${writer.id}/access-log`, owner.token)).body.entries.map(
        (e: any) => e.operation,
      ),
    ).toEqual(['get_profile', 'search_memories', 'add_memory', 'add_memory', 'search_memories']);
  });

  it("a connected app's page shows what its search returned, and the export holds every entry", async () => {
    const app = await connect(server, owner, { containers: [owner.containers.work!], profile: false });
    const search = await call(server, 'POST', '/v1/search', app.access_token, { q: 'water the tomatoes' });
    expect(search.status).toBe(200);

    await page.goto(`${server.url}/connected-apps`);
    await page.locator(`tr[data-client-id="${app.clientId}"] a.activity-link`).click();
    await page.waitForURL((u) => u.pathname.endsWith('/activity'));
    expect(await page.locator('h1').textContent()).toBe('What app “Test App” read and wrote');
    const shown = page.locator('li[data-operation="search_memories"] ol.shown a[data-document]');
    expect(await shown.evaluateAll((els) => els.map((e) => e.getAttribute('href')))).toEqual(
      documentsOf(search.body.results).map((id) => `/documents/${id}`),
    );
    await shot('app');

    const exported = await page.request.get(`${server.url}/keys/${writer.id}/activity/export`);
    expect(exported.headers()['content-disposition']).toBe(`attachment; filename="activity-${writer.id}.json"`);
    const body = await exported.json();
    const viaRest = await call(server, 'GET', `/v1/api-keys/${writer.id}/access-log`, owner.token);
    expect(body.entries).toEqual(viaRest.body.entries);
    expect(body.key_id).toBe(writer.id);
  });
});
