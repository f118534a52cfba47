/**
 * Shares and workflows on the owner's pages, in Chromium: an agent share made on the page (kind,
 * name, containers, 30 days), its token shown once and then only its hint, the token answering
 * ask; a refusal of the operation shown on the page; a workflow with its instruction on its own
 * page; revocation after a confirmation page, after which the very next call with the token is
 * refused; and the share listed under Expired once its 30 days have passed. Screenshots go to
 * test-output/ (gitignored).
 */
import { afterAll, beforeAll, describe, expect, it, setDefaultTimeout } from 'bun:test';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { browserAvailable, launchChromium, SCREENSHOTS } from '../helpers/browser';
import { type FakeModel, groundedFixture, startFakeModel } from '../agent/fake-model';
import { addDocument, DAY_MS, keyFor, makeAccount, type TestAccount } from '../helpers/rest';
import { call, startTestServer, type TestServer } from '../helpers/server';

setDefaultTimeout(30_000);

describe.skipIf(!browserAvailable)('shares and workflows on the owner pages in Chromium', () => {
  let model: FakeModel;
  let server: TestServer;
  let account: TestAccount;
  let browser: Browser;
  let page: Page;
  let token = '';
  let shareId = '';
  let workflowId = '';
  const shot = (name: string) => page.screenshot({ path: join(SCREENSHOTS, `owner-${name}.png`), fullPage: true });
  const path = () => new URL(page.url()).pathname;
  const ask = () => call(server, 'POST', '/v1/ask', token, { message: 'What is for breakfast?' });

  async function signIn() {
    await page.getByLabel('Email').fill(account.email);
    await page.getByLabel('Password').fill(account.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }

  beforeAll(async () => {
    model = startFakeModel(groundedFixture(['breakfast', 'oatmeal']));
    server = await startTestServer({
      env: { ENGRAM_MODEL_URL: model.url, ENGRAM_MODEL: 'test-model', ENGRAM_EMBEDDER: 'none' },
    });
    account = await makeAccount(server, ['Food', 'Work']);
    const key = await keyFor(server, account.owner, { level: 'suggest', containers: [account.containers.Food!] });
    await addDocument(server, key, {
      container: account.containers.Food,
      content: 'She eats oatmeal for breakfast every day.',
      title: 'Breakfast',
    });
    await server.learning.drain();
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1000, height: 800 } })).newPage();
    await page.goto(`${server.url}/sign-in`);
    await signIn();
    await page.waitForURL((u) => u.pathname === '/containers');
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await model?.stop();
  });

  it('makes an agent share for Food that expires in 30 days; its token is shown once and answers ask', async () => {
    await page.getByRole('link', { name: 'Shares' }).click();
    expect(path()).toBe('/shares');
    await page.getByRole('radio', { name: 'Agent share' }).check();
    await page.getByLabel('Name').fill('Food agent');
    await page.getByLabel('Food', { exact: true }).check();
    await page.getByLabel('Expires').selectOption({ label: '30 days' });
    await shot('share-make');
    await page.getByRole('button', { name: 'Make share' }).click();
    await page.waitForSelector('#new-token');
    expect(await page.locator('#minted').textContent()).toContain('you will not see it again');
    expect(await page.getByRole('button', { name: 'Copy' }).isVisible()).toBe(true);
    token = await page.locator('#new-token').inputValue();
    expect(token).toMatch(/^egx_/);
    await shot('share-minted');

    const row = page.locator('#shares-active tr[data-share-id]');
    shareId = (await row.getAttribute('data-share-id'))!;
    expect(token.split('_')[1]).toBe(shareId);
    const expires = `${new Date(server.clock.now() + 30 * DAY_MS).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
    expect(await row.locator('td').allTextContents()).toEqual([
      expect.stringContaining('Food agent'),
      'Agent share',
      'Food',
      expires,
    ]);

    const answered = await ask();
    expect(answered.status).toBe(200);
    expect(answered.body.answer).toContain('oatmeal');
    // Afterwards only the hint, on the list and on its page.
    await page.goto(`${server.url}/shares`);
    expect(await page.content()).not.toContain(token);
    await page.goto(`${server.url}/shares/${shareId}`);
    expect(await page.content()).not.toContain(token);
    expect(await page.locator('main').textContent()).toContain(`${token.slice(0, 8)}…${token.slice(-4)}`);
  });

  it('shows what the operation refuses as a message, and makes nothing', async () => {
    await page.goto(`${server.url}/shares`);
    await page.getByRole('radio', { name: 'Workflow' }).check();
    await page.getByLabel('Name').fill('No instruction');
    await page.getByLabel('Work', { exact: true }).check();
    await page.getByRole('button', { name: 'Make share' }).click();
    await page.waitForURL((u) => u.pathname === '/shares');
    expect(await page.getByRole('alert').textContent()).toBe('A workflow needs an instruction.');
    expect(await page.locator('tr[data-share-id]').count()).toBe(1);
  });

  it('makes a workflow with an instruction; its page shows the instruction and the containers', async () => {
    await page.getByRole('radio', { name: 'Workflow' }).check();
    await page.getByLabel('Name').fill('Meal planner');
    await page.getByLabel('Food', { exact: true }).check();
    await page.getByLabel('Work', { exact: true }).check();
    await page.getByLabel(/^Instruction/).fill('Plan tomorrow’s breakfast from what she eats.');
    await page.getByRole('button', { name: 'Make share' }).click();
    await page.waitForSelector('#new-token');
    expect(await page.locator('#new-token').inputValue()).toMatch(/^egx_/);
    await page.getByRole('link', { name: 'See its page' }).click();
    workflowId = path().split('/')[2]!;
    expect(await page.locator('#share-instruction').textContent()).toBe(
      'Plan tomorrow’s breakfast from what she eats.',
    );
    expect(await page.locator('main').textContent()).toContain('Workflow · Food, Work');
    expect(await page.locator('#share-state').textContent()).toBe('active');
    await shot('workflow');
  });

  it('revokes the agent share after a confirmation; the very next call with its token is refused', async () => {
    await page.goto(`${server.url}/shares/${shareId}`);
    await page.getByRole('link', { name: 'Revoke' }).click();
    expect(await page.locator('h1').textContent()).toBe('Revoke “Food agent”?');
    expect(await page.locator('#confirm-message').textContent()).toContain('stops working at once');
    // Not yet: the confirmation page changes nothing.
    expect((await ask()).status).toBe(200);
    await shot('share-revoke-confirm');
    await page.getByRole('button', { name: 'Revoke share' }).click();
    await page.waitForURL((u) => u.pathname === `/shares/${shareId}`);
    expect(await page.getByRole('status').textContent()).toContain('Revoked');
    expect(await page.locator('#share-state').textContent()).toBe('revoked');
    expect(await page.getByRole('link', { name: 'Revoke' }).count()).toBe(0);

    const refused = await ask();
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 'unauthorized', details: { reason: 'revoked' } });
    await page.getByRole('link', { name: 'Shares' }).click();
    expect(await page.locator(`#shares-revoked tr[data-share-id="${shareId}"]`).count()).toBe(1);
    expect(await page.locator(`#shares-active tr[data-share-id="${workflowId}"]`).count()).toBe(1);
  });

  it('lists a 30-day share under Expired once its time is up, and its token is refused as expired', async () => {
    await page.getByRole('radio', { name: 'Agent share' }).check();
    await page.getByLabel('Name').fill('Month pass');
    await page.getByLabel('Food', { exact: true }).check();
    await page.getByLabel('Expires').selectOption({ label: '30 days' });
    await page.getByRole('button', { name: 'Make share' }).click();
    await page.waitForSelector('#new-token');
    token = await page.locator('#new-token').inputValue();
    const monthPass = token.split('_')[1]!;
    expect((await ask()).status).toBe(200);

    server.clock.advance(30 * DAY_MS);
    const refused = await ask();
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 'unauthorized', details: { reason: 'expired' } });
    // The owner's 30-day session has lapsed as well: sign in again and come back to the list.
    await page.goto(`${server.url}/shares`);
    expect(path()).toBe('/sign-in');
    await signIn();
    await page.waitForURL((u) => u.pathname === '/shares');
    expect(await page.locator(`#shares-expired tr[data-share-id="${monthPass}"]`).count()).toBe(1);
    expect(await page.locator(`#shares-active tr[data-share-id="${workflowId}"]`).count()).toBe(1);
    await shot('shares');
    await page.goto(`${server.url}/shares/${monthPass}`);
    expect(await page.locator('#share-state').textContent()).toBe('expired');
    expect(await page.getByRole('link', { name: 'Revoke' }).count()).toBe(0);
  });
});
