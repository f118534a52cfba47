/**
 * Claude's data export (Settings → Privacy → Export data): the archive, or its
 * `conversations.json` or `projects.json`. Conversations are a JSON array, each with its
 * `chat_messages` (sender `human` or `assistant`, content blocks, attachments with their extracted
 * text, files). Newer exports give each message its `parent_message_uuid`: editing or retrying
 * makes branches, and the kept one ends at `current_leaf_message_uuid` (or, without it, at the
 * newest message). Projects are an array too, each with its knowledge documents (`docs`) and its
 * instructions (`prompt_template`).
 *
 * A conversation becomes one document (in "Claude", or its project's container when it names one);
 * each project gets a container of its own holding its documents and instructions.
 */
import { basename } from 'node:path';
import { z } from 'zod';
import { fileChunks, isZip } from './bytes';
import { ZipArchive } from './zip';
import { type ContainerTarget, type ImportItem, type ImportReader, invalid, type OnRead, readCounter } from './items';
import { jsonArrayElements, MAX_ELEMENT_BYTES } from './json-array';
import { firstIssue, refusal, type SourcePosition } from './problem';
import { containerName, customId, documentParts, fitDescription, fitTitle, isoMs } from './text-parts';
import { conversationDocuments, type Turn } from './transcript';

/** The parent the first message of a conversation names: no message. */
const ROOT_PARENT = /^0{8}-0{4}-[0-9a-f]0{3}-[0-9a-f]0{3}-0{12}$/;

const Message = z.looseObject({
  uuid: z.string().nullish(),
  sender: z.string(),
  text: z.string().nullish(),
  content: z.array(z.looseObject({ type: z.string(), text: z.string().nullish() })).nullish(),
  created_at: z.string().nullish(),
  attachments: z
    .array(z.looseObject({ file_name: z.string().nullish(), extracted_content: z.string().nullish() }))
    .nullish(),
  files: z.array(z.looseObject({ file_name: z.string().nullish() })).nullish(),
  parent_message_uuid: z.string().nullish(),
});

const Conversation = z.looseObject({
  uuid: z.string().min(1),
  name: z.string().nullish(),
  created_at: z.string().nullish(),
  updated_at: z.string().nullish(),
  chat_messages: z.array(Message),
  current_leaf_message_uuid: z.string().nullish(),
  project_uuid: z.string().nullish(),
  project: z.looseObject({ uuid: z.string().nullish(), name: z.string().nullish() }).nullish(),
});

const Project = z.looseObject({
  uuid: z.string().min(1),
  name: z.string(),
  description: z.string().nullish(),
  is_starter_project: z.boolean().nullish(),
  prompt_template: z.string().nullish(),
  created_at: z.string().nullish(),
  updated_at: z.string().nullish(),
  docs: z
    .array(
      z.looseObject({
        uuid: z.string().min(1),
        filename: z.string().nullish(),
        content: z.string(),
        created_at: z.string().nullish(),
      }),
    )
    .nullish(),
});

type Conversation = z.infer<typeof Conversation>;
type Message = z.infer<typeof Message>;
type Project = z.infer<typeof Project>;

const CLAUDE: ContainerTarget = { name: 'Claude', description: 'Conversations imported from Claude.' };

/**
 * The messages of the branch kept, first to last (see the file's comment); the list as it is when
 * messages name no parents.
 */
function keptBranch(c: Conversation): Message[] {
  const messages = c.chat_messages;
  if (!messages.some((m) => m.parent_message_uuid && m.uuid)) return messages;
  const byId = new Map(messages.filter((m) => m.uuid).map((m) => [m.uuid!, m]));
  const parents = new Set(messages.map((m) => m.parent_message_uuid).filter(Boolean));
  const newest = (a: Message, b: Message) => ((isoMs(b.created_at) ?? 0) > (isoMs(a.created_at) ?? 0) ? b : a);
  const leaf =
    (c.current_leaf_message_uuid && byId.get(c.current_leaf_message_uuid)) ||
    messages.filter((m) => m.uuid && !parents.has(m.uuid)).reduce(newest);
  const branch: Message[] = [];
  const seen = new Set<string>();
  for (
    let m: Message | undefined = leaf;
    m?.uuid && !seen.has(m.uuid);
    m = m.parent_message_uuid && !ROOT_PARENT.test(m.parent_message_uuid) ? byId.get(m.parent_message_uuid) : undefined
  ) {
    seen.add(m.uuid);
    branch.unshift(m);
  }
  return branch;
}

