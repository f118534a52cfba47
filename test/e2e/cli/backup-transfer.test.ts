/** `engram backup`/`restore` and `export`/`import`, run as commands against real data directories. */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EXTRACT_SYSTEM } from '../../../src/learning/fact-extractor';
import { MERGE_SYSTEM } from '../../../src/agent/merge-static-fact';
import { type ChatRequest, startFakeModel } from '../../agent/fake-model';
import { EXPORT_CONTAINER, EXPORT_DOCUMENT, EXPORT_FACT, EXPORT_HEADER } from '../../helpers/imports';
import { sweepThenRemove } from '../../helpers/secret-sweep';
import { call, makeContainer, makeKey, makeOwner, startTestServer, type TestServer } from '../../helpers/server';
import { engram, importInto, normalized, parse } from './engram-command';

/** Backups, exports and scratch data directories: swept for secrets and removed after the file's tests. */
const work = mkdtempSync(join(tmpdir(), 'engram-transfer-'));
afterAll(() => void sweepThenRemove({ harness: 'bun:backup-transfer', stores: [work] }, work));

async function writeFile(name: string, lines: string | unknown[]): Promise<string> {
  const file = join(mkdtempSync(join(work, 'export-')), name);
  await Bun.write(file, typeof lines === 'string' ? lines : lines.map((l) => JSON.stringify(l)).join('\n'));
  return file;
}

