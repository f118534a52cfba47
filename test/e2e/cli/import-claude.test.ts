/**
 * `engram import --from claude`, end to end: Claude's export archive (conversations with an
 * attachment's extracted text and a file, thinking blocks, a retried answer on another branch,
 * unicode, an empty conversation, one in a project; projects with their documents and
 * instructions, and the starter project) goes in as documents, in "Claude" and one container per
 * project; a search finds a message with its speaker and time; a second import adds nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURES, workDir, world, type World, writeZip } from './import-kit';

const SLOW = 60_000;
const dir = workDir('import-claude');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const fixture = (name: string) => readFileSync(join(FIXTURES, 'claude', name), 'utf8');

describe('importing a Claude export', () => {
  let w: World;
  let file: string;
  beforeAll(async () => {
    w = await world();
    file = await writeZip(join(dir, 'data-2025-06-02-10-00-00-batch-0000.zip'), {
      'conversations.json': fixture('conversations.json'),
      'projects.json': fixture('projects.json'),
      'users.json': fixture('users.json'),
    });
  });
  afterAll(() => w.server.close());

  it(
    'stores conversations in "Claude" and each project in a container of its own, with its documents and instructions',
    async () => {
      const run = w.importing(file, '--from', 'claude');
      expect(run.code).toBe(0);
      expect(run.stderr).toContain(
        'Imported 2 new containers, 6 documents (0 already there), 0 facts, 0 rules.\n' +
          "Nothing to import in 1 Claude's starter project and 1 empty conversation.\n" +
          'Into "Novel: The Lighthouse" (made now) and "Claude" (made now).',
      );
      const containers = Object.fromEntries((await w.containers()).map((c) => [c.name, c]));
      expect(Object.keys(containers).sort()).toEqual(['Claude', 'Novel: The Lighthouse']);
      expect(containers['Novel: The Lighthouse'].description).toBe('Drafts and notes for my novel.');
      const docs = await w.documents();
      const byTitle = Object.fromEntries(docs.map((d) => [d.title, d]));
      expect(docs.map((d) => [d.title, d.container]).sort()).toEqual([
        ['Allotment soil test', containers.Claude.id],
        ['Chapter two outline', containers['Novel: The Lighthouse'].id],
        ['Instructions of the project Novel: The Lighthouse', containers['Novel: The Lighthouse'].id],
        ['characters.md', containers['Novel: The Lighthouse'].id],
        ['setting.md', containers['Novel: The Lighthouse'].id],
        ['Über Zürich 🚲', containers.Claude.id],
      ]);
      expect(byTitle['Allotment soil test'].content).toBe(
        [
          'Allotment soil test\nA Claude conversation, started 2025-03-02 09:00 UTC.',
          'User, 2025-03-02 09:00 UTC: Here is my soil report. What should I plant?\n[attachment: soil-report.txt]\npH 6.4, loamy, low in potassium, high in nitrogen.\n[file: allotment.jpg]',
          'Claude, 2025-03-02 09:01 UTC: With pH 6.4 and plenty of nitrogen, plant leafy greens: chard, kale and spinach. Add wood ash for potassium before the beans go in.',
        ].join('\n\n'),
      );
      expect(byTitle['Allotment soil test'].content).not.toContain('private reasoning');
      // The retried answer is on a branch the person left: only the kept one.
      const zurich = byTitle['Über Zürich 🚲'].content;
      expect(zurich).toContain('Claude, 2025-04-10 18:02 UTC: Folge der Route 3 über den Albispass');
      expect(zurich).toContain('User, 2025-04-10 18:30 UTC: Danke! 🚲');
      expect(zurich).not.toContain('gondola');
      const characters = byTitle['characters.md'];
      expect(characters.custom_id).toBe(
        'claude-project:p0000000-0000-4000-8000-000000000001/d0000000-0000-4000-8000-000000000001',
      );
      expect(characters.content).toContain('Morwenna Trevail: lighthouse keeper');
      expect(characters.metadata).toEqual({
        source: 'claude',
        project: 'Novel: The Lighthouse',
        project_uuid: 'p0000000-0000-4000-8000-000000000001',
        updated_at: '2025-06-01T10:10:00.000Z',
        doc_uuid: 'd0000000-0000-4000-8000-000000000001',
      });
      expect(byTitle['Instructions of the project Novel: The Lighthouse'].content).toBe(
        "You are my editor. Keep Morwenna's voice terse and salt-worn.",
      );
      expect(docs.some((d) => d.content.includes("Anthropic's guide"))).toBe(false);
    },
    SLOW,
  );

  it(
    'a search finds a message with who said it and when, and a project document',
    async () => {
      await w.server.learning.drain();
      const hit = (await w.search('wood ash for potassium before the beans'))[0];
      expect(hit.content).toContain('Claude, 2025-03-02 09:01 UTC: With pH 6.4');
      expect(hit.container_name).toBe('Claude');
      expect((await w.search('postman rows out on Thursdays'))[0].container_name).toBe('Novel: The Lighthouse');
    },
    SLOW,
  );

  it(
    'a second import adds nothing; a conversation gone on since replaces its document, and an older export does not put it back',
    async () => {
      expect(w.importing(file, '--from', 'claude').stderr).toContain(
        'Imported 0 new containers, 0 documents (6 already there), 0 facts, 0 rules.',
      );
      expect(await w.server.learning.drain()).toBe(0);
      const later = JSON.parse(fixture('conversations.json'));
      later[0].chat_messages.push({
        uuid: 'm0000000-0000-4000-8000-000000000003',
        sender: 'human',
        text: 'The chard bolted in June.',
        created_at: '2025-06-20T07:00:00Z',
        parent_message_uuid: 'm0000000-0000-4000-8000-000000000002',
      });
      later[0].updated_at = '2025-06-20T07:00:00Z';
      const laterZip = await writeZip(join(dir, 'later.zip'), {
        'conversations.json': JSON.stringify(later),
        'projects.json': fixture('projects.json'),
      });
      expect(w.importing(laterZip, '--from', 'claude').stderr).toContain(
        'Imported 0 new containers, 0 documents (5 already there, 1 replaced by a changed version), 0 facts, 0 rules.',
      );
      const soil = (await w.documents()).filter((d) => d.title === 'Allotment soil test');
      expect(soil).toHaveLength(1);
      expect(soil[0].content).toContain('User, 2025-06-20 07:00 UTC: The chard bolted in June.');
      // The first export's conversations.json alone: its older soil test is not put back, and the
      // project's conversation, which the file alone cannot place, is found where it is.
      const alone = join(dir, 'conversations.json');
      await Bun.write(alone, fixture('conversations.json'));
      expect(w.importing(alone, '--from', 'claude').stderr).toContain(
        'Imported 0 new containers, 0 documents (3 already there), 0 facts, 0 rules.',
      );
      expect((await w.documents()).filter((d) => d.title === 'Chapter two outline')).toHaveLength(1);
      expect((await w.documents()).find((d) => d.title === 'Allotment soil test').content).toContain(
        'The chard bolted in June.',
      );
    },
    SLOW,
  );
});

describe("Claude's conversations.json imported alone, then the whole export", () => {
  let w: World;
  beforeAll(async () => {
    w = await world();
  });
  afterAll(() => w.server.close());

  it(
    "moves the project's conversation into its project's container instead of adding it a second time",
    async () => {
      const alone = join(dir, 'alone', 'conversations.json');
      await Bun.write(alone, fixture('conversations.json'));
      expect(w.importing(alone, '--from', 'claude').stderr).toContain(
        'Imported 1 new container, 3 documents (0 already there), 0 facts, 0 rules.',
      );
      const zip = await writeZip(join(dir, 'whole.zip'), {
        'conversations.json': fixture('conversations.json'),
        'projects.json': fixture('projects.json'),
      });
      const dry = w.importing(zip, '--from', 'claude', '--dry-run');
      expect(dry.stdout).toContain('> document "Chapter two outline" in "Novel: The Lighthouse"\n');
      const run = w.importing(zip, '--from', 'claude');
      expect(run.code).toBe(0);
      expect(run.stderr).toContain(
        'Imported 1 new container, 3 documents (2 already there, 1 moved where the source now places it), 0 facts, 0 rules.',
      );
      const containers = Object.fromEntries((await w.containers()).map((c) => [c.name, c.id]));
      const outline = (await w.documents()).filter(
        (d) => d.custom_id === 'claude:c0ffee00-0000-4000-8000-000000000004',
      );
      expect(outline.map((d) => d.container)).toEqual([containers['Novel: The Lighthouse']]);
      // And again: nothing moves back, nothing is added.
      expect(w.importing(zip, '--from', 'claude').stderr).toContain(
        'Imported 0 new containers, 0 documents (6 already there), 0 facts, 0 rules.',
      );
      expect(w.importing(alone, '--from', 'claude').stderr).toContain(
        'Imported 0 new containers, 0 documents (3 already there), 0 facts, 0 rules.',
      );
      expect((await w.documents()).length).toBe(6);
    },
    SLOW,
  );
});

describe('a Claude export with an entry that is not one Claude writes', () => {
  let w: World;
  let file: string;
  let line: number;
  beforeAll(async () => {
    w = await world();
    const entries = JSON.parse(fixture('conversations.json'));
    // A conversation whose messages are missing: no chat_messages at all.
    const { chat_messages: _dropped, ...broken } = entries[1];
    entries.splice(1, 0, { ...broken, uuid: 'c0ffee00-0000-4000-8000-00000000000b', name: 'Lost messages' });
    const text = JSON.stringify(entries, null, 1);
    line = text.split('\n').indexOf(' {', 2) + 1;
    file = join(dir, 'skip', 'conversations.json');
    await Bun.write(file, text);
  });
  afterAll(() => w.server.close());

  const problem = () =>
    `conversations.json:${line}:2: entry 2 is neither a Claude conversation (it has no chat_messages) nor a project (no docs or prompt_template).`;

  it(
    'is refused whole by default, saying how to go on without it',
    async () => {
      const run = w.importing(file, '--from', 'claude');
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(
        `engram: ${problem()}\nNothing was imported. To import the rest without it: engram import --skip-invalid, or tick “Skip entries that cannot be imported” on the Import page.\n`,
      );
      expect(await w.containers()).toEqual([]);
    },
    SLOW,
  );

  it(
    'with --skip-invalid imports the rest and lists the entry left out, with where it is',
    async () => {
      const run = w.importing(file, '--from', 'claude', '--skip-invalid');
      expect(run.code).toBe(0);
      expect(run.stderr).toContain(
        'Imported 1 new container, 3 documents (0 already there), 0 facts, 0 rules.\n' +
          'Nothing to import in 1 empty conversation.\n' +
          'Into "Claude" (made now).\n' +
          'Left out 1 entry that could not be imported:\n' +
          `  ${problem()}\n`,
      );
      expect((await w.documents()).map((d) => d.title).sort()).toEqual([
        'Allotment soil test',
        'Chapter two outline',
        'Über Zürich 🚲',
      ]);
    },
    SLOW,
  );
});
