/**
 * The Import page in Chromium: a ChatGPT archive of a few thousand conversations is uploaded (the
 * upload's own bar), its run's page shows a progress bar that moves while it is checked and
 * stored, then the summary with a link to the container; a dry run lists what it would add and
 * stores nothing; a broken file is refused saying where, with nothing stored; and without the
 * script the form and the run's page (reloading itself) still get there. Screenshots go to
 * test-output/ (gitignored).
 */
import { afterAll, beforeAll, describe, expect, it, setDefaultTimeout } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { writeChatGptArchive } from '../../bench/lib/chatgpt-export';
import { browserAvailable, launchChromium, SCREENSHOTS, signedInPage } from '../helpers/browser';
import { call, makeKey, makeOwner, startTestServer, type TestServer } from '../helpers/server';

setDefaultTimeout(120_000);

describe.skipIf(!browserAvailable)('the Import page in Chromium', () => {
  const dir = mkdtempSync(join(tmpdir(), 'engram-import-page-'));
  let server: TestServer;
  let key: string;
  let login: { email: string; password: string };
  let browser: Browser;
  let page: Page;
  let archive: string;
  const CONVERSATIONS = 2500;
  const shot = (name: string) => page.screenshot({ path: join(SCREENSHOTS, `import-${name}.png`), fullPage: true });
  const stored = async () => {
    const [account] = await server.services.store.accounts.list();
    return (await server.services.store.documents.listInInsertOrder(account!.id, 0, 10_000)).documents.length;
  };

  beforeAll(async () => {
    server = await startTestServer();
    const owner = await makeOwner(server);
    login = owner;
    key = (await makeKey(server, owner.token, { level: 'manage', all_views: true })).key;
    archive = join(dir, 'chatgpt-export.zip');
    await writeChatGptArchive(archive, { conversations: CONVERSATIONS, messages: 12, messageBytes: 800, photos: 3 });
    browser = await launchChromium();
    page = await signedInPage(browser, server.url, login);
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function upload(
    file: string,
    format: string,
    options: { dryRun?: boolean; container?: string; skipInvalid?: boolean } = {},
  ) {
    await page.goto(`${server.url}/containers`);
    await page.getByRole('link', { name: 'Import' }).click();
    await page.waitForURL((u) => u.pathname === '/import');
    await page.getByLabel('What it is').selectOption(format);
    if (options.container) await page.getByLabel('Into the container (optional)').fill(options.container);
    if (options.dryRun) await page.getByLabel('Only check it, and show what would be imported').check();
    if (options.skipInvalid) await page.getByLabel(/^Skip entries that cannot be imported/).check();
    await page.getByLabel(/^File/).setInputFiles(file);
    await page.getByRole('button', { name: 'Import' }).click();
  }

  it('a dry run lists what it would add, and stores nothing', async () => {
    await page.goto(`${server.url}/import`);
    await shot('form');
    await upload(archive, 'chatgpt', { dryRun: true });
    await page.waitForSelector('#import-summary', { timeout: 90_000 });
    expect(await page.locator('#run-title').textContent()).toBe('Checked chatgpt-export.zip');
    expect(await page.locator('#import-summary').textContent()).toContain(
      `Would import 1 new container, ${CONVERSATIONS} documents (0 already there), 0 facts, 0 rules.`,
    );
    expect(await page.locator('#import-changes li').count()).toBe(200);
    expect(await page.locator('#import-changes li').first().textContent()).toBe(
      'Add document “Conversation 1” in ChatGPT',
    );
    expect(await page.getByText(`…and ${CONVERSATIONS - 200} more.`).count()).toBe(1);
    expect(await stored()).toBe(0);
    await shot('dry-run');
  });

  it('uploads an archive, shows a progress bar that moves, then the summary with its container', async () => {
    await upload(archive, 'chatgpt');
    await page.waitForURL((u) => u.pathname.startsWith('/import/runs/'));
    const bar = page.locator('#import-progress');
    await bar.waitFor();
    await shot('progress');
    // The script moves the bar in place: it is read a few times before the run ends.
    const seen = new Set<string>();
    while (await bar.count()) {
      const value = await bar.getAttribute('value').catch(() => null);
      const phase = await page
        .locator('#import-phase')
        .textContent()
        .catch(() => null);
      if (value !== null && phase) seen.add(`${phase.split(':')[0]} ${value}`);
      await Bun.sleep(50);
    }
    expect([...seen].some((s) => /^(Checking|Importing) ([1-9]\d?)$/.test(s))).toBe(true);
    await page.waitForSelector('#import-summary');
    expect(await page.locator('#run-title').textContent()).toBe('Imported chatgpt-export.zip');
    expect(await page.locator('#import-summary').textContent()).toContain(
      `Imported 1 new container, ${CONVERSATIONS} documents (0 already there), 0 facts, 0 rules.`,
    );
    expect(await stored()).toBe(CONVERSATIONS);
    await shot('summary');
    await page.locator('#import-containers').getByRole('link', { name: 'ChatGPT' }).click();
    await page.waitForURL((u) => u.pathname.startsWith('/containers/ctr_'));
    // What was stored is the archive's: a conversation, its messages with their speakers.
    const docs = (await call(server, 'GET', '/v1/documents?limit=1', key)).body.documents;
    const doc = (await call(server, 'GET', `/v1/documents/${docs[0].id}`, key)).body;
    expect(doc.content).toMatch(/\n\nUser, 20\d\d-\d\d-\d\d \d\d:\d\d UTC: /);
  });

  it('a second upload adds nothing; a broken file is refused saying where, and nothing is stored', async () => {
    await upload(archive, 'chatgpt');
    await page.waitForSelector('#import-summary', { timeout: 90_000 });
    expect(await page.locator('#import-summary').textContent()).toContain(
      `Imported 0 new containers, 0 documents (${CONVERSATIONS} already there)`,
    );

    const broken = join(dir, 'memory.jsonl');
    await Bun.write(
      broken,
      '{"type":"entity","name":"Ada","entityType":"person","observations":["Likes tea"]}\n{"type":"entity","name":\n',
    );
    await upload(broken, 'mcp-memory');
    await page.waitForSelector('p.error[role=alert]');
    expect(await page.locator('#run-title').textContent()).toBe('memory.jsonl was not imported');
    expect(await page.locator('p.error[role=alert]').textContent()).toBe(
      'memory.jsonl:2:25: not valid JSON: it ends too early.',
    );
    expect(await server.services.store.facts.list((await server.services.store.accounts.list())[0]!.id)).toEqual([]);
    await shot('refused');
  });

  it('works without the script: the form posts, and the run page reloads itself until the summary', async () => {
    const context = await browser.newContext({ javaScriptEnabled: false });
    const plain = await context.newPage();
    await plain.goto(`${server.url}/sign-in`);
    await plain.getByLabel('Email').fill(login.email);
    await plain.getByLabel('Password').fill(login.password);
    await plain.getByRole('button', { name: 'Sign in' }).click();
    await plain.waitForURL((u) => u.pathname === '/containers');
    await plain.goto(`${server.url}/import`);
    const notes = join(dir, 'notes.json');
    await Bun.write(
      notes,
      JSON.stringify([
        {
          uuid: 'c-1',
          name: 'Plain form',
          created_at: '2025-01-01T00:00:00Z',
          updated_at: '2025-01-01T00:00:00Z',
          chat_messages: [
            { uuid: 'm-1', sender: 'human', text: 'Posted without a script.', created_at: '2025-01-01T00:00:00Z' },
          ],
        },
      ]),
    );
    await plain.getByLabel('What it is').selectOption('claude');
    await plain.getByLabel(/^File/).setInputFiles(notes);
    await plain.getByRole('button', { name: 'Import' }).click();
    await plain.waitForSelector('#import-summary', { timeout: 30_000 });
    expect(await plain.locator('#import-summary').textContent()).toContain(
      'Imported 1 new container, 1 document (0 already there), 0 facts, 0 rules.',
    );
    await context.close();
  });

  it('with “Skip entries that cannot be imported” ticked, imports the rest of a file and lists each entry left out', async () => {
    const file = join(dir, 'conversations.json');
    const said = (uuid: string, text: string) => ({
      uuid,
      name: text,
      created_at: '2025-02-01T00:00:00Z',
      updated_at: '2025-02-01T00:00:00Z',
      chat_messages: [{ uuid: `${uuid}-m`, sender: 'human', text, created_at: '2025-02-01T00:00:00Z' }],
    });
    await Bun.write(
      file,
      JSON.stringify([said('k-1', 'Kept before'), { uuid: 'k-2', name: 'No messages' }, said('k-3', 'Kept after')]),
    );
    await upload(file, 'claude');
    await page.waitForSelector('p.error[role=alert]');
    expect(await page.locator('p.error[role=alert]').textContent()).toContain(
      'tick “Skip entries that cannot be imported” on the Import page',
    );
    await upload(file, 'claude', { skipInvalid: true });
    await page.waitForSelector('#import-summary');
    expect(await page.locator('#import-summary').textContent()).toContain(
      '2 documents (0 already there), 0 facts, 0 rules.',
    );
    expect(await page.locator('#import-summary').textContent()).toContain(
      'Left out 1 entry that could not be imported:',
    );
    expect(await page.locator('#import-left-out li').allTextContents()).toEqual([
      'conversations.json:1:219: entry 2 is neither a Claude conversation (it has no chat_messages) nor a project (no docs or prompt_template).',
    ]);
    await shot('left-out');
    // The form's button is the page's one primary action.
    await page.goto(`${server.url}/import`);
    expect(await page.getByRole('button', { name: 'Import' }).getAttribute('class')).toBe('primary');
  });
});
