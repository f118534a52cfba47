/**
 * A ChatGPT export archive, generated: conversations.json (each conversation a message tree as
 * ChatGPT writes it: a root, a hidden system message, turns of user and assistant with times and
 * model names, a regenerated answer on a branch of its own every few conversations) streamed into
 * the zip as it is made, and uploaded photos stored beside it, as a real archive holds them. Any
 * size, in bounded memory. For the import benchmark (bench/import-archive.ts) and the Import page's
 * test.
 */
import { Readable } from 'node:stream';
import { ZipFile } from 'yazl';
import { documentText, seeded } from './corpus';

export interface ArchiveShape {
  conversations: number;
  /** Messages a conversation (user and assistant taking turns). */
  messages: number;
  /** Text of a message, about. */
  messageBytes: number;
  /** Photos stored in the archive beside conversations.json, of 1 MB each. */
  photos: number;
}

/** One conversation, numbered `n`, as ChatGPT exports it. */
function conversation(n: number, shape: ArchiveShape, random: () => number): object {
  const start = 1_700_000_000 + n * 3600;
  const id = (k: string) => `${n.toString(16).padStart(8, '0')}-${k}`;
  const mapping: Record<string, any> = {
    [id('root')]: { id: id('root'), message: null, parent: null, children: [id('sys')] },
    [id('sys')]: {
      id: id('sys'),
      parent: id('root'),
      children: [],
      message: {
        id: id('sys'),
        author: { role: 'system', name: null, metadata: {} },
        create_time: null,
        content: { content_type: 'text', parts: [''] },
        status: 'finished_successfully',
        weight: 0,
        metadata: { is_visually_hidden_from_conversation: true },
        recipient: 'all',
      },
    },
  };
  let parent = id('sys');
  for (let m = 0; m < shape.messages; m++) {
    const mid = id(`m${m}`);
    const assistant = m % 2 === 1;
    mapping[mid] = {
      id: mid,
      parent,
      children: [],
      message: {
        id: mid,
        author: { role: assistant ? 'assistant' : 'user', name: null, metadata: {} },
        create_time: start + m * 30,
        update_time: null,
        content: { content_type: 'text', parts: [documentText(random, shape.messageBytes)] },
        status: 'finished_successfully',
        end_turn: assistant,
        weight: 1,
        metadata: assistant ? { model_slug: 'gpt-4o', finish_details: { type: 'stop' } } : {},
        recipient: 'all',
      },
    };
    mapping[parent].children.push(mid);
    // Every fifth conversation, the first answer was regenerated: the old one stays on a branch the person left.
    if (n % 5 === 0 && m === 1) {
      const old = id('m1-old');
      mapping[old] = { ...mapping[mid], id: old, message: { ...mapping[mid].message, id: old } };
      mapping[parent].children.unshift(old);
    }
    parent = mid;
  }
  return {
    title: `Conversation ${n + 1}`,
    create_time: start,
    update_time: start + shape.messages * 30,
    mapping,
    moderation_results: [],
    current_node: parent,
    plugin_ids: null,
    conversation_id: id('conversation'),
    conversation_template_id: null,
    gizmo_id: null,
    is_archived: false,
    safe_urls: [],
    default_model_slug: 'gpt-4o',
    id: id('conversation'),
  };
}

/** conversations.json, a conversation at a time: it is never whole in memory. */
function* conversationsJson(shape: ArchiveShape): Generator<string> {
  const random = seeded(11);
  yield '[';
  for (let n = 0; n < shape.conversations; n++)
    yield `${n ? ', ' : ''}${JSON.stringify(conversation(n, shape, random))}`;
  yield ']';
}

/** Writes the archive to `path`; resolves to its size and conversations.json's. */
export async function writeChatGptArchive(
  path: string,
  shape: ArchiveShape,
): Promise<{ archiveBytes: number; jsonBytes: number }> {
  const zip = new ZipFile();
  let jsonBytes = 0;
  const counted = Readable.from(
    (function* () {
      for (const piece of conversationsJson(shape)) {
        const bytes = Buffer.from(piece);
        jsonBytes += bytes.length;
        yield bytes;
      }
    })(),
  );
  zip.addReadStream(counted, 'conversations.json', { compress: true, mtime: new Date('2025-01-01T00:00:00Z') });
  zip.addBuffer(Buffer.from('<html><body>the offline viewer</body></html>'), 'chat.html');
  zip.addBuffer(Buffer.from(JSON.stringify({ id: 'user-1', email: 'sam@example.org' })), 'user.json');
  const random = seeded(13);
  for (let i = 0; i < shape.photos; i++) {
    // Photos do not compress: stored as they are, random bytes of the same size, made when the zip reaches them.
    zip.addReadStreamLazy(
      `file-${i.toString(36).padStart(6, '0')}-photo.jpg`,
      { compress: false, size: 1_000_000 },
      (done) => {
        const photo = Buffer.alloc(1_000_000);
        for (let b = 0; b < photo.length; b += 4) photo.writeUInt32LE(Math.floor(random() * 2 ** 32), b);
        done(null, Readable.from([photo]));
      },
    );
  }
  zip.end();
  const out = Bun.file(path).writer();
  let archiveBytes = 0;
  for await (const chunk of zip.outputStream) {
    archiveBytes += (chunk as Buffer).length;
    out.write(chunk as Buffer);
  }
  await out.end();
  return { archiveBytes, jsonBytes };
}
