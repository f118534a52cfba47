/**
 * `engram import` run twice, with overlapping exports, exports of two servers whose ids collide, and
 * files holding a line the API would refuse: what it remembers, what it skips, and what it refuses.
 */
import { afterAll, describe, expect, it } from 'bun:test';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sweepThenRemove } from '../../helpers/secret-sweep';
import { call, makeContainer, makeKey, makeOwner, startTestServer, type TestServer } from '../../helpers/server';
import { engram, holdings, importInto, normalized, parse } from './engram-command';

/** Exports and scratch data directories: swept for secrets and removed after the file's tests. */
const work = mkdtempSync(join(tmpdir(), 'engram-import-twice-'));
afterAll(() => void sweepThenRemove({ harness: 'bun:import-twice', stores: [work] }, work));

/** Each test spawns the command several times and starts two or three servers: room for a busy machine. */
const SLOW = 60_000;

async function writeFile(lines: string | unknown[]): Promise<string> {
  const file = join(mkdtempSync(join(work, 'export-')), 'export.jsonl');
  await Bun.write(file, typeof lines === 'string' ? lines : lines.map((l) => JSON.stringify(l)).join('\n'));
  return file;
}

/** A server with an account holding two containers, three documents (one with a custom_id), three facts and a rule. */
async function sourceWithMemory(): Promise<{ server: TestServer; owner: string; key: string; notes: string }> {
  const server = await startTestServer();
  const owner = (await makeOwner(server)).token;
  const food = await makeContainer(server, owner, 'Food');
  const notes = await makeContainer(server, owner, 'Notes');
  const key = (await makeKey(server, owner, { level: 'manage', all_views: true, profile: true })).key;
  await call(server, 'POST', '/v1/documents', key, {
    container: food,
    content: 'Oatmeal for breakfast.',
    custom_id: 'oats',
  });
  await call(server, 'POST', '/v1/documents', key, { container: notes, content: 'The boiler was serviced in May.' });
  await call(server, 'POST', '/v1/documents', key, {
    container: notes,
    content: 'The car goes to the garage in June.',
    title: 'Car',
  });
  await server.learning.drain();
  await call(server, 'POST', '/v1/memories', key, { container: notes, content: 'Stand-up is at 9:30.' });
  await call(server, 'POST', '/v1/memories', key, { container: food, content: 'Likes figs.' });
  await call(server, 'POST', '/v1/memories', key, { content: 'I am vegetarian.', static: true });
  await call(server, 'POST', '/v1/rules', owner, { text: 'Never share notes with shopping apps.' });
  return { server, owner, key, notes };
}

/** A target server with an empty account: its id, the owner's token and a key that reaches everything. */
async function emptyTarget(): Promise<{ server: TestServer; accountId: string; owner: string; key: string }> {
  const server = await startTestServer();
  const email = `target-${crypto.randomUUID()}@example.org`;
  const owner = (await makeOwner(server, email)).token;
  const key = (await makeKey(server, owner, { level: 'manage', all_views: true, profile: true })).key;
  return { server, accountId: (await server.services.store.accounts.getByEmail(email))!.id, owner, key };
}

