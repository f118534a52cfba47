/**
 * Secret hygiene: a realistic session against a spawned `engram serve` at ENGRAM_LOG_LEVEL=debug,
 * with its stdout and stderr captured to files. Keys minted by the CLI and by REST, owner session
 * tokens (CLI and POST /v1/session), a sign-in cookie, an OAuth authorization code and consent
 * token; all used, some revoked, and near-miss tokens refused. Then every file of the data
 * directory (a copy taken while the server ran, WAL included, and the files after it stopped) and
 * the captured logs are searched for every raw credential: the whole string, its secret part
 * after the last underscore, and that secret less its last character (what a near miss carries).
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { cpSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { authorizeQuery, Browser, decide, pkce, registerClientId, tokenRequest } from '../../oauth/helpers';
import { sweepThenRemove } from '../../helpers/secret-sweep';
import { engram, freePort, ROOT } from '../../../bench/lib/engram-process';

const PASSWORD = 'correct horse battery staple';
const EMAIL = 'hygiene@example.org';

let home: string;
let data: string;
let snapshot: string;
let stderrFile: string;
let stdoutFile: string;
/** Every raw secret issued during the session, with where it came from. */
const secrets: { label: string; value: string }[] = [];
const issue = (label: string, value: string) => {
  if (!value || value.length < 16) throw new Error(`${label}: no secret (${value})`);
  secrets.push({ label, value });
  return value;
};
/** What the near-miss requests answered. */
const nearMissStatuses: number[] = [];
const usedStatuses: Record<string, number> = {};

async function call(
  url: string,
  method: string,
  path: string,
  token: string,
  body?: unknown,
): Promise<{ status: number; body: any }> {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  try {
    return { status: res.status, body: JSON.parse(text) };
  } catch {
    return { status: res.status, body: text };
  }
}

