/**
 * Mints a consent token the only way one is made: as an AI app and its owner do it, over HTTP.
 * Registers a client at /oauth/register, signs the owner in through /sign-in (a cookie jar), opens
 * the consent screen with PKCE (S256), ticks the containers and optionally profile access,
 * approves, reads the code from the redirect and exchanges it at /oauth/token. There is no CLI
 * command for this on purpose; the steps are test/oauth/helpers.ts, shared with the OAuth tests.
 *
 * Usage: bun scripts/lib/consent-token.ts --url URL --email E --containers ID[,ID...] [--profile]
 *        (the password comes from ENGRAM_PASSWORD, so it never appears in a process listing)
 * Prints the access token alone on standard output; anything else goes to standard error.
 */
import { parseArgs } from 'node:util';
import { Browser, connect } from '../../test/oauth/helpers';

const { values } = parseArgs({
  args: Bun.argv.slice(2),
  options: {
    url: { type: 'string' },
    email: { type: 'string' },
    containers: { type: 'string' },
    profile: { type: 'boolean', default: false },
  },
});
const password = process.env.ENGRAM_PASSWORD;
if (!values.url || !values.email || !values.containers || !password) {
  process.stderr.write(
    'consent-token: needs --url URL --email E --containers ID[,ID...] [--profile] and ENGRAM_PASSWORD\n',
  );
  process.exit(2);
}

try {
  const server = { url: values.url.replace(/\/+$/, '') };
  const browser = new Browser(server);
  await browser.signIn(values.email, password);
  const containers = values.containers.split(',').filter(Boolean);
  const { access_token } = await connect(server, { browser }, { containers, profile: values.profile });
  process.stdout.write(`${access_token}\n`);
} catch (err) {
  process.stderr.write(`consent-token: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}
