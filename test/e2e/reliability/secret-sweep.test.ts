/**
 * The sweep that every harness runs over its stores and logs (test/helpers/secret-sweep.ts) must be
 * able to fail: real minted credentials planted in a real store, in its WAL, and in a log are
 * found, a secret part alone too, and the harnesses fail on them; a hint, a password hash and a
 * PKCE challenge beside its redirect URI are not findings. The ledger and its report are checked too.
 */
import type { Database } from 'bun:sqlite';
import { afterEach, beforeEach, describe, expect, it } from 'bun:test';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mintSecret } from '../../../src/auth/credentials';
import { hintOf } from '../../../src/ids';
import { DB_FILE, openDatabase } from '../../../src/storage/sqlite/open';
import { report, scanFile, scanText, SecretLeakError, sweep, sweepThenRemove } from '../../helpers/secret-sweep';
import { makeKey, makeOwner, startTestServer } from '../../helpers/server';

const made: string[] = [];
const scratch = () => {
  const dir = mkdtempSync(join(tmpdir(), 'engram-sweep-'));
  made.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Every kind of secret the server issues, with its id length. */
const KINDS = [
  ['egm', 12],
  ['egc', 12],
  ['egx', 12],
  ['egs', 16],
  ['ega', 16],
] as const;
const secretPart = (token: string) => token.slice(token.lastIndexOf('_') + 1);

/** A real store with an account, written through a connection the caller closes (or not). */
function store(dir: string): Database {
  const db = openDatabase(dir, Date.now());
  db.run(
    "INSERT INTO accounts (id, email, password_hash, created_at) VALUES ('acc_sweep', 'sweep@example.org', 'x', 1)",
  );
  return db;
}

describe('what the sweep finds', () => {
  it('a raw credential of each kind, in a store file, with its offset and a hint only', () => {
    const dir = scratch();
    const db = store(dir);
    const tokens = KINDS.map(([prefix, idLength]) => mintSecret(prefix, idLength).token);
    for (const [i, token] of tokens.entries())
      db.run('INSERT INTO settings (key, value) VALUES (?, ?)', [`planted ${i}`, token]);
    db.close();
    const result = sweep({ harness: 'test', stores: [dir] }, '');
    expect(new Set(result.findings.map((f) => `${f.shape} ${f.hint}`))).toEqual(
      new Set(tokens.map((t) => `credential ${hintOf(t)}`)),
    );
    for (const f of result.findings) {
      expect(f.file).toBe(join(dir, DB_FILE));
      const bytes = readFileSync(f.file)
        .subarray(f.offset, f.offset + 64)
        .toString('latin1');
      expect(tokens.some((t) => bytes.startsWith(t))).toBe(true);
    }
    // Never the whole secret in what it reports.
    for (const t of tokens) expect(JSON.stringify(result)).not.toContain(secretPart(t));
  });

  it('a credential written to the WAL and not yet checkpointed', () => {
    const dir = scratch();
    const db = store(dir);
    db.run('PRAGMA wal_autocheckpoint = 0');
    const key = mintSecret('egm').token;
    db.run('INSERT INTO settings (key, value) VALUES (?, ?)', ['planted', key]);
    try {
      const result = sweep({ harness: 'test', stores: [dir] }, '');
      expect(result.findings.some((f) => f.file.endsWith(`${DB_FILE}-wal`) && f.hint === hintOf(key))).toBe(true);
    } finally {
      db.close();
    }
  });

  it('a secret part alone (no prefix) in a log line, and a bearer the server was presented', () => {
    const dir = scratch();
    const key = mintSecret('egm').token;
    const log = join(dir, 'server.log');
    writeFileSync(
      log,
      [
        JSON.stringify({ level: 'info', msg: 'request', note: secretPart(key) }),
        JSON.stringify({
          level: 'warn',
          msg: 'refused',
          bearer: 'egm_abcdefghijkl_SSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSS',
        }),
        JSON.stringify({ level: 'warn', msg: 'truncated', bearer: key.slice(0, -20) }),
      ].join('\n'),
    );
    const result = sweep({ harness: 'test', logs: [log] }, '');
    expect(result.findings.map((f) => f.shape)).toEqual(['bare secret', 'credential', 'credential']);
  });

  it("what a harness captured in memory (a child's standard error)", () => {
    const key = mintSecret('egc').token;
    const result = sweep({ harness: 'test', texts: [{ name: 'stderr', text: `error: bad token ${key}\n` }] }, '');
    expect(result.findings).toMatchObject([{ file: 'stderr', shape: 'credential', hint: hintOf(key) }]);
  });

  it('a match across a chunk boundary, once, whatever the chunk size', () => {
    const dir = scratch();
    const key = mintSecret('egs', 16).token;
    const bare = secretPart(mintSecret('egm').token);
    const text = `${'lentil soup '.repeat(40)}${key} ${'x'.repeat(300)}${key}${'y'.repeat(50)} "${bare}" ${'cumin '.repeat(60)}`;
    const file = join(dir, 'big.log');
    writeFileSync(file, text, 'latin1');
    const whole = scanText(text, 0, file).map((f) => `${f.offset} ${f.hint}`);
    expect(whole.length).toBe(3);
    for (const chunk of [300, 301, 333, 400, 517, 1024, 1 << 20])
      expect(scanFile(file, false, chunk).findings.map((f) => `${f.offset} ${f.hint}`)).toEqual(whole);
  });
});

describe('what the sweep does not find', () => {
  it("a key's hint, ids, hashes, trace ids and the lengths around 43", () => {
    const { token, hash, hint, id } = mintSecret('egm');
    const text = JSON.stringify({
      msg: 'key minted',
      key_id: id,
      hint,
      hash,
      trace_id: 'tr_aB3dE5gH7jK9mN1pQ3sT',
      near: 'a'.repeat(42),
      far: 'b'.repeat(44),
      csrf_key: 'C'.repeat(64),
    });
    expect(scanText(text)).toEqual([]);
    expect(scanText(`${text} ${token}`)).toHaveLength(1); // the control: the token itself is found
  });

  it('argon2id password hashes, whose salt and hash are 43 characters of base64', async () => {
    // About half of Bun's hashes have a salt or a hash without + or /: try until one does.
    let plain = '';
    for (let i = 0; i < 40 && !plain; i++) {
      const phc = await Bun.password.hash(`password ${i}`, { algorithm: 'argon2id', memoryCost: 1024, timeCost: 1 });
      if (
        phc
          .split('$')
          .slice(-2)
          .some((f) => /^[A-Za-z0-9]{43}$/.test(f))
      )
        plain = phc;
    }
    expect(plain).not.toBe('');
    expect(scanText(`\u0001${plain}\u0002`, 0, '', true)).toEqual([]);
    // The rule is the PHC form, not any `$`: the same field after a `$` alone is found.
    const field = plain
      .split('$')
      .slice(-2)
      .find((f) => /^[A-Za-z0-9]{43}$/.test(f))!;
    expect(scanText(`cost$${field}$`)).toHaveLength(1);
  });

  it('a PKCE challenge beside its redirect URI and resource in an oauth_codes record, in a store only', () => {
    // 35 base62 characters, `-`, 7 more: joined to `callback` before it, the first part is a run of 43.
    const challenge = 'QvDSnC0OuVRItopCEpLM8vRSyddjyFT9OF2-wdFfbEM';
    const record = `\u0017acc_x\u0001http://127.0.0.1:7777/callback${challenge}http://127.0.0.1:8787/mcp-httpmemory.read`;
    expect(scanText(record, 0, 'engram.db', true)).toEqual([]);
    expect(scanText(record, 0, 'server.log', false)).toHaveLength(1);
    // A real store with such a row: clean.
    const dir = scratch();
    const db = store(dir);
    db.run(
      `INSERT INTO oauth_codes (id, secret_hash, account_id, client_id, redirect_uri, code_challenge, resource, scope, container_ids, profile, created_at, expires_at)
       VALUES ('c1', ?, 'acc_sweep', 'app_x', 'http://127.0.0.1:7777/callback', ?, 'http://127.0.0.1:8787/mcp-http', 'memory.read', '[]', 0, 1, 2)`,
      [mintSecret('ega', 16).hash, challenge],
    );
    db.close();
    expect(sweep({ harness: 'test', stores: [dir] }, '')).toMatchObject({ findings: [], databases: 1, credentials: 1 });
  });
});

describe('the harnesses fail on a finding', () => {
  // These findings are planted: they go to a ledger of their own, not to the run's.
  const runLedger = process.env.ENGRAM_HYGIENE_LEDGER;
  beforeEach(() => {
    process.env.ENGRAM_HYGIENE_LEDGER = join(scratch(), 'ledger.jsonl');
  });
  afterEach(() => {
    if (runLedger === undefined) delete process.env.ENGRAM_HYGIENE_LEDGER;
    else process.env.ENGRAM_HYGIENE_LEDGER = runLedger;
  });

  it('an in-process test server whose log got a raw key: close() throws and keeps the files', async () => {
    const server = await startTestServer();
    const owner = await makeOwner(server);
    const { key } = await makeKey(server, owner.token, { level: 'read', all_views: true });
    server.services.log.warn('a careless line', { key });
    let error: unknown;
    try {
      await server.close();
    } catch (err) {
      error = err;
    } finally {
      made.push(server.dataDir, `${server.dataDir}.logs`);
    }
    expect(error).toBeInstanceOf(SecretLeakError);
    const result = (error as SecretLeakError).result;
    expect(result.findings).toMatchObject([{ file: server.logFile, shape: 'credential', hint: hintOf(key) }]);
    expect(result.credentials).toBe(2); // the key and the owner's session
    expect(existsSync(server.dataDir)).toBe(true);
  });

  it('sweepThenRemove removes only what is clean', () => {
    const clean = scratch();
    writeFileSync(join(clean, 'a.log'), `hint ${hintOf(mintSecret('egm').token)}\n`);
    sweepThenRemove({ harness: 'test', logs: [clean] }, clean);
    expect(existsSync(clean)).toBe(false);
    const dirty = scratch();
    writeFileSync(join(dirty, 'a.log'), `${mintSecret('egm').token}\n`);
    expect(() => sweepThenRemove({ harness: 'test', logs: [dirty] }, dirty)).toThrow(SecretLeakError);
    expect(existsSync(dirty)).toBe(true);
  });

  it('the shell harness exits non-zero (the command line)', () => {
    const dir = scratch();
    writeFileSync(join(dir, 'serve.log'), `${mintSecret('egx').token}\n`);
    const run = Bun.spawnSync(
      [
        process.execPath,
        join(import.meta.dir, '../../helpers/secret-sweep.ts'),
        '--harness',
        'test',
        '--log',
        join(dir, 'serve.log'),
      ],
      { env: { ...process.env, ENGRAM_HYGIENE_LEDGER: '' } },
    );
    expect(run.exitCode).toBe(1);
    expect(run.stderr.toString()).toContain('1 FINDINGS');
  });
});

describe('the ledger and its report', () => {
  it('one line per sweep with files, bytes, credentials and findings; the report fails on a finding or too few sweeps', () => {
    const dir = scratch();
    const ledger = join(dir, 'ledger.jsonl');
    const data = join(dir, 'data');
    store(data).close();
    const clean = sweep({ harness: 'clean', stores: [data] }, ledger);
    expect(clean).toMatchObject({ stores: 1, databases: 1, credentials: 0, findings: [] });
    expect(report(ledger, { clean: 1 }).problems).toEqual([]);
    expect(report(ledger, { clean: 2 }).problems).toEqual([
      'clean: 1 sweeps, expected at least 2 (is its hook broken?)',
    ]);
    expect(report(ledger, { other: 1 }).problems).toHaveLength(1);

    writeFileSync(join(dir, 'leak.log'), `${mintSecret('egm').token}\n`);
    sweep({ harness: 'dirty', logs: [join(dir, 'leak.log')] }, ledger);
    const lines = readFileSync(ledger, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toMatchObject([
      { harness: 'clean', findingCount: 0 },
      { harness: 'dirty', logs: 1, files: 1, findingCount: 1 },
    ]);
    const { text, problems } = report(ledger, { clean: 1, dirty: 1 });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain('dirty: credential egm_');
    expect(text).toContain('1 stores (1 databases) and 1 logs searched');
    expect(report(join(dir, 'none.jsonl')).problems).toHaveLength(1);
  });
});
