/**
 * The owner's part of the conformance suite's authorization-code-grant scenario, which prints an
 * authorization URL and waits for a person to open it: this watches the suite's output for that
 * URL, signs in through the sign-in form, ticks a container on the consent screen, approves, and
 * delivers the redirect to the suite's callback server. Test-only; everything stays on 127.0.0.1.
 *
 * Usage: bun test/conformance/approve-consent.ts --log FILE --email E --container ID
 *        (the password comes from ENGRAM_PASSWORD, so it never appears in a process listing)
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { Browser, decide } from '../oauth/helpers';

const { values } = parseArgs({
  args: Bun.argv.slice(2),
  options: { log: { type: 'string' }, email: { type: 'string' }, container: { type: 'string' } },
});
const password = process.env.ENGRAM_PASSWORD;
if (!values.log || !values.email || !values.container || !password) {
  process.stderr.write('approve-consent: needs --log FILE --email E --container ID and ENGRAM_PASSWORD\n');
  process.exit(2);
}

let authorizeUrl: URL | null = null;
for (let i = 0; i < 600 && !authorizeUrl; i++) {
  const line = readFileSync(values.log, 'utf8')
    .split('\n')
    .find((l) => /^https?:\/\/\S+\/oauth\/authorize\?/.test(l.trim()));
  if (line) authorizeUrl = new URL(line.trim());
  else await Bun.sleep(100);
}
if (!authorizeUrl) {
  process.stderr.write('approve-consent: the suite printed no authorization URL within 60 s\n');
  process.exit(1);
}

// The browser steps are the OAuth tests' own (test/oauth/helpers.ts): sign in through the form,
// tick the container on the consent screen, approve; each throws when the server answers otherwise.
const browser = new Browser({ url: authorizeUrl.origin });
await browser.signIn(values.email, password);
const back = await decide(browser, authorizeUrl.href, { containers: [values.container] });
const delivered = await fetch(back);
process.stdout.write(`approve-consent: approved; the suite's callback answered ${delivered.status}\n`);
