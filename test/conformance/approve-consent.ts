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

const { values } = parseArgs({ args: Bun.argv.slice(2), options: { log: { type: 'string' }, email: { type: 'string' }, container: { type: 'string' } } });
const password = process.env.ENGRAM_PASSWORD;
if (!values.log || !values.email || !values.container || !password) {
  process.stderr.write('approve-consent: needs --log FILE --email E --container ID and ENGRAM_PASSWORD\n');
  process.exit(2);
}

const cookies = new Map<string, string>();
async function browse(url: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  if (cookies.size) headers.set('Cookie', [...cookies].map(([k, v]) => `${k}=${v}`).join('; '));
  const res = await fetch(url, { ...init, headers, redirect: 'manual' });
  for (const line of res.headers.getSetCookie()) {
    const [pair] = line.split(';');
    const at = pair!.indexOf('=');
    cookies.set(pair!.slice(0, at), pair!.slice(at + 1));
  }
  return res;
}

/** The hidden fields of the form posting to `action`. */
function hiddenFields(html: string, action: string): [string, string][] {
  const start = html.indexOf(`action="${action}"`);
  if (start < 0) throw new Error(`no form posting to ${action}`);
  const form = html.slice(start, html.indexOf('</form>', start));
  const out: [string, string][] = [];
  for (const m of form.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)) out.push([m[1]!, m[2]!.replaceAll('&amp;', '&').replaceAll('&quot;', '"')]);
  return out;
}

function post(url: string, fields: [string, string][]): Promise<Response> {
  return browse(url, { method: 'POST', body: new URLSearchParams(fields), headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: new URL(url).origin } });
}

let authorizeUrl: URL | null = null;
for (let i = 0; i < 600 && !authorizeUrl; i++) {
  const line = readFileSync(values.log, 'utf8').split('\n').find((l) => /^https?:\/\/\S+\/oauth\/authorize\?/.test(l.trim()));
  if (line) authorizeUrl = new URL(line.trim());
  else await Bun.sleep(100);
}
if (!authorizeUrl) {
  process.stderr.write('approve-consent: the suite printed no authorization URL within 60 s\n');
  process.exit(1);
}

const origin = authorizeUrl.origin;
const signInPage = await browse(`${origin}/sign-in?next=${encodeURIComponent(authorizeUrl.pathname + authorizeUrl.search)}`);
const signedIn = await post(`${origin}/sign-in`, [...hiddenFields(await signInPage.text(), '/sign-in'), ['email', values.email], ['password', password]]);
if (signedIn.status !== 303) throw new Error(`sign-in answered ${signedIn.status}`);
const consent = await browse(authorizeUrl.href);
if (consent.status !== 200) throw new Error(`the consent screen answered ${consent.status}: ${(await consent.text()).slice(0, 300)}`);
const decided = await post(`${origin}/oauth/authorize`, [...hiddenFields(await consent.text(), '/oauth/authorize'), ['containers', values.container], ['decision', 'approve']]);
const location = decided.headers.get('location');
if (decided.status !== 303 || !location) throw new Error(`the consent form answered ${decided.status}`);
const delivered = await fetch(location);
process.stdout.write(`approve-consent: approved; the suite's callback answered ${delivered.status}\n`);
