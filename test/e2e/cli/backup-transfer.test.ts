/** `engram backup`/`restore` and `export`/`import`, run as commands against real data directories. */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call, makeContainer, makeKey, makeOwner, startTestServer, type TestServer } from '../../helpers/server';

const ROOT = join(import.meta.dir, '../../..');

function engram(args: string[], stdin?: string): { code: number; stdout: string; stderr: string } {
  const run = Bun.spawnSync([process.execPath, join(ROOT, 'src/main.ts'), ...args], {
    stdin: stdin === undefined ? 'ignore' : new TextEncoder().encode(stdin), env: process.env,
  });
  return { code: run.exitCode ?? -1, stdout: run.stdout.toString(), stderr: run.stderr.toString() };
}

/** An export with ids and export time taken out, so two exports of the same memory compare equal. */
function normalized(jsonl: string): unknown[] {
  const lines = jsonl.trim().split('\n').map((l) => JSON.parse(l));
  const names = new Map(lines.filter((l) => l.type === 'container').map((l) => [l.id, l.name]));
  return lines.map(({ id: _id, exported_at: _at, ...rest }) => ({ ...rest, ...(rest.container ? { container: names.get(rest.container) } : {}) }));
}

describe('backup and restore', () => {
  let server: TestServer;
  let key: string;
  let doc: string;
  const backup = join(mkdtempSync(join(tmpdir(), 'engram-backup-')), 'copy.db');

  beforeAll(async () => {
    server = await startTestServer();
    const owner = (await makeOwner(server)).token;
    const container = await makeContainer(server, owner, 'Travel');
    key = (await makeKey(server, owner, { level: 'manage', containers: [container], profile: true })).key;
    doc = (await call(server, 'POST', '/v1/documents', key, { content: 'The passport expires in May.', custom_id: 'passport' })).body.id;
    await server.learning.drain();
  });
  afterAll(() => server.close());

  it('copies the store while the server runs, and the copy restores into a working server', async () => {
    const made = engram(['backup', backup, '--data', server.dataDir]);
    expect(made.code).toBe(0);
    // Written after the backup: must not be in it.
    await call(server, 'POST', '/v1/documents', key, { content: 'Later note.', custom_id: 'later' });

    const restoredDir = mkdtempSync(join(tmpdir(), 'engram-restored-'));
    expect(engram(['restore', backup, '--data', restoredDir]).code).toBe(0);
    const restored = await startTestServer({ dataDir: restoredDir });
    try {
      const got = await call(restored, 'GET', `/v1/documents/${doc}`, key);
      expect(got.status).toBe(200);
      expect(got.body.learned).toBe(true);
      const listed = await call(restored, 'GET', '/v1/documents', key);
      expect(listed.body.documents.map((d: { custom_id: string }) => d.custom_id)).toEqual(['passport']);
      const found = await call(restored, 'POST', '/v1/search', key, { q: 'passport' });
      expect(found.body.results[0].content).toContain('May');
    } finally {
      await restored.close();
    }
  });

  it('refuses to restore over a running server, and refuses a file that is not a backup', async () => {
    const busy = engram(['restore', backup, '--data', server.dataDir]);
    expect(busy.code).toBe(1);
    expect(busy.stderr).toContain('Another Engram server is already using');
    const junk = join(tmpdir(), `not-a-backup-${process.pid}.db`);
    await Bun.write(junk, 'hello');
    const bad = engram(['restore', junk, '--data', mkdtempSync(join(tmpdir(), 'engram-x-'))]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('is not an Engram backup');
  });

  it('will not overwrite an existing file with a backup', () => {
    const again = engram(['backup', backup, '--data', server.dataDir]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('already exists');
  });
});

describe('export and import', () => {
  it('round-trips an account into another server without loss, and without secrets', async () => {
    const source = await startTestServer();
    const owner = (await makeOwner(source)).token;
    const a = await makeContainer(source, owner, 'Food');
    const b = await makeContainer(source, owner, 'Work');
    const { id: keyId, key } = await makeKey(source, owner, { level: 'manage', all_views: true, profile: true });
    await call(source, 'POST', '/v1/documents', key, { container: a, content: 'Oatmeal for breakfast.', custom_id: 'oats', metadata: { source: 'chat' }, title: 'Breakfast' });
    await call(source, 'POST', '/v1/documents', key, { container: b, url: 'https://example.org/plan' });
    await call(source, 'POST', '/v1/memories', key, { container: b, content: 'Stand-up is at 9:30.' });
    await call(source, 'POST', '/v1/memories', key, { content: 'I am vegetarian.', static: true });
    await call(source, 'POST', '/v1/rules', owner, { text: 'Never share work notes with shopping apps.' });
    await call(source, 'POST', '/v1/rules', owner, { text: 'This key reads food only.', credential_id: keyId });
    await source.stop();

    const exported = engram(['export', '--data', source.dataDir]);
    expect(exported.code).toBe(0);
    expect(exported.stdout).not.toContain(key);
    expect(exported.stdout).not.toContain('egm_');

    const target = await startTestServer();
    await makeOwner(target, 'second@example.org');
    await target.stop();
    const file = join(tmpdir(), `export-${process.pid}.jsonl`);
    await Bun.write(file, exported.stdout);
    const imported = engram(['import', file, '--data', target.dataDir]);
    expect(imported.code).toBe(0);
    expect(imported.stderr).toContain('2 new containers, 2 documents');
    const again = engram(['export', '--data', target.dataDir]);
    // The key-bound rule has no key to hold it on the new server, so it holds for the account.
    const expected = normalized(exported.stdout).map((l: any) => (l.type === 'rule' ? { ...l, credential_id: null } : l));
    expect(normalized(again.stdout)).toEqual(expected);

    // Importing the same file twice adds no second copy of a document with a custom_id.
    const twice = engram(['import', file, '--data', target.dataDir]);
    expect(twice.stderr).toContain('0 new containers, 1 documents (1 already there)');
  });

  it('changes nothing when a line of the file is bad', async () => {
    const server = await startTestServer();
    await makeOwner(server);
    await server.stop();
    const file = join(tmpdir(), `bad-export-${process.pid}.jsonl`);
    await Bun.write(file, [
      JSON.stringify({ type: 'header', format: 'engram-export', version: 1, exported_at: '2026-01-01T00:00:00Z' }),
      JSON.stringify({ type: 'container', id: 'ctr_x', name: 'Kept?', description: '', created_at: 1 }),
      '{not json',
    ].join('\n'));
    const run = engram(['import', file, '--data', server.dataDir]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('Line 3 is not JSON');
    expect(engram(['containers', 'list', '--data', server.dataDir]).stdout.trim()).toBe('');
  });
});