describe('backup and restore', () => {
  let server: TestServer;
  let key: string;
  let doc: string;
  const backup = join(work, 'copy.db');

  beforeAll(async () => {
    server = await startTestServer();
    const owner = (await makeOwner(server)).token;
    const container = await makeContainer(server, owner, 'Travel');
    key = (await makeKey(server, owner, { level: 'manage', containers: [container], profile: true })).key;
    doc = (
      await call(server, 'POST', '/v1/documents', key, {
        content: 'The passport expires in May.',
        custom_id: 'passport',
      })
    ).body.id;
    await server.learning.drain();
  });
  afterAll(() => server.close());

  it('copies the store while the server runs, and the copy restores into a working server', async () => {
    const made = engram(['backup', backup, '--data', server.dataDir]);
    expect(made.code).toBe(0);
    // Written after the backup: must not be in it.
    await call(server, 'POST', '/v1/documents', key, { content: 'Later note.', custom_id: 'later' });

    const restoredDir = mkdtempSync(join(work, 'restored-'));
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
    const junk = join(work, 'not-a-backup.db');
    await Bun.write(junk, 'hello');
    const bad = engram(['restore', junk, '--data', mkdtempSync(join(work, 'x-'))]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('is not an Engram backup');
  });

  it('refuses to restore under another program that has the store open, and restores once it has closed it', async () => {
    const dir = mkdtempSync(join(work, 'held-'));
    expect(engram(['restore', backup, '--data', dir]).code).toBe(0);
    expect(engram(['containers', 'list', '--data', dir]).code).toBe(0); // opened by Engram once: in WAL mode, as a server leaves it
    // A database browser, as a person would leave one open: Python's sqlite3, a read, then idle.
    const hold =
      'import sqlite3, sys, time\nc = sqlite3.connect(sys.argv[1])\nc.execute("select count(*) from documents").fetchone()\nprint("open", flush=True)\ntime.sleep(60)';
    const holder = Bun.spawn(['python3', '-c', hold, join(dir, 'engram.db')], { stdout: 'pipe', stderr: 'inherit' });
    try {
      const reader = (holder.stdout as ReadableStream<Uint8Array>).getReader();
      expect(new TextDecoder().decode((await reader.read()).value)).toContain('open');
      const refused = engram(['restore', backup, '--data', dir]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(`Another program has ${join(dir, 'engram.db')} open`);
    } finally {
      holder.kill();
      await holder.exited;
    }
    expect(engram(['restore', backup, '--data', dir]).code).toBe(0);
    expect(existsSync(join(dir, 'engram.db-wal'))).toBe(false);
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
    const target = await startTestServer();
    try {
      const owner = (await makeOwner(source)).token;
      const a = await makeContainer(source, owner, 'Food');
      const b = await makeContainer(source, owner, 'Work');
      // The owner keeps work facts out of the profile: the switch travels with the container.
      expect((await call(source, 'PATCH', `/v1/containers/${b}`, owner, { learns_into_profile: false })).status).toBe(
        200,
      );
      const { id: keyId, key } = await makeKey(source, owner, { level: 'manage', all_views: true, profile: true });
      await call(source, 'POST', '/v1/documents', key, {
        container: a,
        content: 'Oatmeal for breakfast.',
        custom_id: 'oats',
        metadata: { source: 'chat' },
        title: 'Breakfast',
      });
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

      await makeOwner(target, 'second@example.org');
      await target.stop();
      const file = await writeFile('export.jsonl', exported.stdout);
      const imported = engram(['import', file, '--data', target.dataDir]);
      expect(imported.code).toBe(0);
      expect(imported.stderr).toContain('2 new containers, 2 documents');
      const again = engram(['export', '--data', target.dataDir]);
      // The key-bound rule has no key to hold it on the new server, so it holds for the account.
      const expected = normalized(exported.stdout).map((l: any) =>
        l.type === 'rule' ? { ...l, credential_id: null } : l,
      );
      expect(
        expected.filter((l: any) => l.type === 'container').map((l: any) => [l.name, l.learns_into_profile]),
      ).toEqual([
        ['Food', true],
        ['Work', false],
      ]);
      expect(normalized(again.stdout)).toEqual(expected);

      // Importing the same file twice adds nothing (test/e2e/cli/import-twice.test.ts has the rest).
      const twice = engram(['import', file, '--data', target.dataDir]);
      expect(twice.stderr).toContain(
        '0 new containers, 0 documents (0 already there), 0 facts, 0 rules; skipped 2 containers, 2 documents, 2 facts and 2 rules already imported.',
      );
      expect(normalized(engram(['export', '--data', target.dataDir]).stdout)).toEqual(expected);
    } finally {
      await source.close();
      await target.close();
    }
  }, 30_000); // five commands spawned, on a machine that may be busy

  describe('what a model learned travels with it, and is not learned again', () => {
    // Three paragraphs of filler put the piano in the second passage (position 1).
    const filler = (n: number) => 'The weather was mild and the market was busy. '.repeat(n).trim();
    const SUNDAY = `Notes from Sunday. ${filler(13)}\n\nI live in Paris, near the canal.\n\n${filler(15)}\n\nLast week I started the piano.`;

    /** The source's model: facts from the diary, and a plain "add" for a static fact. */
    function sourceModel(req: ChatRequest) {
      if (req.messages[0]!.content === MERGE_SYSTEM) return { action: 'add', fact: null, content: null };
      if (req.messages[0]!.content !== EXTRACT_SYSTEM) return { httpStatus: 400 };
      const user = req.messages[1]!.content;
      const known = [...user.matchAll(/^\(F(\d+)\) (.*)$/gm)].map((m) => ({ n: Number(m[1]), text: m[2]! }));
      const facts: unknown[] = [];
      for (const m of user.matchAll(/^\[(\d+)\] (.*)$/gm)) {
        const [n, text] = [Number(m[1]), m[2]!];
        if (text.includes('I live in Paris')) facts.push({ content: 'Lives in Paris.', passage: n, standing: true });
        if (text.includes('piano')) facts.push({ content: 'Started learning the piano.', passage: n, standing: false });
        if (text.includes('moved to Berlin'))
          facts.push({
            content: 'Lives in Berlin.',
            passage: n,
            standing: true,
            replaces: known.find((k) => k.text.includes('Paris'))?.n,
          });
      }
      return { facts };
    }

    it("keeps each fact's source and history, documents' states and times; the importing model extracts nothing", async () => {
      let pageHits = 0;
      const pages = Bun.serve({
        hostname: '127.0.0.1',
        port: 0,
        fetch(req) {
          pageHits++;
          if (new URL(req.url).pathname !== '/trip.html') return new Response('missing', { status: 404 });
          return new Response(
            '<html><head><title>Trip plans</title></head><body><p>We booked the ferry to Hydra for the second week of June.</p></body></html>',
            { headers: { 'Content-Type': 'text/html; charset=utf-8' } },
          );
        },
      });
      const base = `http://127.0.0.1:${pages.port}`;
      const model = startFakeModel(sourceModel);
      const targetModel = startFakeModel(() => ({ facts: [] }));
      const modelEnv = (url: string) => ({ ENGRAM_MODEL_URL: url, ENGRAM_MODEL: 'm', ENGRAM_MODEL_RETRIES: '0' });
      const source = await startTestServer({ env: { ...modelEnv(model.url), ENGRAM_FETCH_ALLOW_PRIVATE: 'true' } });
      // No ENGRAM_FETCH_ALLOW_PRIVATE: the target could not read the page even if it tried.
      const target = await startTestServer({ env: modelEnv(targetModel.url) });
      try {
        const owner = (await makeOwner(source)).token;
        const diary = (
          await call(source, 'POST', '/v1/containers', owner, { name: 'Diary', description: 'What happens at home' })
        ).body.id;
        const work = await makeContainer(source, owner, 'Work');
        const { id: keyId, key } = await makeKey(source, owner, { level: 'manage', all_views: true, profile: true });
        const add = async (body: Record<string, unknown>) => {
          const id = (await call(source, 'POST', '/v1/documents', key, body)).body.id as string;
          source.clock.advance(60_000); // learned a minute after it was added: the times differ
          await source.learning.drain();
          source.clock.advance(60_000);
          return id;
        };
        await add({
          container: diary,
          content: SUNDAY,
          custom_id: 'sunday',
          title: 'Sunday',
          metadata: { mood: 'calm' },
        });
        await add({ container: diary, content: 'Big news: I moved to Berlin in March.' });
        await add({ container: work, url: `${base}/trip.html` });
        await add({ container: work, url: `${base}/gone` });
        await call(source, 'POST', '/v1/memories', key, { container: work, content: 'Stand-up is at 9:30.' });
        await call(source, 'POST', '/v1/memories', key, { content: 'I am vegetarian.', static: true });
        await call(source, 'POST', '/v1/rules', owner, { text: 'Never share work notes with shopping apps.' });
        await call(source, 'POST', '/v1/rules', owner, {
          text: 'This key reads the diary only.',
          credential_id: keyId,
        });
        await source.stop();
        await pages.stop(true);
        const hitsBefore = pageHits;

        const exported = engram(['export', '--data', source.dataDir]);
        expect(exported.code).toBe(0);
        for (const secret of [key, 'egm_', 'egs_', owner, 'secret_hash', 'password'])
          expect(exported.stdout).not.toContain(secret);
        const lines = parse(exported.stdout);
        expect(lines[0]).toMatchObject({ type: 'header', format: 'engram-export', version: 2 });
        const docs = lines.filter((l) => l.type === 'document');
        const facts = lines.filter((l) => l.type === 'fact');
        const [sunday, berlin, trip, gone] = docs;
        expect(docs.map((d) => d.status)).toEqual(['learned', 'learned', 'learned', 'failed']);
        expect(gone.error).toContain('404');
        expect(sunday.learned_at).toBe(sunday.created_at + 60_000);
        expect(trip.passages).toEqual([
          { position: 0, title: 'Trip plans', content: 'We booked the ferry to Hydra for the second week of June.' },
        ]);
        expect(
          facts.map((f) => [
            f.content,
            f.source && docs.indexOf(docs.find((d) => d.id === f.source.document)),
            f.source?.position ?? null,
          ]),
        ).toEqual([
          ['Lives in Berlin.', 1, 0],
          ['Started learning the piano.', 0, 1],
          ['Stand-up is at 9:30.', null, null],
          ['I am vegetarian.', null, null],
        ]);
        expect(facts[0].history).toEqual([{ content: 'Lives in Paris.', replaced_at: berlin.learned_at }]);

        const targetOwner = (await makeOwner(target, 'second@example.org')).token;
        const targetKey = (await makeKey(target, targetOwner, { level: 'manage', all_views: true, profile: true })).key;
        // Imported into the running server, which learns the documents again.
        const imported = importInto(target, await writeFile('export.jsonl', exported.stdout));
        expect(imported.code).toBe(0);
        expect(imported.stderr).toContain('2 new containers, 4 documents (0 already there), 4 facts, 2 rules');
        await target.learning.drain();
        expect(targetModel.requests).toHaveLength(0);
        expect(pageHits).toBe(hitsBefore);

        const again = engram(['export', '--data', target.dataDir]);
        const expected = normalized(exported.stdout).map((l) =>
          l.type === 'rule' ? { ...l, credential_id: null } : l,
        );
        expect(normalized(again.stdout)).toEqual(expected);

        // The facts' sources are the imported documents; the history came along.
        const profile = (await call(target, 'GET', '/v1/profile', targetKey)).body;
        const lives = profile.static.find((f: any) => f.content === 'Lives in Berlin.');
        const piano = profile.dynamic.find((f: any) => f.content === 'Started learning the piano.');
        expect((await call(target, 'GET', `/v1/documents/${lives.source.document_id}`, targetKey)).body).toMatchObject({
          content: 'Big news: I moved to Berlin in March.',
          learned: true,
        });
        expect(piano.source.position).toBe(1);
        expect((await call(target, 'GET', `/v1/documents/${piano.source.document_id}`, targetKey)).body).toMatchObject({
          custom_id: 'sunday',
          learned: true,
        });
        const accountId = (await target.services.store.accounts.getByEmail('second@example.org'))!.id;
        expect((await target.services.store.facts.listHistory(accountId, lives.id)).map((h) => h.content)).toEqual([
          'Lives in Paris.',
        ]);
        expect(profile.static.map((f: any) => f.content).sort()).toEqual(['I am vegetarian.', 'Lives in Berlin.']);
        expect(profile.dynamic.map((f: any) => f.content).sort()).toEqual([
          'Stand-up is at 9:30.',
          'Started learning the piano.',
        ]);

        // Search finds the imported documents' passages, the page's too, read from the file.
        const containers = (await call(target, 'GET', '/v1/containers', targetKey)).body.containers;
        const idOf = (name: string) => containers.find((c: any) => c.name === name).id;
        expect(containers.find((c: any) => c.name === 'Diary').description).toBe('What happens at home');
        const canal = (await call(target, 'POST', '/v1/search', targetKey, { q: 'canal', container: idOf('Diary') }))
          .body.results;
        expect(canal[0].document_id).toBe(piano.source.document_id);
        const ferry = (
          await call(target, 'POST', '/v1/search', targetKey, { q: 'ferry to Hydra', container: idOf('Work') })
        ).body.results;
        expect(ferry[0]).toMatchObject({
          title: 'Trip plans',
          content: 'We booked the ferry to Hydra for the second week of June.',
        });
        const listed = (await call(target, 'GET', `/v1/documents?container=${idOf('Work')}`, targetKey)).body.documents;
        expect(listed.map((d: any) => [d.url?.replace(base, ''), d.status])).toEqual([
          ['/gone', 'failed'],
          ['/trip.html', 'learned'],
        ]);

        // The same file again adds nothing: every document and fact was brought by the first import.
        expect(importInto(target, await writeFile('export.jsonl', exported.stdout)).stderr).toContain(
          '0 documents (0 already there), 0 facts, 0 rules; skipped 2 containers, 4 documents, 4 facts and 2 rules already imported.',
        );
        await target.learning.drain();
        expect(targetModel.requests).toHaveLength(0);
        const pianos = (await call(target, 'GET', '/v1/profile', targetKey)).body.dynamic.filter(
          (f: any) => f.content === 'Started learning the piano.',
        );
        expect(pianos.map((f: any) => f.source.document_id)).toEqual([piano.source.document_id]);
      } finally {
        await pages.stop(true);
        await source.close();
        await target.close();
        await model.stop();
        await targetModel.stop();
      }
    });

    it('learns in full a document that was still queued when exported: its facts were never extracted', async () => {
      const source = await startTestServer();
      const model = startFakeModel(sourceModel);
      const target = await startTestServer({
        env: { ENGRAM_MODEL_URL: model.url, ENGRAM_MODEL: 'm', ENGRAM_MODEL_RETRIES: '0' },
      });
      try {
        const owner = (await makeOwner(source)).token;
        const diary = await makeContainer(source, owner, 'Diary');
        const { key } = await makeKey(source, owner, { level: 'manage', all_views: true });
        await call(source, 'POST', '/v1/documents', key, {
          container: diary,
          content: 'Last week I started the piano.',
        });
        await source.learning.drain(); // learned (without a model: no facts)
        await call(source, 'POST', '/v1/documents', key, {
          container: diary,
          content: 'I live in Paris, near the canal.',
          custom_id: 'late',
        });
        await source.stop();
        const exported = engram(['export', '--data', source.dataDir]);
        expect(
          parse(exported.stdout)
            .filter((l) => l.type === 'document')
            .map((d) => d.status),
        ).toEqual(['learned', 'queued']);

        const targetOwner = (await makeOwner(target)).token;
        const targetKey = (await makeKey(target, targetOwner, { level: 'manage', all_views: true, profile: true })).key;
        expect(importInto(target, await writeFile('export.jsonl', exported.stdout)).code).toBe(0);
        await target.learning.drain();
        // One extraction, for the queued document only.
        expect(model.requests).toHaveLength(1);
        expect(model.requests[0]!.messages[1]!.content).toContain('I live in Paris');
        expect(model.requests[0]!.messages[1]!.content).not.toContain('piano');
        const profile = (await call(target, 'GET', '/v1/profile', targetKey)).body;
        expect(profile.static.map((f: any) => f.content)).toEqual(['Lives in Paris.']);
        expect(
          (await call(target, 'GET', `/v1/documents/${profile.static[0].source.document_id}`, targetKey)).body
            .custom_id,
        ).toBe('late');
        expect(profile.dynamic).toEqual([]);
      } finally {
        await source.close();
        await target.close();
        await model.stop();
      }
    });

    it('still imports a version-1 file: documents learned again for search, its facts not extracted twice', async () => {
      const model = startFakeModel(sourceModel);
      const target = await startTestServer({
        env: { ENGRAM_MODEL_URL: model.url, ENGRAM_MODEL: 'm', ENGRAM_MODEL_RETRIES: '0' },
      });
      try {
        const owner = (await makeOwner(target)).token;
        const key = (await makeKey(target, owner, { level: 'manage', all_views: true, profile: true })).key;
        const file = await writeFile('v1.jsonl', [
          { type: 'header', format: 'engram-export', version: 1, exported_at: '2025-06-01T00:00:00.000Z' },
          { type: 'container', id: 'ctr_old', name: 'Diary', description: 'Home', created_at: 1_700_000_000_000 },
          {
            type: 'document',
            container: 'ctr_old',
            title: null,
            content: 'I live in Paris, near the canal.',
            url: null,
            custom_id: 'home',
            metadata: null,
            created_at: 1_700_000_001_000,
          },
          {
            type: 'fact',
            container: null,
            content: 'Lives in Paris.',
            title: null,
            static: true,
            created_at: 1_700_000_002_000,
            updated_at: 1_700_000_002_000,
          },
          {
            type: 'fact',
            container: 'ctr_old',
            content: 'Walks by the canal.',
            title: null,
            static: false,
            created_at: 1_700_000_003_000,
            updated_at: 1_700_000_003_000,
          },
          { type: 'rule', text: 'Keep it private.', credential_id: null, created_at: 1_700_000_004_000 },
        ]);
        const run = importInto(target, file);
        expect(run.code).toBe(0);
        expect(run.stderr).toContain('1 new container, 1 document (0 already there), 2 facts, 1 rule');
        await target.learning.drain();
        expect(model.requests).toHaveLength(0);
        const profile = (await call(target, 'GET', '/v1/profile', key)).body;
        expect(profile.static.map((f: any) => [f.content, f.source ?? null])).toEqual([['Lives in Paris.', null]]);
        expect(profile.dynamic.map((f: any) => f.content)).toEqual(['Walks by the canal.']);
        const diary = (await call(target, 'GET', '/v1/containers', key)).body.containers[0];
        const hits = (await call(target, 'POST', '/v1/search', key, { q: 'near the canal', container: diary.id })).body
          .results;
        expect(hits.some((h: any) => h.document_id && h.content.includes('I live in Paris'))).toBe(true);
        const doc = (await call(target, 'GET', '/v1/documents', key)).body.documents[0];
        expect(doc).toMatchObject({
          custom_id: 'home',
          learned: true,
          created_at: new Date(1_700_000_001_000).toISOString(),
        });
        // Written back out, it is a version-2 export.
        expect(parse(engram(['export', '--data', target.dataDir]).stdout)[0].version).toBe(2);
      } finally {
        await target.close();
        await model.stop();
      }
    });
  });

  it('points a fact at the document already there when its custom_id is, and drops a source the file does not hold', async () => {
    const server = await startTestServer();
    try {
      const owner = (await makeOwner(server)).token;
      const diary = await makeContainer(server, owner, 'Diary');
      const key = (await makeKey(server, owner, { level: 'manage', all_views: true, profile: true })).key;
      const existing = (
        await call(server, 'POST', '/v1/documents', key, {
          container: diary,
          content: 'My own copy.',
          custom_id: 'sunday',
        })
      ).body.id;
      const doc = {
        type: 'document',
        container: 'ctr_1',
        title: null,
        url: null,
        metadata: null,
        error: null,
        learned_at: 2_000,
        passages: null,
        status: 'learned',
        created_at: 1_000,
        updated_at: 2_000,
      };
      const fact = {
        type: 'fact',
        container: null,
        title: null,
        static: true,
        created_at: 3_000,
        updated_at: 3_000,
        history: [],
      };
      const file = await writeFile('v2.jsonl', [
        { type: 'header', format: 'engram-export', version: 2, exported_at: '2026-01-01T00:00:00.000Z' },
        { type: 'container', id: 'ctr_1', name: 'Diary', description: '', created_at: 1, updated_at: 1 },
        { ...doc, id: 'doc_a', content: 'Their copy.', custom_id: 'sunday' },
        { ...doc, id: 'doc_b', content: 'Another note.', custom_id: null },
        { ...fact, content: 'From the existing one.', source: { document: 'doc_a', position: 0 } },
        { ...fact, content: 'From the new one.', source: { document: 'doc_b', position: 0 } },
        { ...fact, content: 'From a deleted one.', source: { document: 'doc_deleted', position: 2 } },
      ]);
      const run = engram(['import', file, '--data', server.dataDir]);
      expect(run.code).toBe(0);
      expect(run.stderr).toContain('0 new containers, 1 document (1 already there), 3 facts');
      expect(run.stderr).toContain('1 fact names a source document the file does not hold');
      const facts = (await call(server, 'GET', '/v1/profile', key)).body.static;
      const sourceOf = (content: string) => facts.find((f: any) => f.content === content).source?.document_id ?? null;
      expect(sourceOf('From the existing one.')).toBe(existing);
      const added = (await call(server, 'GET', '/v1/documents', key)).body.documents.find(
        (d: any) => d.content === undefined && d.custom_id === null,
      );
      expect(sourceOf('From the new one.')).toBe(added.id);
      expect(sourceOf('From a deleted one.')).toBeNull();
    } finally {
      await server.close();
    }
  });

  describe('a refused file changes nothing', () => {
    let server: TestServer;
    beforeAll(async () => {
      server = await startTestServer();
      await makeOwner(server);
    });
    afterAll(() => server.close());

    // The shared export lines (test/helpers/imports.ts), each refusal changing one thing.
    const header = (version: number) => ({ ...EXPORT_HEADER, version });
    const container = EXPORT_CONTAINER;
    const document = EXPORT_DOCUMENT;

    async function refused(lines: string | unknown[], message: string) {
      const run = importInto(server, await writeFile('bad.jsonl', lines));
      expect(run.stderr).toContain(message);
      expect(run.code).toBe(1);
      const accountId = (await server.services.store.accounts.list())[0]!.id;
      expect(await server.services.store.containers.list(accountId)).toEqual([]);
      expect((await server.services.store.documents.listInInsertOrder(accountId, 0, 10)).documents).toEqual([]);
      expect(await server.services.store.facts.list(accountId)).toEqual([]);
      expect(await server.learning.drain()).toBe(0); // no job was queued either
    }

    it('when a line is not JSON', async () => {
      await refused(
        [JSON.stringify(header(1)), JSON.stringify(container), '{not json'].join('\n'),
        'bad.jsonl:3:3: not valid JSON',
      );
    });

    it('when a line has a type it does not know, names from Object.prototype included', async () => {
      for (const type of ['constructor', '__proto__', 'toString'])
        await refused(
          [header(2), container, { ...document, type }],
          'bad.jsonl:3:1: a line of a type an export does not have.',
        );
    }, 30_000);

    it('when the version is one this engram does not read', async () => {
      await refused(
        [header(3), container, document],
        'bad.jsonl:1:1: this Engram export is of version 3; this engram reads versions 1 and 2.',
      );
    });

    it('when it is not an export at all', async () => {
      await refused([container, document], 'bad.jsonl:1:1: this is not an Engram export');
      await refused('', 'bad.jsonl: the file is empty');
    });

    it('when a later line is not what its version says, or names a container the file did not list', async () => {
      const { status: _, ...unstated } = document;
      await refused([header(2), container, unstated], 'bad.jsonl:3:1: not a valid document line: status');
      const fact = { ...EXPORT_FACT, container: 'ctr_other' };
      await refused(
        [header(2), container, document, fact],
        'bad.jsonl:4:1: names a container the export did not list: ctr_other.',
      );
    });
  });
});