describe('importing the same export again', () => {
  it(
    'adds nothing the second time and says so; a document deleted since comes back alone',
    async () => {
      const { server: source } = await sourceWithMemory();
      const target = await emptyTarget();
      try {
        const exported = engram(['export', '--data', source.dataDir]);
        expect(exported.code).toBe(0);
        const file = await writeFile(exported.stdout);

        const first = importInto(target.server, file);
        expect(first.code).toBe(0);
        expect(first.stderr).toContain('Imported 2 new containers, 3 documents (0 already there), 3 facts, 1 rule.');
        await target.server.learning.drain();
        const once = await holdings(target.server, target.accountId);
        expect(once).toEqual({ containers: 2, documents: 3, facts: 3, rules: 1 });
        const afterFirst = engram(['export', '--data', target.server.dataDir]).stdout;

        const second = importInto(target.server, file);
        expect(second.code).toBe(0);
        expect(second.stderr).toContain(
          'Imported 0 new containers, 0 documents (0 already there), 0 facts, 0 rules; ' +
            'skipped 2 containers, 3 documents, 3 facts and 1 rule already imported.',
        );
        expect(await holdings(target.server, target.accountId)).toEqual(once);
        expect(await target.server.learning.drain()).toBe(0); // nothing queued either
        expect(normalized(engram(['export', '--data', target.server.dataDir]).stdout)).toEqual(normalized(afterFirst));

        // A delete forgets what the import remembered of the document: the next import brings it again, and only it.
        const boiler = parse(afterFirst).find((l) => l.content === 'The boiler was serviced in May.');
        expect(
          (await call(target.server, 'DELETE', `/v1/documents/${boiler.id}?confirm=true`, target.key)).status,
        ).toBe(200);
        const third = importInto(target.server, file);
        expect(third.stderr).toContain(
          'Imported 0 new containers, 1 document (0 already there), 0 facts, 0 rules; ' +
            'skipped 2 containers, 2 documents, 3 facts and 1 rule already imported.',
        );
        expect(await holdings(target.server, target.accountId)).toEqual(once);
      } finally {
        await source.close();
        await target.server.close();
      }
    },
    SLOW,
  );

  it(
    'imports from an overlapping later export only what is new',
    async () => {
      const { server: source, key, notes } = await sourceWithMemory();
      const target = await emptyTarget();
      try {
        const earlier = await writeFile(engram(['export', '--data', source.dataDir]).stdout);
        await call(source, 'POST', '/v1/documents', key, { container: notes, content: 'The roof was fixed in July.' });
        await call(source, 'POST', '/v1/memories', key, { container: notes, content: 'Retro is on Fridays.' });
        await source.learning.drain();
        const later = engram(['export', '--data', source.dataDir]).stdout;

        expect(importInto(target.server, earlier).code).toBe(0);
        const run = importInto(target.server, await writeFile(later));
        expect(run.code).toBe(0);
        expect(run.stderr).toContain(
          'Imported 0 new containers, 1 document (0 already there), 1 fact, 0 rules; ' +
            'skipped 2 containers, 3 documents, 3 facts and 1 rule already imported.',
        );
        await target.server.learning.drain();
        // The account now holds exactly what the later export holds, once.
        expect(normalized(engram(['export', '--data', target.server.dataDir]).stdout)).toEqual(normalized(later));
      } finally {
        await source.close();
        await target.server.close();
      }
    },
    SLOW,
  );

  it(
    'imports an export of another server whose ids happen to be the same, and remembers both',
    async () => {
      const a = await startTestServer();
      const b = await startTestServer();
      const target = await emptyTarget();
      try {
        for (const [server, word] of [
          [a, 'apples'],
          [b, 'pears'],
        ] as const) {
          const owner = (await makeOwner(server)).token;
          const notes = await makeContainer(server, owner, 'Notes');
          const key = (await makeKey(server, owner, { level: 'manage', all_views: true })).key;
          await call(server, 'POST', '/v1/documents', key, { container: notes, content: `We grow ${word}.` });
          await call(server, 'POST', '/v1/memories', key, { container: notes, content: `Grows ${word}.` });
          await call(server, 'POST', '/v1/rules', owner, { text: `Talk about ${word}.` });
        }
        const fromA = engram(['export', '--data', a.dataDir]).stdout;
        // B's export with every id of its lines replaced by the id of A's line in the same place.
        const linesA = parse(fromA);
        let fromB = engram(['export', '--data', b.dataDir]).stdout;
        parse(fromB).forEach((line, i) => {
          if (line.id) fromB = fromB.replaceAll(line.id, linesA[i].id);
        });
        const idsOf = (jsonl: string) => parse(jsonl).map((l) => l.id ?? null);
        expect(idsOf(fromB)).toEqual(idsOf(fromA));
        expect(parse(fromB)[0].account).not.toBe(parse(fromA)[0].account);
        const [fileA, fileB] = [await writeFile(fromA), await writeFile(fromB)];

        const imported = (file: string) => importInto(target.server, file).stderr;
        expect(imported(fileA)).toContain('Imported 1 new container, 1 document (0 already there), 1 fact, 1 rule.');
        // The container is matched by its name; the rest is B's own.
        expect(imported(fileB)).toContain('Imported 0 new containers, 1 document (0 already there), 1 fact, 1 rule.');
        const facts = (await target.server.services.store.facts.list(target.accountId)).map((m) => m.content).sort();
        expect(facts).toEqual(['Grows apples.', 'Grows pears.']);
        expect(await holdings(target.server, target.accountId)).toEqual({
          containers: 1,
          documents: 2,
          facts: 2,
          rules: 2,
        });

        // Each file again: both are remembered, under their own source.
        for (const file of [fileA, fileB]) {
          expect(imported(file)).toContain(
            'Imported 0 new containers, 0 documents (0 already there), 0 facts, 0 rules; ' +
              'skipped 1 container, 1 document, 1 fact and 1 rule already imported.',
          );
        }
        expect(await holdings(target.server, target.accountId)).toEqual({
          containers: 1,
          documents: 2,
          facts: 2,
          rules: 2,
        });
      } finally {
        await a.close();
        await b.close();
        await target.server.close();
      }
    },
    SLOW,
  );
});