/** Changes the last character of a token: the near miss of a typo. */
const nearMiss = (t: string) => t.slice(0, -1) + (t.endsWith('A') ? 'B' : 'A');

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'engram-hygiene-'));
  data = join(home, 'data');
  snapshot = join(home, 'snapshot');
  stderrFile = join(home, 'stderr.log');
  stdoutFile = join(home, 'stdout.log');

  // The command line, before the server starts.
  engram(data, ['owner', 'create', '--email', EMAIL], `${PASSWORD}\n`);
  const container = engram(data, ['containers', 'create', 'Notes']);
  const cliKey = issue(
    'CLI key (manage)',
    engram(data, ['keys', 'create', '--name', 'cli', '--level', 'manage', '--all', '--profile']),
  );
  const cliReadKey = issue(
    'CLI key (read, revoked later)',
    engram(data, ['keys', 'create', '--name', 'cli-read', '--level', 'read', '--containers', container]),
  );
  const cliSession = issue('CLI owner session token', engram(data, ['owner', 'token']));

  const port = freePort();
  const url = `http://127.0.0.1:${port}`;
  const proc = Bun.spawn(
    [process.execPath, join(ROOT, 'src/main.ts'), 'serve', '--port', String(port), '--data', data],
    {
      cwd: ROOT,
      env: { ...process.env, ENGRAM_LOG_LEVEL: 'debug', ENGRAM_HOST: '127.0.0.1' },
      stdout: Bun.file(stdoutFile),
      stderr: Bun.file(stderrFile),
    },
  );
  try {
    for (
      let i = 0;
      i < 400 &&
      !(await fetch(`${url}/healthz`).then(
        (r) => r.ok,
        () => false,
      ));
      i++
    )
      await Bun.sleep(25);

    // The owner: a REST session, keys minted over REST, used, one revoked and one replaced.
    const session = await fetch(`${url}/v1/session`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email: EMAIL, password: PASSWORD }),
    });
    usedStatuses['POST /v1/session'] = session.status;
    const owner = issue('REST owner session token', ((await session.json()) as any).token);
    const minted: Record<string, { id: string; key: string }> = {};
    for (const [name, grant] of [
      ['rest-manage', { level: 'manage', all_views: true, profile: true }],
      ['rest-suggest', { level: 'suggest', containers: [container] }],
      ['rest-read', { level: 'read', containers: [container], expires_in_days: 7 }],
    ] as const) {
      const res = await call(url, 'POST', '/v1/api-keys', owner, { name, ...grant });
      usedStatuses[`mint ${name}`] = res.status;
      minted[name] = { id: res.body.id, key: issue(`REST key ${name}`, res.body.key) };
    }
    const replacement = await call(url, 'POST', '/v1/api-keys', owner, {
      name: 'rest-read-2',
      level: 'read',
      containers: [container],
      replaces: minted['rest-read']!.id,
    });
    usedStatuses['mint replacement'] = replacement.status;
    issue('REST key (replacement)', replacement.body.key);

    // Use them all.
    for (const [label, key] of [
      ['cli', cliKey],
      ['cli-read', cliReadKey],
      ['rest-manage', minted['rest-manage']!.key],
      ['rest-suggest', minted['rest-suggest']!.key],
      ['rest-read', minted['rest-read']!.key],
      ['replacement', replacement.body.key],
    ] as const) {
      usedStatuses[`containers ${label}`] = (await call(url, 'GET', '/v1/containers', key)).status;
      usedStatuses[`search ${label}`] = (await call(url, 'POST', '/v1/search', key, { q: 'tea', container })).status;
    }
    usedStatuses.add_memory = (
      await call(url, 'POST', '/v1/memories', minted['rest-suggest']!.key, { container, content: 'Drinks green tea.' })
    ).status;
    usedStatuses.add_document = (
      await call(url, 'POST', '/v1/documents', cliKey, { container, content: 'Notes on tea.', custom_id: 'tea' })
    ).status;
    usedStatuses['CLI session lists keys'] = (await call(url, 'GET', '/v1/api-keys', cliSession)).status;

    // Revoke some.
    const listing = await call(url, 'GET', '/v1/api-keys', owner);
    const cliReadId = listing.body.active.find((k: any) => k.name === 'cli-read').id;
    usedStatuses['revoke cli-read'] = (await call(url, 'DELETE', `/v1/exposures/${cliReadId}`, owner)).status;
    usedStatuses['revoke rest-suggest'] = (
      await call(url, 'DELETE', `/v1/exposures/${minted['rest-suggest']!.id}`, owner)
    ).status;
    usedStatuses['revoked key used'] = (await call(url, 'GET', '/v1/containers', cliReadKey)).status;

    // OAuth: sign in through the form, consent, exchange the code, use the consent token, disconnect.
    const browser = new Browser({ url });
    await browser.signIn(EMAIL, PASSWORD);
    for (const [name, value] of browser.cookies) issue(`sign-in cookie ${name}`, value);
    const redirectUri = 'http://127.0.0.1:7777/callback';
    const clientId = await registerClientId({ url }, [redirectUri]);
    const p = pkce();
    const back = await decide(
      browser,
      authorizeQuery({ clientId, redirectUri, challenge: p.challenge, state: 'hygiene' }),
      { containers: [container], profile: true },
    );
    const code = issue('OAuth authorization code', back.searchParams.get('code') ?? '');
    // The same exchange twice: the second is a replay.
    const exchange = {
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirectUri,
      client_id: clientId,
      code_verifier: p.verifier,
    };
    const exchanged = await tokenRequest({ url }, exchange);
    usedStatuses['token exchange'] = exchanged.status;
    const consent = issue('OAuth consent token', exchanged.body.access_token);
    const mcp = await fetch(`${url}/mcp-http`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${consent}`,
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        'MCP-Protocol-Version': '2025-06-18',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    usedStatuses['consent token tools/list'] = mcp.status;
    await mcp.arrayBuffer();
    // A replayed code is refused (and revokes what it gave, per RFC 6749 4.1.2).
    usedStatuses['code replayed'] = (await tokenRequest({ url }, exchange)).status;
    usedStatuses.disconnect = (
      await call(url, 'DELETE', `/v1/connected-apps/${encodeURIComponent(clientId)}`, owner)
    ).status;

    // Near misses: one character off, truncated, and the right id with another key's secret.
    const [, restId] = minted['rest-manage']!.key.split('_');
    const otherSecret = cliKey.slice(cliKey.lastIndexOf('_') + 1);
    for (const bad of [
      nearMiss(cliKey),
      nearMiss(minted['rest-manage']!.key),
      cliKey.slice(0, -5),
      `egm_${restId}_${otherSecret}`,
      nearMiss(owner),
      nearMiss(cliSession),
      nearMiss(consent),
      `${cliKey}x`,
    ]) {
      nearMissStatuses.push((await call(url, 'GET', '/v1/containers', bad)).status);
      nearMissStatuses.push((await call(url, 'GET', '/v1/api-keys', bad)).status);
    }
    const mcpMiss = await fetch(`${url}/mcp-http`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${nearMiss(consent)}`,
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
      },
      body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
    });
    nearMissStatuses.push(mcpMiss.status);
    await mcpMiss.arrayBuffer();
    const badSignIn = await fetch(`${url}/v1/session`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email: EMAIL, password: `${PASSWORD}!` }),
    });
    usedStatuses['bad sign-in'] = badSignIn.status;
    await badSignIn.arrayBuffer();

    // A copy of the live files, WAL and shared memory included, before the stop checkpoints them.
    cpSync(data, snapshot, { recursive: true });
  } finally {
    proc.kill('SIGTERM');
    await proc.exited;
  }
}, 120_000);
// Also searched for the shape of any credential (test/helpers/secret-sweep.ts), as every harness is.
afterAll(() =>
  sweepThenRemove({ harness: 'bun:secret-hygiene', stores: [data, snapshot], logs: [stderrFile, stdoutFile] }, home),
);

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...filesUnder(p));
    else out.push(p);
  }
  return out;
}

