/**
 * Upgrading a store of the previous release (test/fixtures/release-0.1): the current server starts
 * on a copy of it, and everything the old release wrote is there and usable through the API: the
 * owner signs in with the old password, the old developer key works, containers, documents and
 * facts are listed, search finds old documents, and new writes land beside the old. The keyword
 * index's own migration on this file is tested in fts-migration.test.ts.
 */
import { Database } from 'bun:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DB_FILE, openDatabase } from '../../src/storage/sqlite/open';
import { call, startTestServer, type TestServer } from '../helpers/server';

const FIXTURE = join(import.meta.dir, '../fixtures/release-0.1');
const OLD = JSON.parse(readFileSync(join(FIXTURE, 'credentials.json'), 'utf8')) as {
  email: string;
  password: string;
  key: string;
  containers: { Personal: string; Work: string };
};

/** What the old release wrote, read straight from the fixture before any migration touches it. */
function oldRecords() {
  const db = new Database(join(FIXTURE, DB_FILE), { readonly: true });
  try {
    return {
      documents: db
        .query<{ id: string; container: string; content: string }, []>(
          'SELECT id, container_id AS container, content FROM documents ORDER BY id',
        )
        .all(),
      facts: db
        .query<{ id: string; container: string | null; content: string; static: number }, []>(
          'SELECT id, container_id AS container, content, static FROM memories ORDER BY id',
        )
        .all(),
    };
  } finally {
    db.close();
  }
}

/** A copy of the fixture in a data directory of its own. */
function fixtureCopy(): string {
  const dir = mkdtempSync(join(tmpdir(), 'engram-upgrade-'));
  copyFileSync(join(FIXTURE, DB_FILE), join(dir, DB_FILE));
  return dir;
}

/** Tables, indexes and triggers by name, and every table's columns as SQLite reports them. */
function shape(db: Database) {
  const objects = db
    .query<{ type: string; name: string }, []>(
      "SELECT type, name FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name",
    )
    .all();
  const columns = objects
    .filter((o) => o.type === 'table')
    .map((o) => ({ table: o.name, columns: db.query(`PRAGMA table_info("${o.name}")`).all() }));
  return { objects, columns };
}

