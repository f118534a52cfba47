/**
 * Export and import by what they do: the export writes an account's memory (containers, documents,
 * facts with their history, rules) and no secret; importing it into another store brings the same
 * memory back, once however often it is imported; a dry run and a broken file store nothing. Both
 * are the owner's alone. The markdown importer shows an import from elsewhere.
 */
import { afterEach, beforeEach, describe, expect, it } from 'bun:test';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { exportMemory } from '../../src/operations/import-export/export-memory';
import { importMemory } from '../../src/operations/import-export/import-memory';
import * as ops from '../../src/operations/index';
import { type Harness, openHarness, refused } from '../helpers/operations';
import { scratchDir } from '../helpers/scratch';

let h: Harness;
let notes: string;
beforeEach(async () => {
  h = await openHarness(['Notes']);
  notes = h.containers.Notes!;
});
afterEach(() => h.close());

/** The owner's export of `of`, written to a file as `engram export` writes it; its lines too. */
async function exported(of: Harness): Promise<{ path: string; lines: Record<string, unknown>[] }> {
  const lines: Record<string, unknown>[] = [];
  await exportMemory(of.context(of.owner), (line) => lines.push(line as Record<string, unknown>));
  const path = join(scratchDir(), 'export.jsonl');
  writeFileSync(path, `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
  return { path, lines };
}

/** What an account holds, as the owner reads it through the operations, without ids or times. */
async function holdings(of: Harness) {
  const { containers } = await of.run(ops.listContainers, of.owner, {});
  const { documents } = await of.run(ops.listDocuments, of.owner, {});
  const facts = await of.store.facts.list(of.owner.accountId);
  const { rules } = await of.run(ops.memoryRules, of.owner, {});
  return {
    containers: containers.map((c: { name: string; description: string }) => [c.name, c.description]).sort(),
    documents: await Promise.all(
      documents.map(async (d: { id: string; title: string | null; custom_id: string | null }) => [
        d.title,
        d.custom_id,
        (await of.run(ops.getDocument, of.owner, { document_id: d.id })).content,
      ]),
    ),
    facts: await Promise.all(
      facts.map(async (f) => [
        f.content,
        f.static,
        (await of.store.facts.listHistory(of.owner.accountId, f.id)).map((e) => e.content),
      ]),
    ),
    rules: rules.map((r: { text: string }) => r.text),
  };
}

async function fill(): Promise<void> {
  await h.run(ops.updateContainer, h.owner, { container_id: notes, description: 'Everyday notes' });
  await h.run(ops.addDocument, h.owner, {
    container: notes,
    content: 'The boiler was serviced in March.',
    title: 'Boiler',
    custom_id: 'boiler',
  });
  const fact = (await h.run(ops.addMemory, h.owner, { container: notes, content: 'Takes the 8:10 train.' })).id;
  await h.run(ops.updateMemory, h.owner, { memory_id: fact, content: 'Takes the 8:40 train.' });
  await h.run(ops.addMemory, h.owner, { content: 'Speaks Portuguese.', static: true });
  await h.run(ops.addRule, h.owner, { text: 'Never store bank details.' });
  await h.key({ level: 'read', containers: [notes] });
}

describe('export', () => {
  it('writes the header, the containers, documents, facts with their history and rules, and no secret', async () => {
    await fill();
    const { lines } = await exported(h);
    expect(lines.map((l) => l.type)).toEqual(['header', 'container', 'document', 'fact', 'fact', 'rule']);
    const text = JSON.stringify(lines);
    for (const secret of ['egm_', 'egs_', 'egc_', 'secret', 'hash', 'password']) expect(text).not.toContain(secret);
    expect(lines.find((l) => l.type === 'fact' && l.content === 'Takes the 8:40 train.')).toMatchObject({
      history: [{ content: 'Takes the 8:10 train.' }],
    });
  });

  it("is the owner's alone: a manage key is refused (403)", async () => {
    const key = await h.key({ level: 'manage', all_views: true, profile: true });
    expect(await refused(exportMemory(h.context(key), () => {}))).toMatchObject({ status: 403, code: 'unauthorized' });
  });
});

describe('import of an Engram export', () => {
  let other: Harness;
  beforeEach(async () => {
    other = await openHarness([]);
  });
  afterEach(() => other.close());

  it('brings the same memory into another store, and adds nothing when imported again', async () => {
    await fill();
    const { path } = await exported(h);
    const first = await importMemory(other.context(other.owner), { path, label: 'export.jsonl' }, { format: 'engram' });
    expect(first.added).toEqual({ container: 1, document: 1, fact: 2, rule: 1 });
    expect(await holdings(other)).toEqual(await holdings(h));
    const again = await importMemory(other.context(other.owner), { path, label: 'export.jsonl' }, { format: 'engram' });
    expect(again.added).toEqual({ container: 0, document: 0, fact: 0, rule: 0 });
    expect(await holdings(other)).toEqual(await holdings(h));
  });

  it('as a dry run, tells what it would add and stores nothing', async () => {
    await fill();
    const { path } = await exported(h);
    const before = await holdings(other);
    const dry = await importMemory(
      other.context(other.owner),
      { path, label: 'export.jsonl' },
      { format: 'engram', dry_run: true },
    );
    expect(dry).toMatchObject({ dryRun: true, added: { container: 1, document: 1, fact: 2, rule: 1 } });
    expect(await holdings(other)).toEqual(before);
  });

  it('refuses a file with a broken line (400, naming the line) and stores none of the lines before it', async () => {
    await fill();
    const { path, lines } = await exported(h);
    writeFileSync(
      path,
      `${lines
        .slice(0, 3)
        .map((l) => JSON.stringify(l))
        .join('\n')}\n{"type": "fact", "content": \n`,
    );
    const err = await refused(
      importMemory(other.context(other.owner), { path, label: 'export.jsonl' }, { format: 'engram' }),
    );
    expect(err).toMatchObject({ status: 400, code: 'validation' });
    expect(err!.message).toStartWith('export.jsonl:4:');
    expect(await holdings(other)).toEqual({ containers: [], documents: [], facts: [], rules: [] });
  });
});

describe('import from elsewhere (Markdown notes)', () => {
  it('stores each note as a document of the container named, made when missing, and queues it for learning', async () => {
    const dir = scratchDir();
    mkdirSync(join(dir, 'notes'));
    writeFileSync(join(dir, 'notes', 'garden.md'), '# Garden\n\nThe tomatoes go in after the last frost.\n');
    writeFileSync(join(dir, 'notes', 'bikes.md'), '# Bikes\n\nThe blue bike needs a new chain.\n');
    const summary = await importMemory(
      h.context(h.owner),
      { path: join(dir, 'notes'), label: 'notes' },
      { format: 'markdown', container: 'Vault' },
    );
    expect(summary.added).toMatchObject({ document: 2 });
    expect(summary.containers).toEqual([{ id: expect.any(String), name: 'Vault', made: true }]);
    const vault = (await h.store.containers.getByName(h.owner.accountId, 'Vault'))!;
    const { documents } = await h.run(ops.listDocuments, h.owner, { container: vault.id });
    expect(documents.map((d: { title: string }) => d.title).sort()).toEqual(['Bikes', 'Garden']);
    expect(await h.store.jobs.countPending()).toBe(2);
    await h.learn();
    expect(
      (await h.run(ops.searchMemories, h.owner, { q: 'tomatoes frost', container: vault.id })).results[0].title,
    ).toBe('Garden');
  });
});
