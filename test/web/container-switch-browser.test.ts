/**
 * The container page shows the switch "Learns into the profile" (on for a new container) and the
 * owner turns it off and on with the page's own form, in Chromium; the API reads what the page set.
 */
import { afterAll, beforeAll, describe, expect, it, setDefaultTimeout } from 'bun:test';
import type { Browser, Page } from 'playwright-core';
import { browserAvailable, launchChromium, signedInPage } from '../helpers/browser';
import { call, makeContainer, makeOwner, startTestServer, type TestServer } from '../helpers/server';

setDefaultTimeout(30_000);

describe.skipIf(!browserAvailable)('the container page\'s "learns into the profile" switch, in Chromium', () => {
  let server: TestServer;
  let owner: { token: string; email: string; password: string };
  let container: string;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    server = await startTestServer();
    owner = await makeOwner(server);
    container = await makeContainer(server, owner.token, 'Diary');
    browser = await launchChromium();
    page = await signedInPage(browser, server.url, owner);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  const fromApi = async () =>
    (await call(server, 'GET', '/v1/containers', owner.token)).body.containers[0].learns_into_profile;
  const save = async () => {
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL((u) => u.pathname === `/containers/${container}`);
    expect(await page.getByRole('status').textContent()).toBe('Saved.');
  };

  it('is on for a new container, and the page turns it off and on again', async () => {
    await page.goto(`${server.url}/containers/${container}`);
    const box = page.getByLabel('Learns into the profile');
    expect(await box.isChecked()).toBe(true);
    await box.uncheck();
    await save();
    expect(await page.getByLabel('Learns into the profile').isChecked()).toBe(false);
    expect(await fromApi()).toBe(false);
    // Saving the name keeps the switch as the page shows it.
    await page.getByLabel('Description').fill('Private notes');
    await save();
    expect(await fromApi()).toBe(false);
    await page.getByLabel('Learns into the profile').check();
    await save();
    expect(await fromApi()).toBe(true);
  });
});