describe('a store written by release 0.1, opened by the current server', () => {
  const old = oldRecords();
  let server: TestServer;
  const get = (path: string, token = OLD.key) => call(server, 'GET', path, token);
  beforeAll(async () => {
    server = await startTestServer({ dataDir: fixtureCopy() });
  });
  afterAll(() => server.close());

  it('is migrated to exactly the schema a fresh store gets', () => {
    const upgradedDir = fixtureCopy();
    const freshDir = mkdtempSync(join(tmpdir(), 'engram-upgrade-fresh-'));
    const upgraded = openDatabase(upgradedDir, Date.now());
    const fresh = openDatabase(freshDir, Date.now());
    try {
      expect(shape(upgraded)).toEqual(shape(fresh));
    } finally {
      upgraded.close();
      fresh.close();
      rmSync(upgradedDir, { recursive: true, force: true });
      rmSync(freshDir, { recursive: true, force: true });
    }
  });

  it('signs the owner in with the old password, and refuses a wrong one', async () => {
    const signedIn = await call(server, 'POST', '/v1/session', null, { email: OLD.email, password: OLD.password });
    expect(signedIn.status).toBe(201);
    const containers = await get('/v1/containers', signedIn.body.token);
    expect(containers.status).toBe(200);
    expect(containers.body.containers.map((c: any) => [c.name, c.id]).sort()).toEqual([
      ['Personal', OLD.containers.Personal],
      ['Work', OLD.containers.Work],
    ]);
    const wrong = await call(server, 'POST', '/v1/session', null, { email: OLD.email, password: `${OLD.password}!` });
    expect([wrong.status, wrong.body.code]).toEqual([403, 'unauthorized']);
  });

  it('takes the old developer key, and refuses it with a wrong secret', async () => {
    const containers = await get('/v1/containers');
    expect(containers.status).toBe(200);
    expect(containers.body.containers.map((c: any) => c.id).sort()).toEqual(
      [OLD.containers.Personal, OLD.containers.Work].sort(),
    );
    const forged = `${OLD.key.slice(0, -4)}${OLD.key.endsWith('AAAA') ? 'BBBB' : 'AAAA'}`;
    const refused = await get('/v1/containers', forged);
    expect([refused.status, refused.body.code]).toEqual([403, 'unauthorized']);
  });

  it('lists every old document in its container, learned, with its content', async () => {
    const listed: any[] = [];
    for (const container of Object.values(OLD.containers)) {
      const page = await get(`/v1/documents?container=${container}&limit=200`);
      expect(page.status).toBe(200);
      expect(page.body.next_cursor).toBeNull();
      listed.push(...page.body.documents);
    }
    expect(listed.map((d) => [d.id, d.container]).sort()).toEqual(old.documents.map((d) => [d.id, d.container]).sort());
    expect(listed.every((d) => d.learned === true)).toBe(true);
    for (const doc of old.documents.slice(0, 5)) {
      const got = await get(`/v1/documents/${doc.id}`);
      expect([got.status, got.body.content]).toEqual([200, doc.content]);
    }
  });

  it('gives the old facts in the profile: the static one and those in containers', async () => {
    const profile = await get('/v1/profile');
    expect(profile.status).toBe(200);
    expect(profile.body.static.map((f: any) => f.id)).toEqual(old.facts.filter((f) => f.static).map((f) => f.id));
    expect(profile.body.dynamic.map((f: any) => f.id).sort()).toEqual(
      old.facts
        .filter((f) => !f.static)
        .map((f) => f.id)
        .sort(),
    );
  });

  it('finds old documents by search, before and after their passages are embedded again', async () => {
    const cello = old.documents.find((d) => d.content.includes('cello'))!;
    const search = (q: string) => call(server, 'POST', '/v1/search', OLD.key, { q, container: cello.container });
    // At first start the old one-vector-a-passage table is gone (migration 0010) and every passage
    // is queued to be embedded again; meanwhile keyword search answers.
    expect((await get('/healthz')).body.learning.queue).toBeGreaterThan(0);
    const before = await search('secondhand cello');
    expect(before.status).toBe(200);
    expect(before.body.results[0].document_id).toBe(cello.id);
    await server.learning.drain();
    expect((await get('/healthz')).body.learning).toMatchObject({ queue: 0, passages: 37 });
    const after = await search('a musical instrument I bought in Ghent');
    expect(after.body.results[0].document_id).toBe(cello.id);
  });

  it('takes new writes beside the old: a document, a fact, a key', async () => {
    const added = await call(server, 'POST', '/v1/documents', OLD.key, {
      content: 'The upgraded store keeps a new note about kohlrabi.',
      container: OLD.containers.Work,
    });
    expect(added.status).toBe(202);
    const fact = await call(server, 'POST', '/v1/memories', OLD.key, {
      content: 'Grows kohlrabi on the balcony.',
      container: OLD.containers.Personal,
    });
    expect(fact.status).toBe(201);
    await server.learning.drain();
    const found = await call(server, 'POST', '/v1/search', OLD.key, { q: 'kohlrabi', container: '*' });
    expect(found.body.results.map((r: any) => r.document_id)).toContain(added.body.id);
    expect(found.body.results.map((r: any) => r.memory_id)).toContain(fact.body.id);
    const owner = (await call(server, 'POST', '/v1/session', null, { email: OLD.email, password: OLD.password })).body
      .token;
    const key = await call(server, 'POST', '/v1/api-keys', owner, {
      name: 'after the upgrade',
      level: 'read',
      containers: [OLD.containers.Work],
    });
    expect(key.status).toBe(201);
    const listed = await get(`/v1/documents?container=${OLD.containers.Work}&limit=200`, key.body.key);
    expect(listed.body.documents.length).toBe(
      old.documents.filter((d) => d.container === OLD.containers.Work).length + 1,
    );
  });
});
