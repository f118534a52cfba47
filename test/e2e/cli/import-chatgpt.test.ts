/**
 * `engram import --from chatgpt`, end to end: ChatGPT's export archive (beside its other files and
 * images) goes in as one document per conversation, and the command says what it did; a search
 * finds a message with its speaker and time; a second import adds nothing; a conversation continued
 * since replaces its document; one over 1 MiB is stored in parts. What the reader makes of each
 * conversation (branches, tools, markup, attachments, times) is test/importers/chatgpt.test.ts's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { call } from '../../helpers/server';
import { FIXTURES, writeZip } from '../../helpers/imports';
import { workDir, world, type World } from './import-kit';

const SLOW = 60_000;
const dir = workDir('import-chatgpt');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const conversations = () =>
  JSON.parse(require('node:fs').readFileSync(join(FIXTURES, 'chatgpt/conversations.json'), 'utf8')) as any[];

/** The archive as ChatGPT sends it: the JSON files, the HTML viewer and the uploaded photo. */
const archive = (name: string, list: unknown[]) =>
  writeZip(join(dir, name), {
    'conversations.json': JSON.stringify(list),
    'chat.html': '<html><body>the offline viewer</body></html>',
    'user.json': JSON.stringify({ id: 'user-1', email: 'sam@example.org' }),
    'message_feedback.json': '[]',
    'file-Xb12PhotoOfPort-piraeus-port.jpg': new Uint8Array(4096).map((_, i) => (i * 31) % 256),
  });