/**
 * What a message says (its text blocks; thinking and tool use are left out), with its attachments'
 * text and its files named.
 */
function messageText(m: Message): string {
  const blocks = m.content?.length
    ? m.content.filter((b) => b.type === 'text' && b.text?.trim()).map((b) => b.text!)
    : [m.text ?? ''];
  const said = blocks.filter((t) => t.trim());
  for (const a of m.attachments ?? []) {
    said.push(`[attachment: ${a.file_name?.trim() || 'unnamed'}]`);
    if (a.extracted_content?.trim()) said.push(a.extracted_content);
  }
  for (const f of m.files ?? []) if (f.file_name?.trim()) said.push(`[file: ${f.file_name.trim()}]`);
  return said.join('\n\n').trim();
}

function projectContainer(name: string, description: string | null | undefined): ContainerTarget {
  return {
    name: containerName(name, 'Claude project'),
    description: fitDescription(description?.trim() || 'A Claude project, imported.'),
  };
}

function* conversationItems(
  c: Conversation,
  into: ContainerTarget | null,
  projects: Map<string, ContainerTarget>,
  at: SourcePosition,
): Generator<ImportItem> {
  const turns: Turn[] = keptBranch(c).flatMap((m) => {
    const text = messageText(m);
    if (!text || (m.sender !== 'human' && m.sender !== 'assistant')) return [];
    return [{ speaker: m.sender === 'human' ? 'User' : 'Claude', at: isoMs(m.created_at), text }];
  });
  if (!turns.length) {
    yield { kind: 'skipped', what: 'empty conversation', plural: 'empty conversations', at };
    return;
  }
  const projectId = c.project?.uuid ?? c.project_uuid;
  const container =
    into ??
    (projectId ? projects.get(projectId) : undefined) ??
    (c.project?.name ? projectContainer(c.project.name, null) : CLAUDE);
  const times = turns.map((t) => t.at).filter((t): t is number => t !== null);
  const createdAt = isoMs(c.created_at) ?? times[0] ?? 0;
  const updatedAt = isoMs(c.updated_at) ?? times.at(-1) ?? createdAt;
  yield* conversationDocuments({
    product: 'Claude',
    id: c.uuid,
    title: c.name,
    turns,
    createdAt,
    updatedAt,
    container,
    // Read without its projects.json, a project's conversation lands in "Claude": read with it, it moves to its project.
    fallback: container === CLAUDE || into ? undefined : CLAUDE,
    at,
    metadata: projectId ? { project_uuid: projectId } : {},
  });
}

