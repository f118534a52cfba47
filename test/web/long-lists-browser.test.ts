/**
 * Long lists on the owner's pages, in Chromium: a container holding hundreds of facts (imported
 * from the MCP memory server's file) and more documents than a page shows says how many of each
 * it holds and leads to the rest, each once; the profile says what its lists hold. And the small
 * things a first day meets: the tab's icon is served, and a search that showed one passage says so
 * in the singular on the activity page.
 */
import { afterAll, beforeAll, describe, expect, it, setDefaultTimeout } from 'bun:test';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { engram } from '../e2e/cli/engram-command';
import { browserAvailable, launchChromium, SCREENSHOTS, signedInPage } from '../helpers/browser';
import { call, makeKey, makeOwner, startTestServer, type TestServer } from '../helpers/server';

setDefaultTimeout(60_000);

const FACTS = 205;
const DOCUMENTS = 53;

describe.skipIf(!browserAvailable)("the owner's long lists in Chromium", () => {
  const dir = mkdtempSync(join(tmpdir(), 'engram-long-lists-'));
  let server: TestServer;
  let key: { key: string; id: string };
  let browser: Browser;
  let page: Page;
  let container: string;
  const shot = (name: string) => page.screenshot({ path: join(SCREENSHOTS, `lists-${name}.png`), fullPage: true });

  beforeAll(async () => {
    server = await startTestServer();
    const owner = await makeOwner(server);
    key = await makeKey(server, owner.token, { name: 'Reader', level: 'manage', all_views: true, profile: true });
    // One entity with an observation a line: FACTS facts in "MCP memory".
    const lines = Array.from({ length: FACTS }, (_, i) =>
      JSON.stringify({
        type: 'entity',
        name: `Plant ${i + 1}`,
        entityType: 'plant',
        observations: [`Seedling ${i + 1}`],
      }),
    );
    writeFileSync(join(dir, 'memory.jsonl'), `${lines.join('\n')}\n`);
    expect(engram(['import', join(dir, 'memory.jsonl'), '--from', 'mcp-memory', '--data', server.dataDir]).code).toBe(
      0,
    );
    container = (await call(server, 'GET', '/v1/containers', key.key)).body.containers[0].id;
    for (let i = 1; i <= DOCUMENTS; i++)
      await call(server, 'POST', '/v1/documents', key.key, { container, content: `Sowing note ${i}.` });
    browser = await launchChromium();
    page = await signedInPage(browser, server.url, owner);
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a container says how many facts and documents it holds, and leads to the rest of each, each once', async () => {
    await page.goto(`${server.url}/containers/${container}`);
    expect(await page.locator('#fact-count').textContent()).toBe(
      `${FACTS} facts, most recently changed first; 200 on this page.`,
    );
    expect(await page.locator('#document-count').textContent()).toBe(
      `${DOCUMENTS} documents, newest first; 50 on this page.`,
    );
    const seen = await page.locator('#facts li .fact').allTextContents();
    expect(seen).toHaveLength(200);
    await shot('container');
    await page.getByRole('link', { name: 'Older facts' }).click();
    await page.waitForURL((u) => u.searchParams.has('facts'));
    const rest = await page.locator('#facts li .fact').allTextContents();
    expect(rest).toHaveLength(FACTS - 200);
    expect(new Set([...seen, ...rest]).size).toBe(FACTS);
    expect(await page.getByRole('link', { name: 'Older facts' }).count()).toBe(0);
    await page.getByRole('link', { name: 'Newest facts' }).click();
    await page.waitForURL((u) => !u.searchParams.has('facts'));
    expect(await page.locator('#facts li .fact').count()).toBe(200);

    await page.getByRole('link', { name: 'Older documents' }).click();
    await page.waitForURL((u) => u.searchParams.has('cursor'));
    expect(await page.locator('#documents tbody tr').count()).toBe(DOCUMENTS - 50);
    expect(await page.getByRole('link', { name: 'Newest documents' }).count()).toBe(1);
  });

  it('the profile says its recent facts are what was said or saved, and where every fact is', async () => {
    await call(server, 'POST', '/v1/memories', key.key, { content: 'Prefers heirloom tomatoes.', static: true });
    await page.goto(`${server.url}/profile`);
    expect(await page.locator('#static-title + p').textContent()).toContain('all of them here (1 standing fact)');
    expect(await page.locator('#dynamic-about').textContent()).toContain('said or saved most recently (up to 20)');
    // The imported facts are in their container, not among the recent ones.
    expect(await page.locator('#dynamic-facts li').count()).toBe(0);
    await shot('profile');
  });

  it('serves the tab icon every page names, and a search that showed one passage says so in the singular', async () => {
    const icon = await page.request.get(`${server.url}/favicon.ico`);
    expect(icon.status()).toBe(200);
    expect(icon.headers()['content-type']).toBe('image/svg+xml');
    expect(await page.locator('link[rel=icon]').getAttribute('href')).toBe('/favicon.ico');

    const one = await call(server, 'POST', '/v1/search', key.key, { q: 'Sowing note 7', container, limit: 1 });
    expect(one.body.results).toHaveLength(1);
    await page.goto(`${server.url}/keys/${key.id}/activity`);
    expect(await page.locator('li[data-operation="search_memories"] p').first().textContent()).toBe(
      'Showed this passage:',
    );
  });
});
