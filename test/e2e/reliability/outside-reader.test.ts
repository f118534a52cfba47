/**
 * "Everything lives in one SQLite file", so people open it: the `sqlite3` shell, a backup tool, a
 * database browser. Such a client, when it closes, deletes the -wal and -shm files if no other
 * process holds a lock on the store: a server that lost its POSIX locks then goes on writing into
 * a WAL that no longer has a name, and everything it acknowledges from then on is gone at the next
 * kill. These tests run the real `engram serve` as its own process, hold it to keeping its locks
 * (/proc/locks) for its whole life, and prove the loss the way it was found: an outside reader
 * while the server runs, more acknowledged writes of every kind, kill -9, restart, all present.
 */
import { afterEach, beforeEach, describe, expect, it } from 'bun:test';
import { Database } from 'bun:sqlite';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { engram, ROOT, type Served, spawnServer } from '../../../bench/lib/engram-process';
import { locksHeld, readFromOutside } from '../../../bench/lib/outside-reader';
import { sweepThenRemove } from '../../helpers/secret-sweep';

let home: string;
let data: string;
let starts = 0;
let server: Served | null = null;
let container: string;
let owner: string;
/** The key made before the server started (Full access, all containers, profile). */
let key: string;

const PASSWORD = 'correct horse battery staple';
const store = () => join(data, 'engram.db');
const json = { 'Content-Type': 'application/json' };
/** An `engram` command as its own process, without blocking this one (so the writes go on meanwhile). */
async function engramAsync(args: string[]): Promise<void> {
  const proc = Bun.spawn([process.execPath, join(ROOT, 'src/main.ts'), ...args, '--data', data], {
    cwd: ROOT,
    env: { ...process.env, ENGRAM_LOG_LEVEL: 'warn' },
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const [err, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`engram ${args.join(' ')} exited ${code}: ${err}`);
}
const start = async () => (server = await spawnServer(data, {}, join(home, `serve-${++starts}.log`)));

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'engram-outside-reader-'));
  data = join(home, 'data');
  engram(data, ['owner', 'create', '--email', 'reader@example.org'], `${PASSWORD}\n`);
  container = engram(data, ['containers', 'create', 'Notes']);
  key = engram(data, ['keys', 'create', '--name', 'first', '--level', 'manage', '--all', '--profile']);
  owner = engram(data, ['owner', 'token']);
});

afterEach(async () => {
  server?.proc.kill('SIGKILL');
  await server?.proc.exited;
  server = null;
  sweepThenRemove({ harness: 'bun:outside-reader', stores: [data], logs: [home] }, home);
});