describe('importing a ChatGPT export', () => {
  let w: World;
  let file: string;
  beforeAll(async () => {
    w = await world();
    file = await archive('chatgpt-export.zip', conversations());
  });
  afterAll(() => w.server.close());

  it(
    'with --dry-run says what it would add, and stores nothing',
    async () => {
      const run = w.importing(file, '--from', 'chatgpt', '--dry-run');
      expect(run.code).toBe(0);
      expect(run.stdout.trim().split('\n')).toEqual([
        '+ document "Ferry to Hydra" in "ChatGPT"',
        '+ document "Λεμονόπιτα 🍋 と抹茶" in "ChatGPT"',
        '+ document "Sourdough starter" in "ChatGPT"',
      ]);
      expect(run.stderr).toContain(
        'Would import 1 new container, 3 documents (0 already there), 0 facts, 0 rules.\nNothing to import in 1 empty conversation.\nInto "ChatGPT" (to be made).',
      );
      expect(await w.containers()).toEqual([]);
    },
    SLOW,
  );

  it(
    'stores each conversation as a document in "ChatGPT", with its custom_id, metadata and times',
    async () => {
      const run = w.importing(file, '--from', 'chatgpt');
      expect(run.code).toBe(0);
      expect(run.stderr).toContain(
        'Imported 1 new container, 3 documents (0 already there), 0 facts, 0 rules.\nNothing to import in 1 empty conversation.\nInto "ChatGPT" (made now).',
      );
      const [container] = await w.containers();
      expect(container.name).toBe('ChatGPT');
      const docs = await w.documents();
      expect(docs.map((d) => [d.title, d.custom_id, d.container]).sort()).toEqual([
        ['Ferry to Hydra', 'chatgpt:6a1f0c2e-0000-4000-8000-000000000001', container.id],
        ['Sourdough starter', 'chatgpt:6a1f0c2e-0000-4000-8000-000000000004', container.id],
        ['Λεμονόπιτα 🍋 と抹茶', 'chatgpt:6a1f0c2e-0000-4000-8000-000000000002', container.id],
      ]);
      const ferry = docs.find((d) => d.title === 'Ferry to Hydra');
      expect(ferry.content).toStartWith(
        'Ferry to Hydra\nA ChatGPT conversation, started 2024-06-01 10:00 UTC.\n\nUser, 2024-06-01 10:01 UTC: ',
      );
      expect(ferry.metadata).toMatchObject({
        source: 'chatgpt',
        conversation_id: '6a1f0c2e-0000-4000-8000-000000000001',
      });
      expect(ferry.created_at).toBe('2024-06-01T10:00:00.123Z');
    },
    SLOW,
  );

  it(
    'a search finds an imported message with who said it and when',
    async () => {
      await w.server.learning.drain();
      const asked = (await w.search('Which ferry goes from Piraeus to Hydra on Saturday'))[0];
      expect(asked.content).toContain(
        'User, 2024-06-01 10:01 UTC: [image: piraeus-port.jpg] Which ferry goes from Piraeus to Hydra on Saturday morning?',
      );
      const answered = (await w.search('Flying Dolphin hydrofoil'))[0];
      expect(answered.content).toContain('ChatGPT, 2024-06-01 10:01 UTC: Take the Flying Dolphin hydrofoil');
      expect(answered.container_name).toBe('ChatGPT');
    },
    SLOW,
  );

  it(
    'a second import adds nothing; a conversation continued since replaces its document, and the older archive does not put it back',
    async () => {
      const again = w.importing(file, '--from', 'chatgpt');
      expect(again.stderr).toContain('Imported 0 new containers, 0 documents (3 already there), 0 facts, 0 rules.');
      expect(await w.server.learning.drain()).toBe(0);

      const before = (await w.documents()).find((d) => d.title === 'Sourdough starter');
      const continued = conversations();
      const sourdough = continued.find((c) => c.title === 'Sourdough starter');
      sourdough.mapping['a-41'].children = ['u-42'];
      sourdough.mapping['u-42'] = {
        id: 'u-42',
        parent: 'a-41',
        children: [],
        message: {
          id: 'u-42',
          author: { role: 'user' },
          create_time: 1700090000,
          content: { content_type: 'text', parts: ['Day four: it smells of yoghurt now and doubles in six hours.'] },
          recipient: 'all',
        },
      };
      sourdough.update_time = 1700090000;
      const run = w.importing(await archive('chatgpt-export-later.zip', continued), '--from', 'chatgpt');
      expect(run.stderr).toContain(
        'Imported 0 new containers, 0 documents (2 already there, 1 replaced by a changed version), 0 facts, 0 rules.',
      );
      const docs = await w.documents();
      expect(docs).toHaveLength(3);
      const after = docs.find((d) => d.title === 'Sourdough starter');
      expect(after.id).not.toBe(before.id);
      expect(after.content).toContain('User, 2023-11-15 23:13 UTC: Day four: it smells of yoghurt now');
      expect((await call(w.server, 'GET', `/v1/documents/${before.id}`, w.key)).status).toBe(404);
      await w.server.learning.drain();
      expect((await w.search('smells of yoghurt doubles in six hours'))[0].content).toContain(
        'User, 2023-11-15 23:13 UTC: Day four',
      );
      // The earlier archive again: its older version of the conversation does not replace the newer.
      expect(w.importing(file, '--from', 'chatgpt').stderr).toContain(
        'Imported 0 new containers, 0 documents (3 already there), 0 facts, 0 rules.',
      );
      expect((await w.documents()).find((d) => d.title === 'Sourdough starter').id).toBe(after.id);
    },
    SLOW,
  );

  it(
    'takes conversations.json alone, into a container named with --container; a conversation over 1 MiB goes in parts',
    async () => {
      const long = conversations().find((c) => c.title === 'Sourdough starter');
      const words = 'starter flour water crumb crust oven proof fold '.repeat(2200); // ~100 KB a message
      long.title = 'A very long bake';
      long.conversation_id = long.id = 'long-one';
      for (let i = 0; i < 14; i++) {
        const id = `long-${i}`;
        const parent = i ? `long-${i - 1}` : 'a-41';
        long.mapping[parent].children = [id];
        long.mapping[id] = {
          id,
          parent,
          children: [],
          message: {
            author: { role: i % 2 ? 'assistant' : 'user' },
            create_time: 1700000100 + i,
            content: { content_type: 'text', parts: [`Bake ${i}: ${words}`] },
          },
        };
      }
      delete long.current_node;
      const json = join(dir, 'conversations.json');
      await Bun.write(json, JSON.stringify([long]));
      const run = w.importing(json, '--from', 'chatgpt', '--container', 'Bakes');
      expect(run.code).toBe(0);
      expect(run.stderr).toContain(
        'Imported 1 new container, 2 documents (0 already there), 0 facts, 0 rules.\nInto "Bakes" (made now).',
      );
      const parts = (await w.documents())
        .filter((d) => d.custom_id.startsWith('chatgpt:long-one'))
        .sort((a, b) => a.custom_id.localeCompare(b.custom_id));
      expect(parts.map((d) => [d.custom_id, d.title, d.metadata.part, d.metadata.parts])).toEqual([
        ['chatgpt:long-one', 'A very long bake (part 1 of 2)', 1, 2],
        ['chatgpt:long-one#2', 'A very long bake (part 2 of 2)', 2, 2],
      ]);
      expect(parts.map((d) => d.content).join('')).toContain('Bake 13: starter');
      expect(w.importing(json, '--from', 'chatgpt', '--container', 'Bakes').stderr).toContain(
        '0 documents (2 already there)',
      );
    },
    SLOW,
  );
});