/** The needles of each secret: the whole string, the part after the last underscore, and that part less its last character. */
function needles(value: string): string[] {
  const secret = value.slice(value.lastIndexOf('_') + 1);
  return [...new Set([value, secret, secret.slice(0, -1)])].filter((n) => n.length >= 16);
}

describe('no raw credential is written anywhere', () => {
  it('the session really happened: credentials issued, used, revoked, near misses refused', () => {
    expect(secrets.filter((s) => s.label.includes('key')).length).toBe(6);
    expect(secrets.map((s) => s.label)).toEqual(
      expect.arrayContaining([
        'OAuth authorization code',
        'OAuth consent token',
        'REST owner session token',
        'CLI owner session token',
      ]),
    );
    expect(usedStatuses).toMatchObject({
      'POST /v1/session': 201,
      'containers cli': 200,
      'containers rest-manage': 200,
      'search rest-read': 200,
      add_memory: 201,
      add_document: 202,
      'CLI session lists keys': 200,
      'revoke cli-read': 200,
      'revoked key used': 403,
      'token exchange': 200,
      'consent token tools/list': 200,
      disconnect: 200,
      'bad sign-in': 403,
    });
    expect(usedStatuses['code replayed']).toBeGreaterThanOrEqual(400);
    expect(nearMissStatuses.length).toBe(17);
    // REST refuses with 403 `unauthorized` (its envelope), the MCP door with 401 and WWW-Authenticate.
    expect(nearMissStatuses).toEqual([...Array(16).fill(403), 401]);
  });

  it('the logs were really captured at debug level', () => {
    const log = readFileSync(stderrFile, 'utf8') + readFileSync(stdoutFile, 'utf8');
    expect(log.length).toBeGreaterThan(1000);
    // One line per request (about 60 made), and the OAuth events that name the token by id and hint.
    expect(log.split('\n').filter((l) => l.includes('request')).length).toBeGreaterThan(50);
    expect(log).toContain('consent token issued');
  });

  it('the data directory (live copy and stopped files) and the logs hold none of them', () => {
    const files = [...filesUnder(snapshot), ...filesUnder(data), stderrFile, stdoutFile];
    expect(files.some((f) => f.endsWith('engram.db-wal'))).toBe(true);
    const hits: string[] = [];
    let bytesSearched = 0;
    for (const file of files) {
      const bytes = readFileSync(file);
      bytesSearched += bytes.length;
      for (const { label, value } of secrets)
        for (const n of needles(value))
          if (bytes.includes(n)) hits.push(`${label} (${n.length} chars) in ${file.slice(home.length)}`);
    }
    console.log(
      `secret hygiene: ${secrets.length} credentials (${secrets.flatMap((s) => needles(s.value)).length} needles) searched in ${files.length} files, ${bytesSearched} bytes`,
    );
    expect(hits).toEqual([]);
  });

  it("the search itself finds what is there: each developer key's public id is in the store", () => {
    const store = Buffer.concat(filesUnder(snapshot).map((f) => readFileSync(f)));
    const ids = secrets.filter((s) => s.value.startsWith('egm_')).map((s) => s.value.split('_')[1]!);
    expect(ids.length).toBe(6);
    for (const id of ids) expect(store.includes(id)).toBe(true);
  });
});
