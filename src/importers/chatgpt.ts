/**
 * ChatGPT's data export (Settings → Data controls → Export data): the archive, or the
 * `conversations.json` in it. That file is one JSON array of conversations; each holds its
 * messages as a tree (`mapping`: node id → message, parent, children), with `current_node` the
 * last message of the branch the person kept (editing a message or regenerating an answer makes
 * branches). A conversation becomes one document: the kept branch from the root, in order, without
 * the system's and tools' messages or hidden ones, each message with its speaker and time;
 * attachments are named where they were sent.
 */
import { basename } from 'node:path';
import { z } from 'zod';
import { fileChunks, isZip } from './bytes';
import { ZipArchive } from './zip';
import { type ContainerTarget, type ImportItem, type ImportReader, invalid, type OnRead, readCounter } from './items';
import { jsonArrayElements, MAX_ELEMENT_BYTES } from './json-array';
import { firstIssue, refusal, type SourcePosition } from './problem';
import { secondsMs } from './text-parts';
import { conversationDocuments, type Turn } from './transcript';

const Attachment = z.looseObject({ id: z.string().nullish(), name: z.string().nullish() });

const Message = z.looseObject({
  author: z.looseObject({ role: z.string(), name: z.string().nullish() }),
  create_time: z.number().nullish(),
  content: z.looseObject({
    content_type: z.string(),
    parts: z.array(z.unknown()).nullish(),
    text: z.string().nullish(),
    language: z.string().nullish(),
  }),
  recipient: z.string().nullish(),
  metadata: z
    .looseObject({
      is_visually_hidden_from_conversation: z.boolean().nullish(),
      attachments: z.array(Attachment).nullish(),
      model_slug: z.string().nullish(),
    })
    .nullish(),
});

const Node = z.looseObject({
  parent: z.string().nullish(),
  children: z.array(z.string()).nullish(),
  message: Message.nullish(),
});

const Conversation = z
  .looseObject({
    id: z.string().min(1).nullish(),
    conversation_id: z.string().min(1).nullish(),
    title: z.string().nullish(),
    create_time: z.number().nullish(),
    update_time: z.number().nullish(),
    current_node: z.string().nullish(),
    mapping: z.record(z.string(), Node),
    default_model_slug: z.string().nullish(),
    is_archived: z.boolean().nullish(),
  })
  .refine((c) => c.conversation_id || c.id, {
    message: 'has neither conversation_id nor id',
    path: ['conversation_id'],
  });

type Conversation = z.infer<typeof Conversation>;
type Message = z.infer<typeof Message>;

/**
 * Content types a person reads in the chat; the rest (thoughts, tool calls and their output,
 * browsing, memory updates) is noise.
 */
const SHOWN = new Set(['text', 'multimodal_text', 'code']);

/**
 * The messages of the branch the person kept, root first: back from `current_node`, or when it is
 * missing, the newest child at each turn.
 */
function keptBranch(c: Conversation): Message[] {
  const { mapping } = c;
  const path: string[] = [];
  const seen = new Set<string>();
  if (c.current_node && mapping[c.current_node]) {
    for (
      let id: string | null | undefined = c.current_node;
      id && mapping[id] && !seen.has(id);
      id = mapping[id]!.parent
    ) {
      seen.add(id);
      path.unshift(id);
    }
  } else {
    let id: string | undefined = Object.keys(mapping).find((k) => !mapping[k]!.parent || !mapping[mapping[k]!.parent!]);
    while (id && mapping[id] && !seen.has(id)) {
      seen.add(id);
      path.push(id);
      id = mapping[id]!.children?.at(-1);
    }
  }
  return path.map((id) => mapping[id]!.message).filter((m): m is Message => !!m);
}

/**
 * ChatGPT's markup inside a message's text, between private-use characters: an entity
 * (`\uE200entity\uE202["software","Apple Devices","windows app"]\uE201`) shows as its name; a
 * citation of a search result or a file (`cite`, `filecite`) as nothing.
 */
const MARKUP = /\uE200(\w+)\uE202([^\uE201]*)\uE201/g;

function withoutMarkup(text: string): string {
  return text.replace(MARKUP, (whole, kind: string, payload: string) => {
    if (kind === 'cite' || kind === 'filecite') return '';
    if (kind !== 'entity') return whole;
    try {
      const entity = JSON.parse(payload) as unknown;
      return Array.isArray(entity) && typeof entity[1] === 'string' ? entity[1] : payload;
    } catch {
      return payload; // an older form: the name itself
    }
  });
}