async function call(
  method: string,
  path: string,
  bearer: string,
  body?: unknown,
): Promise<{ status: number; body: any }> {
  const res = await fetch(`${server!.url}${path}`, {
    method,
    headers: { Authorization: `Bearer ${bearer}`, ...json },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

/** What was acknowledged, so that it can be looked for after the restart. */
interface Acked {
  documents: string[];
  facts: string[];
  keys: string[];
  revoked: string[];
}

/** Writes of every kind, each acknowledged: two documents, a container fact, a standing fact, two new keys, and a revocation (7). */
async function writeEveryKind(tag: string, acked: Acked): Promise<number> {
  for (const n of [1, 2]) {
    const doc = await call('POST', '/v1/documents', key, {
      container,
      custom_id: `${tag}-doc${n}`,
      content: `Document ${n} of ${tag}: a lentil soup with cumin.`,
    });
    expect(doc.status).toBe(202);
    acked.documents.push(`${tag}-doc${n}`);
  }
  for (const standing of [false, true]) {
    const content = `${standing ? 'Standing' : 'Container'} fact of ${tag}: likes green tea.`;
    const fact = await call('POST', '/v1/memories', key, standing ? { content, static: true } : { container, content });
    expect(fact.status).toBe(201);
    acked.facts.push(content);
  }
  const minted = await call('POST', '/v1/api-keys', owner, { name: `key ${tag}`, level: 'read', all_views: true });
  expect(minted.status).toBe(201);
  acked.keys.push(minted.body.key);
  // The key minted just now is revoked at once: both the mint and the revocation are acknowledged writes.
  const doomed = await call('POST', '/v1/api-keys', owner, { name: `doomed ${tag}`, level: 'read', all_views: true });
  expect(doomed.status).toBe(201);
  expect((await call('DELETE', `/v1/exposures/${doomed.body.id}`, owner)).status).toBe(200);
  acked.revoked.push(doomed.body.key);
  return 7;
}

/** After kill -9 and a restart: every acknowledged write is there, and every revoked key is refused. */
async function expectAllPresent(acked: Acked): Promise<void> {
  const listed = await call('GET', `/v1/documents?container=${container}&limit=100`, key);
  expect(listed.status).toBe(200);
  expect(listed.body.documents.map((d: { custom_id: string }) => d.custom_id).sort()).toEqual(
    [...acked.documents].sort(),
  );
  for (const k of acked.keys) expect((await call('GET', '/v1/containers', k)).status).toBe(200);
  for (const k of acked.revoked) expect((await call('GET', '/v1/containers', k)).status).toBe(403);
  const db = new Database(store(), { readonly: true });
  try {
    const stored = new Set(
      db
        .query<{ content: string }, []>('SELECT content FROM memories')
        .all()
        .map((r) => r.content),
    );
    expect(acked.facts.filter((f) => !stored.has(f))).toEqual([]);
  } finally {
    db.close();
  }
}

/** Waits until learning has run (the learning thread has its own connection to the store by then). */
async function untilLearned(documentCustomId: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    const { body } = await call('GET', `/v1/documents?container=${container}&limit=100`, key);
    if (
      body.documents.some((d: { custom_id: string; learned: boolean }) => d.custom_id === documentCustomId && d.learned)
    )
      return;
    await Bun.sleep(50);
  }
  throw new Error(`${documentCustomId} was not learned within 20 s`);
}

describe('an outside SQLite client while the server runs', () => {
  it('finds the server holding its locks on the store, its shared memory and the lock file for its whole life', async () => {
    await start();
    const files = ['engram.db', 'engram.db-shm', 'server.lock'];
    // Sampled every 10 ms from the first healthy answer on: through learning (the learning thread
    // opens its own connection), outside readers, and more writes.
    const missing: string[] = [];
    let samples = 0;
    let polling = true;
    const poller = (async () => {
      while (polling) {
        for (const file of files)
          if (locksHeld(server!.proc.pid, join(data, file)).length === 0)
            missing.push(`${file} after ${samples} samples`);
        samples++;
        await Bun.sleep(10);
      }
    })();
    const acked: Acked = { documents: [], facts: [], keys: [], revoked: [] };
    await writeEveryKind('first', acked);
    await untilLearned('first-doc1');
    await readFromOutside(store());
    // The reader's close must not have taken the server's WAL away.
    expect(existsSync(`${store()}-wal`)).toBe(true);
    await writeEveryKind('second', acked);
    await untilLearned('second-doc2');
    // Learning that ends within a second leaves too short a window: the server runs on, so sample on.
    for (const deadline = Date.now() + 5000; samples <= 20 && Date.now() < deadline; ) await Bun.sleep(10);
    polling = false;
    await poller;
    expect(missing.slice(0, 5)).toEqual([]);
    expect(samples).toBeGreaterThan(20);
    console.log(
      `outside reader: the server's locks on ${files.join(', ')} found in all ${samples} samples of /proc/locks`,
    );
  }, 60_000);

  it('loses no acknowledged write of any kind after readers came and went: documents, facts, keys, revocations over kill -9', async () => {
    const readMs: number[] = [];
    let afterReaders = 0;
    await start();
    const acked: Acked = { documents: [], facts: [], keys: [], revoked: [] };
    await writeEveryKind('before', acked);
    await untilLearned('before-doc1');
    for (const round of [1, 2, 3]) {
      const t0 = performance.now();
      for (const counted of await readFromOutside(store())) expect(counted).toBe(acked.documents.length);
      readMs.push(performance.now() - t0);
      afterReaders += await writeEveryKind(`after-reader-${round}`, acked);
    }
    // The first key was made before the server started; its revocation, too, must survive.
    const first = (await call('GET', '/v1/api-keys', owner)).body.active.find(
      (k: { name: string }) => k.name === 'first',
    );
    expect((await call('DELETE', `/v1/exposures/${first.id}`, owner)).status).toBe(200);
    afterReaders++;
    server!.proc.kill('SIGKILL');
    await server!.proc.exited;
    await start();
    // The revoked first key can no longer read what was written; the owner's session lists it all.
    expect((await call('GET', '/v1/containers', key)).status).toBe(403);
    key = (await call('POST', '/v1/api-keys', owner, { name: 'checker', level: 'read', all_views: true })).body.key;
    await expectAllPresent(acked);
    console.log(
      `outside reader: 3 rounds of outside readers (${readMs.map((ms) => ms.toFixed(0)).join(', ')} ms each), then ${afterReaders} acknowledged writes (documents, facts, keys, revocations): all present after kill -9`,
    );
  }, 60_000);

  it('loses no acknowledged write while `engram backup`, `engram export` and an outside reader run beside the writes', async () => {
    await start();
    const acked: Acked = { documents: [], facts: [], keys: [], revoked: [] };
    await writeEveryKind('before', acked);
    await untilLearned('before-doc1');
    const backup = join(home, 'backup.db');
    const exported = join(home, 'export.jsonl');
    // Side by side: the two commands and a reader, each a process of its own, while writes of every kind go on.
    let writing = true;
    const writer = (async () => {
      for (let round = 0; writing || round < 2; round++) await writeEveryKind(`meanwhile-${round}`, acked);
    })();
    await Promise.all([
      engramAsync(['backup', backup]),
      engramAsync(['export', '--out', exported]),
      readFromOutside(store()),
    ]);
    writing = false;
    await writer;
    await writeEveryKind('after', acked);
    server!.proc.kill('SIGKILL');
    await server!.proc.exited;
    await start();
    await expectAllPresent(acked);
    // What each made is whole: at least what was acknowledged before it started, and no more than all of it.
    const copy = new Database(backup, { readonly: true });
    try {
      expect(copy.query<{ integrity_check: string }, []>('PRAGMA integrity_check').get()!.integrity_check).toBe('ok');
      expect(copy.query<{ n: number }, []>('SELECT count(*) AS n FROM documents').get()!.n).toBeWithin(
        2,
        acked.documents.length + 1,
      );
    } finally {
      copy.close();
    }
    const lines = readFileSync(exported, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.filter((l) => l.type === 'document').length).toBeWithin(2, acked.documents.length + 1);
  }, 60_000);
});
