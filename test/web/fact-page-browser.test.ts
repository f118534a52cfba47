/**
 * A fact's page, in Chromium: reached from the container page and the profile, it shows the
 * document and passage a fact was learned from, or the key that saved it; where it is served and
 * who reads it; an edit keeps the old wording in the history and marks the fact reviewed, so
 * deleting its document keeps it; forget removes it everywhere. The same reads are refused to keys
 * and across accounts. Screenshots go to test-output/ (gitignored).
 */
import { afterAll, beforeAll, describe, expect, it, setDefaultTimeout } from 'bun:test';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { browserAvailable, launchChromium, SCREENSHOTS, signedInPage } from '../helpers/browser';
import { authenticate } from '../../src/auth/credentials';
import { getFact, updateMemory } from '../../src/operations';
import { contextFor, invoke } from '../../src/operations/operation';
import { allFacts, forgettingWorld, type ForgettingWorld } from '../e2e/fixtures/forgetting';
import { call, makeContainer, makeKey, makeOwner } from '../helpers/server';
import { engram } from '../e2e/cli/engram-command';
import { FIXTURES } from '../e2e/cli/import-kit';

setDefaultTimeout(30_000);

describe.skipIf(!browserAvailable)('the fact page in Chromium', () => {
  let w: ForgettingWorld;
  let browser: Browser;
  let page: Page;
  let keyId: string;
  let saved: string;
  const shot = (name: string) => page.screenshot({ path: join(SCREENSHOTS, `owner-${name}.png`), fullPage: true });
  const factId = async (content: string) => (await allFacts(w)).find((f) => f.content === content)!.id;

  beforeAll(async () => {
    w = await forgettingWorld();
    keyId = w.key.split('_')[1]!;
    // Saved by the world's key (named "test key"), in the container.
    saved = (
      await call(w.server, 'POST', '/v1/memories', w.key, {
        container: w.container,
        content: 'Keeps bees on the roof.',
      })
    ).body.id;
    browser = await launchChromium();
    page = await signedInPage(browser, w.server.url, w.login);
  });

  afterAll(async () => {
    await browser?.close();
    await w?.close();
  });

  it("shows a learned fact's document and passage, where it is served and who reads it", async () => {
    const id = await factId('Plays the xylofungus every evening.');
    await page.goto(`${w.server.url}/containers/${w.container}`);
    await page.locator('#facts li').getByRole('link', { name: 'Plays the xylofungus every evening.' }).click();
    await page.waitForURL((u) => u.pathname === `/facts/${id}`);
    const source = page.locator('#source');
    const link = source.getByRole('link', { name: 'Sunday' });
    expect(await link.getAttribute('href')).toMatch(new RegExp(`^/documents/${w.diary}#passage-\\d+$`));
    expect(await source.locator('blockquote').textContent()).toContain('I play the xylofungus every evening.');
    expect(await page.locator('#history-title + p').textContent()).toBe('Never reworded.');
    expect(await page.locator('#served').textContent()).toContain('Searchable in Diary');
    expect(await page.locator('#served').textContent()).toContain('among the recently changed facts');
    expect(await page.locator(`#readers li[data-reader="${keyId}"]`).textContent()).toContain('test key');
    await shot('fact-learned');
    // The passage the link names is the one on the document's page.
    await link.click();
    await page.waitForURL((u) => u.pathname === `/documents/${w.diary}`);
    const anchor = new URL(page.url()).hash.slice(1);
    expect(await page.locator(`#${anchor}`).textContent()).toContain('I play the xylofungus every evening.');
  });

  it('shows the key that saved a fact, and a standing fact as in the profile', async () => {
    await page.goto(`${w.server.url}/facts/${saved}`);
    const source = page.locator('#source');
    expect(await source.textContent()).toContain('Saved by the key test key');
    expect(await source.getByRole('link', { name: 'test key' }).getAttribute('href')).toBe(`/keys/${keyId}`);

    await page.goto(`${w.server.url}/profile`);
    await page.locator('#static-facts li').getByRole('link', { name: 'Was born in Vantablue harbour.' }).click();
    await page.waitForURL((u) => u.pathname.startsWith('/facts/'));
    expect(await page.locator('#served').textContent()).toContain('In no container');
    expect(await page.locator('#served').textContent()).toContain('as a standing fact');
  });

  it('an edit keeps the old wording in the history, marks the fact reviewed, and so outlives its document', async () => {
    const id = await factId('Plays the xylofungus every evening.');
    await page.goto(`${w.server.url}/facts/${id}`);
    await page.getByLabel('Edit').fill('Plays the xylofungus on Sundays.');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL((u) => u.pathname === `/facts/${id}`);
    expect(await page.getByRole('status').textContent()).toContain('Saved');
    expect(await page.locator('#fact-content').textContent()).toBe('Plays the xylofungus on Sundays.');
    expect(await page.locator('#history li .fact').allTextContents()).toEqual(['Plays the xylofungus every evening.']);
    expect(await page.locator('.badge.confirmed').count()).toBe(1);
    await shot('fact-edited');
    // The new wording is what apps find; the old one is not.
    const found = (await call(w.server, 'POST', '/v1/search', w.key, { q: 'xylofungus Sundays', container: '*' })).body
      .results;
    expect(found.map((r: { content: string }) => r.content)).toContain('Plays the xylofungus on Sundays.');

    const deleted = await call(w.server, 'DELETE', `/v1/documents/${w.diary}?confirm=true`, w.owner);
    expect(deleted.status).toBe(200);
    expect(deleted.body.kept.facts).toBe(1);
    const left = (await allFacts(w)).map((f) => f.content);
    expect(left).toContain('Plays the xylofungus on Sundays.');
    expect(left).not.toContain('Started a zorblatt course.');
    await page.reload();
    expect(await page.locator('#source').textContent()).toBe(
      'Learned from a document deleted since; kept because you confirmed or edited it.',
    );
  });

  it('says which import brought an imported fact (its file, what it was, when), and that one the owner saved is theirs', async () => {
    const run = engram([
      'import',
      join(FIXTURES, 'mcp-memory/memory.jsonl'),
      '--from',
      'mcp-memory',
      '--data',
      w.server.dataDir,
    ]);
    expect(run.code).toBe(0);
    // Not through the profile: an imported fact is in its container, not among the recent ones.
    const { store } = w.server.services;
    const accountId = (await store.accounts.list())[0]!.id;
    const id = (await store.facts.list(accountId)).find(
      (f) => f.content === 'Ada_Lovelace (person): Prefers tea over coffee',
    )!.id;
    await page.goto(`${w.server.url}/facts/${id}`);
    expect(await page.locator('#imported').textContent()).toMatch(
      /^Imported from memory\.jsonl \(the MCP memory server's file\) on \d{4}-\d\d-\d\d \d\d:\d\d UTC\.$/,
    );
    expect(await page.locator('#source').count()).toBe(0);
    await shot('fact-imported');

    const own = (
      await call(w.server, 'POST', '/v1/memories', w.owner, { container: w.container, content: 'Cycles to work.' })
    ).body.id;
    await page.goto(`${w.server.url}/facts/${own}`);
    expect(await page.locator('#source').textContent()).toBe('Saved by you.');
    expect(await page.locator('#imported').count()).toBe(0);
  });

  it('forget asks first, then the fact is gone from search, the profile and its page', async () => {
    await page.goto(`${w.server.url}/facts/${saved}`);
    await page.getByRole('link', { name: 'Forget fact' }).click();
    await page.waitForURL((u) => u.pathname === `/facts/${saved}/forget`);
    await page.getByRole('button', { name: 'Forget fact' }).click();
    await page.waitForURL((u) => u.pathname === `/containers/${w.container}`);
    expect(await page.getByRole('status').textContent()).toBe('Forgotten.');
    expect((await allFacts(w)).map((f) => f.id)).not.toContain(saved);
    const found = (await call(w.server, 'POST', '/v1/search', w.key, { q: 'bees roof', container: '*' })).body.results;
    expect(found.filter((r: { content: string }) => r.content.includes('bees'))).toEqual([]);
    await page.goto(`${w.server.url}/facts/${saved}`);
    await page.waitForURL((u) => u.pathname === '/profile');
    expect(await page.getByRole('alert').textContent()).toBe(`No memory ${saved}.`);
  });

  it("get_fact and update_memory are the owner's: refused to a key, and another account's fact is not found", async () => {
    const { services } = w.server;
    // The standing fact went with the diary; the edited one stayed.
    const id = await factId('Plays the xylofungus on Sundays.');
    const keyCtx = contextFor(services, await authenticate(services.store, services.clock, w.key), 'test');
    await expect(invoke(getFact, keyCtx, { memory_id: id })).rejects.toMatchObject({ code: 'unauthorized' });
    await expect(invoke(updateMemory, keyCtx, { memory_id: id, content: 'x' })).rejects.toMatchObject({
      code: 'unauthorized',
    });

    const other = await makeOwner(w.server);
    await makeContainer(w.server, other.token, 'Theirs');
    const theirs = contextFor(services, await authenticate(services.store, services.clock, other.token), 'test');
    await expect(invoke(getFact, theirs, { memory_id: id })).rejects.toMatchObject({ code: 'not_found' });
    await expect(invoke(updateMemory, theirs, { memory_id: id, content: 'Taken over.' })).rejects.toMatchObject({
      code: 'not_found',
    });
    expect((await allFacts(w)).map((f) => f.content)).toContain('Plays the xylofungus on Sundays.');
    // Over the pages too: their session sees no such fact.
    const res = await fetch(`${w.server.url}/facts/${id}`, {
      headers: { cookie: `engram_session=${other.token}` },
      redirect: 'manual',
    });
    expect(res.headers.get('location')).toBe('/profile');
    // A second key of the account that did not save it does not become its writer by reading it.
    const reader = await makeKey(w.server, w.owner, { name: 'Reader', level: 'read', all_views: true, profile: true });
    expect((await call(w.server, 'GET', '/v1/profile', reader.key)).status).toBe(200);
    const detail = await invoke(
      getFact,
      contextFor(services, await authenticate(services.store, services.clock, w.owner), 'test'),
      { memory_id: id },
    );
    expect(detail.written_by).toBeNull();
    expect(detail.served.readers.map((r) => r.name).sort()).toEqual(['Reader', 'test key']);
  });
});
