/**
 * Chromium for the page tests: Debian's package, installed by scripts/ensure-chromium.sh when it
 * is missing, run headless. A suite skips when it cannot be had, and says so loudly: a skipped
 * browser suite must not pass unnoticed.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';

const ROOT = join(import.meta.dir, '..', '..');
const CHROMIUM = '/usr/bin/chromium';

/** Where the suites' screenshots go (gitignored); made on first use. */
export const SCREENSHOTS = join(ROOT, 'test-output');

/** Whether Chromium is there (installed now if it was not); checked once a test process. */
export const browserAvailable: boolean = (() => {
  const ensured = Bun.spawnSync(['bash', join(ROOT, 'scripts', 'ensure-chromium.sh')], {
    stdout: 'inherit',
    stderr: 'inherit',
  });
  if (ensured.exitCode === 0) return true;
  const bar = '!'.repeat(100);
  console.error(
    `\n${bar}\n!!! BROWSER TESTS SKIPPED: Chromium is not installed at ${CHROMIUM} and scripts/ensure-chromium.sh could not install it (exit ${ensured.exitCode}).\n!!! The owner's pages were NOT tested in a browser. Install it with: apt-get install -y chromium\n${bar}\n`,
  );
  return false;
})();

export function launchChromium(): Promise<Browser> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-dev-shm-usage',
    ],
  });
}

/**
 * A new page in its own context (1000 × 800), signed in as the owner through the sign-in form, on
 * the containers page the form leads to.
 */
export async function signedInPage(
  browser: Browser,
  origin: string,
  login: { email: string; password: string },
): Promise<Page> {
  const page = await (await browser.newContext({ viewport: { width: 1000, height: 800 } })).newPage();
  await page.goto(`${origin}/sign-in`);
  await page.getByLabel('Email').fill(login.email);
  await page.getByLabel('Password').fill(login.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((u) => u.pathname === '/containers');
  return page;
}