function* projectItems(p: Project, into: ContainerTarget | null, at: SourcePosition): Generator<ImportItem> {
  if (p.is_starter_project) {
    yield { kind: 'skipped', what: "Claude's starter project", plural: "Claude's starter projects", at };
    return;
  }
  const container = into ?? projectContainer(p.name, p.description);
  const createdAt = isoMs(p.created_at) ?? 0;
  const updatedAt = isoMs(p.updated_at) ?? createdAt;
  const base = {
    source: 'claude',
    project: p.name,
    project_uuid: p.uuid,
    updated_at: new Date(updatedAt).toISOString(),
  };
  const documents = [
    ...(p.prompt_template?.trim()
      ? [{ id: 'instructions', title: `Instructions of the project ${p.name}`, content: p.prompt_template, createdAt }]
      : []),
    ...(p.docs ?? []).map((d) => ({
      id: d.uuid,
      title: d.filename?.trim() || 'Untitled document',
      content: d.content,
      createdAt: isoMs(d.created_at) ?? createdAt,
    })),
  ];
  if (!documents.length) yield { kind: 'skipped', what: 'empty project', plural: 'empty projects', at };
  for (const d of documents) {
    if (!d.content.trim()) {
      yield { kind: 'skipped', what: 'empty project document', plural: 'empty project documents', at };
      continue;
    }
    const title = fitTitle(d.title);
    const parts = documentParts(d.content, (part, n) => `${title} (part ${part} of ${n})`);
    for (const [i, content] of parts.entries()) {
      yield {
        kind: 'document',
        container,
        global: true,
        at,
        content,
        createdAt: d.createdAt,
        updatedAt,
        customId: customId('claude-project', `${p.uuid}/${d.id}${i ? `#${i + 1}` : ''}`),
        title: parts.length > 1 ? fitTitle(`${title} (part ${i + 1} of ${parts.length})`) : title,
        metadata: {
          ...base,
          ...(d.id === 'instructions' ? { instructions: true } : { doc_uuid: d.id }),
          ...(parts.length > 1 ? { part: i + 1, parts: parts.length } : {}),
        },
      };
    }
  }
}

/**
 * The items of one of the export's files, conversations or projects, told apart by what each
 * element holds (a renamed file reads the same). `projects` gathers the projects' containers as
 * they come, so the conversations after them land in theirs.
 */
async function* fileItems(
  chunks: AsyncIterable<Uint8Array>,
  file: string,
  into: ContainerTarget | null,
  projects: Map<string, ContainerTarget>,
): AsyncGenerator<ImportItem> {
  for await (const element of jsonArrayElements(chunks, file, 'entry', MAX_ELEMENT_BYTES)) {
    const value = element.value as Record<string, unknown> | null;
    const n = element.index + 1;
    if (value && typeof value === 'object' && 'chat_messages' in value) {
      const parsed = Conversation.safeParse(value);
      if (parsed.success) yield* conversationItems(parsed.data, into, projects, element.at);
      else
        yield invalid(element.at, `conversation ${n} is not one Claude exports: ${firstIssue(parsed.error.issues)}.`);
    } else if (value && typeof value === 'object' && ('docs' in value || 'prompt_template' in value)) {
      const parsed = Project.safeParse(value);
      if (parsed.success) {
        projects.set(parsed.data.uuid, projectContainer(parsed.data.name, parsed.data.description));
        yield* projectItems(parsed.data, into, element.at);
      } else yield invalid(element.at, `project ${n} is not one Claude exports: ${firstIssue(parsed.error.issues)}.`);
    } else {
      yield invalid(
        element.at,
        `entry ${n} is neither a Claude conversation (it has no chat_messages) nor a project (no docs or prompt_template).`,
      );
    }
  }
}

/**
 * Opens an export archive (its projects.json, then its conversations.json) or one of those files;
 * `label` names it in messages.
 */
export async function openClaude(path: string, label: string, into: ContainerTarget | null): Promise<ImportReader> {
  if (!(await isZip(path))) {
    const total = Bun.file(path).size;
    return {
      async *items(onRead: OnRead) {
        yield* fileItems(fileChunks(path, readCounter(onRead, total)), label, into, new Map());
      },
      close() {},
    };
  }
  const zip = await ZipArchive.open(path, label);
  const wanted = ['projects.json', 'conversations.json'].flatMap((name) =>
    zip.entries
      .filter((e) => basename(e.name) === name)
      .sort((a, b) => a.name.split('/').length - b.name.split('/').length)
      .slice(0, 1),
  );
  if (!wanted.some((e) => basename(e.name) === 'conversations.json')) {
    zip.close();
    throw refusal(
      { file: label },
      'holds no conversations.json: is it the archive Claude sends (Settings → Privacy → Export data)?',
    );
  }
  const total = wanted.reduce((sum, e) => sum + e.size, 0);
  return {
    async *items(onRead: OnRead) {
      const projects = new Map<string, ContainerTarget>();
      const counter = readCounter(onRead, total);
      for (const entry of wanted)
        yield* fileItems(zip.chunks(entry, counter), `${label}/${entry.name}`, into, projects);
    },
    close: () => zip.close(),
  };
}
