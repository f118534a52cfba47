/**
 * Forgetting on the owner's pages, in Chromium: the container page describes each document (title
 * or first words, size, state and why it failed, source URL); a learned fact is confirmed there;
 * deleting a document asks first, saying what will go and listing the confirmed facts with a tick
 * box each: the unticked one is kept, the ticked one forgotten; deleting the container says what
 * it holds and forgets all of it. Screenshots go to test-output/ (gitignored).
 */
import { afterAll, beforeAll, describe, expect, it, setDefaultTimeout } from 'bun:test';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { browserAvailable, launchChromium, SCREENSHOTS, signedInPage } from '../helpers/browser';
import { call } from '../helpers/server';
import { allFacts, forgettingWorld, type ForgettingWorld, SECRET_WORDS } from '../e2e/fixtures/forgetting';

setDefaultTimeout(30_000);

const PLUMBER =
  'Remember to call the plumber about the kitchen sink on Friday morning, before work, and ask about the price of a new tap as well.';

describe.skipIf(!browserAvailable)('forgetting on the owner pages in Chromium', () => {
  let w: ForgettingWorld;
  let browser: Browser;
  let page: Page;
  let failedUrl = '';
  const shot = (name: string) => page.screenshot({ path: join(SCREENSHOTS, `owner-${name}.png`), fullPage: true });
  const row = (id: string) => page.locator(`tr[data-document-id="${id}"]`);
  const fact = (content: string) => page.locator('#facts li', { hasText: content });

  beforeAll(async () => {
    w = await forgettingWorld();
    // A note without a title, and a page this server may not read (a private address): it fails.
    await call(w.server, 'POST', '/v1/documents', w.key, { container: w.container, content: PLUMBER });
    failedUrl = 'http://127.0.0.1:9/notes.html';
    await call(w.server, 'POST', '/v1/documents', w.key, { container: w.container, url: failedUrl });
    await w.server.learning.drain();
    browser = await launchChromium();
    page = await signedInPage(browser, w.server.url, w.login);
  });

  afterAll(async () => {
    await browser?.close();
    await w?.close();
  });

  it('the container page shows each document by title or first words, with size, state, reason and source', async () => {
    await page.goto(`${w.server.url}/containers/${w.container}`);
    const rows = await page.locator('#documents tbody tr').all();
    expect(rows.length).toBe(4);
    expect(await row(w.diary).locator('.document-name').textContent()).toBe('Sunday');
    expect(await row(w.diary).locator('.size').textContent()).toBe(
      `${(new TextEncoder().encode((await call(w.server, 'GET', `/v1/documents/${w.diary}`, w.key)).body.content).length / 1000).toFixed(1)} KB`,
    );
    expect(await row(w.diary).locator('.badge').textContent()).toBe('learned');
    expect(await row(w.keeper).locator('.size').textContent()).toBe('33 B');

    const plumber = page.locator('#documents tbody tr', { hasText: 'plumber' });
    expect(await plumber.locator('.document-name').textContent()).toBe(
      'Remember to call the plumber about the kitchen sink on Friday morning, before…',
    );
    const failed = page.locator('#documents tbody tr', { hasText: failedUrl });
    expect(await failed.locator('.badge').textContent()).toBe('failed');
    expect((await failed.locator('.error-reason').textContent())!.trim().length).toBeGreaterThan(0);
    expect(await failed.locator('.document-name').textContent()).toBe(failedUrl);
    expect(await failed.locator('.size').textContent()).toBe('–');
    await shot('container-documents');
  });

  it('confirms learned facts; the delete page lists them with tick boxes; the ticked one is forgotten, the others kept', async () => {
    for (const content of ['Plays the xylofungus', 'Started a zorblatt course']) {
      await fact(content).getByRole('button', { name: 'Confirm' }).click();
      await page.waitForURL((u) => u.pathname === `/containers/${w.container}`);
      expect(await page.getByRole('status').textContent()).toContain('Confirmed');
      expect(await fact(content).locator('.badge.confirmed').count()).toBe(1);
    }
    // The standing fact learned from the diary lives in the profile: confirmed there.
    await page.goto(`${w.server.url}/profile`);
    const born = page.locator('#static-facts li', { hasText: 'Vantablue' });
    await born.getByRole('button', { name: 'Confirm' }).click();
    await page.waitForURL((u) => u.pathname === '/profile');
    expect(await born.locator('.badge.confirmed').count()).toBe(1);
    await page.goto(`${w.server.url}/containers/${w.container}`);

    await row(w.diary).getByRole('link', { name: 'Sunday' }).click();
    await page.getByRole('link', { name: 'Delete document' }).click();
    await page.waitForURL((u) => u.pathname === `/documents/${w.diary}/delete`);
    expect(await page.locator('#confirm-message').textContent()).toBe(
      'This deletes the document “Sunday” and its 4 passages. This cannot be undone.',
    );
    const choices = page.locator('#kept-choices label');
    expect(await choices.allTextContents()).toEqual([
      'Plays the xylofungus every evening.',
      'Was born in Vantablue harbour.',
      'Started a zorblatt course.',
    ]);
    expect(await page.locator('#kept-choices .choice', { hasText: 'Vantablue' }).locator('small').textContent()).toBe(
      'In your profile.',
    );
    await page.getByLabel('Started a zorblatt course.').check();
    await shot('delete-document');
    await page.getByRole('button', { name: 'Delete document' }).click();
    await page.waitForURL((u) => u.pathname === `/containers/${w.container}`);
    expect(await page.getByRole('status').textContent()).toBe(
      'Deleted, and with it 4 passages and 1 fact. 2 facts you confirmed were kept.',
    );
    expect(await row(w.diary).count()).toBe(0);
    expect(await page.locator('#facts li .fact').allTextContents()).toEqual(['Plays the xylofungus every evening.']);

    const left = await allFacts(w);
    expect(left.map((f) => [f.content, f.source ?? null]).sort()).toEqual([
      ['Plays the xylofungus every evening.', null],
      ['Was born in Vantablue harbour.', null],
    ]);
    for (const word of ['zorblatt', 'quokkaberry']) {
      const found = (await call(w.server, 'POST', '/v1/search', w.key, { q: word, container: '*' })).body.results;
      expect(found.filter((r: { content: string }) => r.content.includes(word))).toEqual([]);
    }
  });

  it('deleting the container says what it holds and forgets all of it', async () => {
    await page.getByRole('link', { name: 'Delete container' }).click();
    await page.waitForURL((u) => u.pathname === `/containers/${w.container}/delete`);
    expect(await page.locator('#confirm-message').textContent()).toBe(
      'This deletes the container “Diary”, its 3 documents with their 2 passages and the 1 fact in it or learned from it, ' +
        'and keys lose their reach to it. This cannot be undone.',
    );
    await shot('delete-container');
    await page.getByRole('button', { name: 'Delete container' }).click();
    await page.waitForURL((u) => u.pathname === '/containers');
    expect(await page.getByRole('status').textContent()).toBe(
      'Deleted, and with it 3 documents, 2 passages and 1 fact.',
    );
    // The profile fact the owner confirmed no longer has a source in this container: it stays theirs.
    expect((await allFacts(w)).map((f) => f.content)).toEqual(['Was born in Vantablue harbour.']);
    for (const q of [...SECRET_WORDS.filter((x) => x !== 'Vantablue'), 'plumber', 'garden']) {
      const listed = await call(w.server, 'GET', '/v1/documents', w.key);
      expect(listed.body.documents).toEqual([]);
      expect((await call(w.server, 'POST', '/v1/search', w.key, { q, container: '*' })).body.results).toEqual([]);
    }
  });
});