describe("a line the API would refuse refuses the import, with the API's error", () => {
  /** `lines` with the line that `pick` finds changed by `change`. */
  const edited = (lines: any[], pick: (l: any) => boolean, change: (l: any) => object) =>
    lines.map((l) => (pick(l) ? { ...l, ...change(l) } : l));

  it(
    'an over-long document, an over-long title, a container name with an invisible character: nothing of the file is stored',
    async () => {
      const { server: source } = await sourceWithMemory();
      const target = await emptyTarget();
      try {
        const lines = parse(engram(['export', '--data', source.dataDir]).stdout);
        const overLong = 'x'.repeat(1024 * 1024 + 1);
        const cases: { lines: any[]; rest: () => Promise<{ status: number; body: any }> }[] = [
          {
            lines: edited(
              lines,
              (l) => l.content === 'The car goes to the garage in June.',
              () => ({ content: overLong }),
            ),
            rest: () => call(target.server, 'POST', '/v1/documents', target.key, { content: overLong }),
          },
          {
            lines: edited(
              lines,
              (l) => l.title === 'Car',
              () => ({ title: 't'.repeat(513) }),
            ),
            rest: () =>
              call(target.server, 'POST', '/v1/documents', target.key, {
                content: 'Some text.',
                title: 't'.repeat(513),
              }),
          },
          {
            lines: edited(
              lines,
              (l) => l.name === 'Notes',
              () => ({ name: 'Invo\u202Eseciov' }),
            ),
            rest: () => call(target.server, 'POST', '/v1/containers', target.owner, { name: 'Invo\u202Eseciov' }),
          },
        ];
        // The REST answers first: an import moves the server's clock up to the real time, past the owner's session.
        const answers = [];
        for (const c of cases) answers.push(await c.rest());
        for (const [i, c] of cases.entries()) {
          const refused = answers[i]!;
          expect(refused.status).toBe(422);
          const run = importInto(target.server, await writeFile(c.lines));
          expect(run.code).toBe(1);
          expect(run.stderr).toContain(
            `: refused as the API refuses it: ${refused.body.code}: ${refused.body.message}\n`,
          );
          expect(await holdings(target.server, target.accountId)).toEqual({
            containers: 0,
            documents: 0,
            facts: 0,
            rules: 0,
          });
          expect(await target.server.learning.drain()).toBe(0);
        }
        // Nothing of the refused imports was remembered either: the unchanged file imports in full.
        expect(importInto(target.server, await writeFile(lines)).stderr).toContain(
          'Imported 2 new containers, 3 documents (0 already there), 3 facts, 1 rule.',
        );
      } finally {
        await source.close();
        await target.server.close();
      }
    },
    SLOW,
  );
});