/** What one message says, with its attachments named; '' for noise and hidden messages. */
function messageText(m: Message): string {
  if (m.metadata?.is_visually_hidden_from_conversation) return '';
  if (m.author.role !== 'user' && m.author.role !== 'assistant') return '';
  if (m.recipient && m.recipient !== 'all') return ''; // the assistant calling a tool
  if (!SHOWN.has(m.content.content_type)) return '';
  const names = new Map((m.metadata?.attachments ?? []).filter((a) => a.id).map((a) => [a.id!, a.name ?? a.id!]));
  const said: string[] = [];
  const mentioned = new Set<string>();
  if (m.content.content_type === 'code') {
    if (m.content.text?.trim()) said.push(`\`\`\`${m.content.language ?? ''}\n${m.content.text}\n\`\`\``);
  }
  for (const part of m.content.parts ?? []) {
    if (typeof part === 'string') {
      const text = withoutMarkup(part);
      if (text.trim()) said.push(text);
    } else if (part && typeof part === 'object') {
      const p = part as { content_type?: unknown; asset_pointer?: unknown; text?: unknown };
      if (p.content_type === 'image_asset_pointer' && typeof p.asset_pointer === 'string') {
        const id = p.asset_pointer.replace(/^[a-z-]+:\/\//, '');
        mentioned.add(id);
        said.push(`[image: ${names.get(id) ?? id}]`);
      } else if (p.content_type === 'audio_transcription' && typeof p.text === 'string' && p.text.trim()) {
        said.push(p.text);
      }
    }
  }
  for (const [id, name] of names) if (!mentioned.has(id)) said.push(`[attachment: ${name}]`);
  return said.join('\n\n').trim();
}

/**
 * The turns of the kept branch, the speakers named as the person saw them, and the model that
 * gave the last answer (the conversation's own says "auto" when ChatGPT chose).
 */
function turnsOf(c: Conversation): { turns: Turn[]; model: string | null } {
  let model = c.default_model_slug && c.default_model_slug !== 'auto' ? c.default_model_slug : null;
  const turns = keptBranch(c).flatMap((m) => {
    const text = messageText(m);
    if (!text) return [];
    if (m.author.role === 'assistant' && m.metadata?.model_slug) model = m.metadata.model_slug;
    return [{ speaker: m.author.role === 'user' ? 'User' : 'ChatGPT', at: secondsMs(m.create_time), text }];
  });
  return { turns, model };
}

function* conversationItems(c: Conversation, container: ContainerTarget, at: SourcePosition): Generator<ImportItem> {
  const id = (c.conversation_id ?? c.id)!;
  const { turns, model } = turnsOf(c);
  if (!turns.length) {
    yield { kind: 'skipped', what: 'empty conversation', plural: 'empty conversations', at };
    return;
  }
  const times = turns.map((t) => t.at).filter((t): t is number => t !== null);
  // Absent times fall back to its messages' (they do not change when it goes on), then to the epoch:
  // never the import's time.
  const createdAt = secondsMs(c.create_time) ?? times[0] ?? 0;
  const updatedAt = secondsMs(c.update_time) ?? times.at(-1) ?? createdAt;
  const attachments = [
    ...new Set(turns.flatMap((t) => [...t.text.matchAll(/\[(?:image|attachment): ([^\]\n]+)\]/g)].map((m) => m[1]!))),
  ];
  yield* conversationDocuments({
    product: 'ChatGPT',
    id,
    title: c.title,
    turns,
    createdAt,
    updatedAt,
    container,
    at,
    metadata: {
      ...(model ? { model } : {}),
      ...(c.is_archived ? { archived: true } : {}),
      ...(attachments.length ? { attachments: attachments.slice(0, 50) } : {}),
    },
  });
}

/**
 * Each conversation of a stream of `conversations.json`, as document items (or a skipped one), and
 * an invalid item for each that is not a conversation.
 */
async function* conversationsIn(
  chunks: AsyncIterable<Uint8Array>,
  file: string,
  container: ContainerTarget,
): AsyncGenerator<ImportItem> {
  for await (const element of jsonArrayElements(chunks, file, 'conversation', MAX_ELEMENT_BYTES)) {
    const parsed = Conversation.safeParse(element.value);
    if (parsed.success) yield* conversationItems(parsed.data, container, element.at);
    else
      yield invalid(
        element.at,
        `conversation ${element.index + 1} is not one ChatGPT exports: ${firstIssue(parsed.error.issues)}.`,
      );
  }
}

/**
 * Opens an export archive (its conversations.json is read) or a conversations.json itself; `label`
 * names it in messages.
 */
export async function openChatGpt(
  path: string,
  label: string,
  container: ContainerTarget | null,
): Promise<ImportReader> {
  const into = container ?? { name: 'ChatGPT', description: 'Conversations imported from ChatGPT.' };
  if (!(await isZip(path))) {
    const total = Bun.file(path).size;
    return {
      async *items(onRead: OnRead) {
        yield* conversationsIn(fileChunks(path, readCounter(onRead, total)), label, into);
      },
      close() {},
    };
  }
  const zip = await ZipArchive.open(path, label);
  // The archive's own, at its top or in its one folder; a conversations.json deeper down is someone else's.
  const entry = zip.entries
    .filter((e) => basename(e.name) === 'conversations.json')
    .sort((a, b) => a.name.split('/').length - b.name.split('/').length)[0];
  if (!entry) {
    zip.close();
    throw refusal(
      { file: label },
      'holds no conversations.json: is it the archive ChatGPT sends (Settings → Data controls → Export data)?',
    );
  }
  return {
    async *items(onRead: OnRead) {
      yield* conversationsIn(zip.chunks(entry, readCounter(onRead, entry.size)), `${label}/${entry.name}`, into);
    },
    close: () => zip.close(),
  };
}
