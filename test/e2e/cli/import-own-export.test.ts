/**
 * `engram import` of an account's own export into the store it came from (issue 29, item 3): what
 * the account holds by the same ids is already there, so nothing doubles; and the lines an export
 * must not get away with (item 12), through the command: a version written as text is refused with
 * nothing stored, a bounded history is stored whole. The reader's every refusal of a header or a
 * line is test/importers/engram.test.ts's.
 */
import { afterAll, describe, expect, it } from 'bun:test';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EXPORT_CONTAINER as container, EXPORT_FACT as fact, EXPORT_HEADER as header } from '../../helpers/imports';
import { sweepThenRemove } from '../../helpers/secret-sweep';
import { call, makeContainer, makeKey, makeOwner, startTestServer, type TestServer } from '../../helpers/server';
import { engram, holdings, importInto, normalized } from './engram-command';

const work = mkdtempSync(join(tmpdir(), 'engram-import-own-'));
afterAll(() => void sweepThenRemove({ harness: 'bun:import-own-export', stores: [work] }, work));

const SLOW = 60_000;

async function writeFile(lines: string | unknown[]): Promise<string> {
  const file = join(mkdtempSync(join(work, 'export-')), 'export.jsonl');
  await Bun.write(file, typeof lines === 'string' ? lines : lines.map((l) => JSON.stringify(l)).join('\n'));
  return file;
}

describe("an account's own export imported into its own store", () => {
  it(
    'adds nothing: its documents, facts and rules are already there, by their ids',
    async () => {
      const server = await startTestServer();
      const fresh = await startTestServer();
      try {
        const owner = (await makeOwner(server)).token;
        const notes = await makeContainer(server, owner, 'Notes');
        const key = (await makeKey(server, owner, { level: 'manage', all_views: true, profile: true })).key;
        await call(server, 'POST', '/v1/documents', key, {
          container: notes,
          content: 'The boiler was serviced in May.',
        });
        await call(server, 'POST', '/v1/documents', key, {
          container: notes,
          content: 'Oatmeal for breakfast.',
          custom_id: 'oats',
        });
        await call(server, 'POST', '/v1/memories', key, { container: notes, content: 'Stand-up is at 9:30.' });
        await call(server, 'POST', '/v1/memories', key, { content: 'I am vegetarian.', static: true });
        await call(server, 'POST', '/v1/rules', owner, { text: 'Never share notes with shopping apps.' });
        await server.learning.drain();
        const before = await holdings(server);
        expect(before).toEqual({ containers: 1, documents: 2, facts: 2, rules: 1 });
        const exported = engram(['export', '--data', server.dataDir]).stdout;
        const file = await writeFile(exported);

        for (let i = 0; i < 2; i++) {
          const run = importInto(server, file);
          expect(run.code).toBe(0);
          expect(run.stderr).toContain(
            'Imported 0 new containers, 0 documents (2 already there), 0 facts (2 already there), 0 rules (1 already there).',
          );
          expect(await holdings(server)).toEqual(before);
          expect(await server.learning.drain()).toBe(0);
          expect(normalized(engram(['export', '--data', server.dataDir]).stdout)).toEqual(normalized(exported));
        }

        // Into a fresh store: imported once, and the second time nothing is added either.
        await makeOwner(fresh);
        expect(importInto(fresh, file).stderr).toContain(
          'Imported 1 new container, 2 documents (0 already there), 2 facts, 1 rule.',
        );
        expect(importInto(fresh, file).stderr).toContain(
          'Imported 0 new containers, 0 documents (0 already there), 0 facts, 0 rules; ' +
            'skipped 1 container, 2 documents, 2 facts and 1 rule already imported.',
        );
        expect(await holdings(fresh)).toEqual(before);
      } finally {
        await server.close();
        await fresh.close();
      }
    },
    SLOW,
  );
});

describe('what an export line must not get away with', () => {
  async function refused(server: TestServer, lines: unknown[], message: string) {
    const run = importInto(server, await writeFile(lines));
    expect(run.stderr).toContain(message);
    expect(run.code).toBe(1);
    expect(await holdings(server)).toEqual({ containers: 0, documents: 0, facts: 0, rules: 0 });
  }

  it(
    'a version written as text is refused, saying how to write it',
    async () => {
      const server = await startTestServer();
      try {
        await makeOwner(server);
        await refused(
          server,
          [{ ...header, version: '2' }, container],
          'export.jsonl:1:1: the header gives its version as the text "2"; it is a number: write "version": 2.',
        );
      } finally {
        await server.close();
      }
    },
    SLOW,
  );

  it(
    'a bounded fact history (3 MiB of earlier wordings) is stored whole',
    async () => {
      const server = await startTestServer();
      try {
        await makeOwner(server);
        const wording = 'w'.repeat(1024 * 1024); // each as long as a fact may be
        const bounded = Array.from({ length: 3 }, (_, i) => ({
          content: `${i} ${wording.slice(0, -3)}`,
          replaced_at: i + 1,
        }));
        const run = importInto(server, await writeFile([header, container, { ...fact, history: bounded }]));
        expect(run.code).toBe(0);
        const accountId = (await server.services.store.accounts.list())[0]!.id;
        const [imported] = await server.services.store.facts.list(accountId);
        expect(
          (await server.services.store.facts.listHistory(accountId, imported!.id)).map((h) => h.content.length),
        ).toEqual(bounded.map((h) => h.content.length));
      } finally {
        await server.close();
      }
    },
    SLOW,
  );
});
