/**
 * A folder of Markdown notes (an Obsidian vault, a basic-memory project), or a zip of one: one
 * document per note (`.md`, `.markdown`; hidden folders such as `.obsidian` and `.git` left out),
 * named by its path in the folder. Its YAML front matter becomes metadata; its title is the front
 * matter's `title`, else its first heading, else its file name; its `[[wiki links]]` and tags
 * (`#tag`, and the front matter's `tags`) are kept in metadata too. A note that is not UTF-8 is
 * read in the encoding it is in (UTF-16 by its byte order mark, else as detected), and says which.
 */
import { readdir, stat } from 'node:fs/promises';
import { basename, extname, join, relative, sep } from 'node:path';
import { detect } from 'chardet';
import { parse as parseYaml, YAMLParseError } from 'yaml';
import { LIMITS } from '../limits';
import { isZip } from './bytes';
import { ZipArchive } from './zip';
import { type ContainerTarget, type ImportItem, type ImportReader, invalid, type OnRead, readCounter } from './items';
import { refusal, type SourcePosition, SourceRefusal } from './problem';
import { containerName, customId, documentParts, fitTitle, isoMs } from './text-parts';

/** The largest note read: far beyond any written by hand, and what bounds memory. */
const MAX_NOTE_BYTES = 16 * 1024 * 1024;

const NOTE = /\.(md|markdown)$/i;

const tooLarge = `is larger than ${MAX_NOTE_BYTES} bytes: too large for a note.`;

/** Whether a path inside the folder is one to read: a note, not inside a hidden folder, not hidden itself. */
const isNote = (path: string) => NOTE.test(path) && !path.split('/').some((part) => part.startsWith('.'));

/**
 * A note's bytes as text: UTF-8, or UTF-16 by its byte order mark, or the encoding detected;
 * `encoding` says which when not UTF-8.
 */
function decodeNote(bytes: Uint8Array): { text: string; encoding: string | null } {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf)
    return { text: new TextDecoder().decode(bytes.subarray(3)), encoding: null };
  if (bytes[0] === 0xff && bytes[1] === 0xfe)
    return { text: new TextDecoder('utf-16le').decode(bytes.subarray(2)), encoding: 'UTF-16LE' };
  if (bytes[0] === 0xfe && bytes[1] === 0xff)
    return { text: new TextDecoder('utf-16be').decode(bytes.subarray(2)), encoding: 'UTF-16BE' };
  try {
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(bytes), encoding: null };
  } catch {
    const detected = detect(bytes);
    try {
      return { text: new TextDecoder(detected ?? 'windows-1252').decode(bytes), encoding: detected ?? 'windows-1252' };
    } catch {
      // An encoding the runtime does not know: windows-1252 reads every byte as some character.
      return { text: new TextDecoder('windows-1252').decode(bytes), encoding: 'windows-1252' };
    }
  }
}

/**
 * The front matter (a YAML mapping between `---` lines at the very top) and the body after it; a
 * broken one is refused where it breaks.
 */
function splitFrontMatter(
  text: string,
  at: SourcePosition,
): { front: Record<string, unknown> | null; source: string; body: string } {
  const open = /^---[ \t]*\r?\n/.exec(text);
  const close = open && /^(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/m.exec(text.slice(open[0].length));
  if (!open || !close) return { front: null, source: '', body: text };
  const source = text.slice(open[0].length, open[0].length + close.index);
  const body = text.slice(open[0].length + close.index + close[0].length);
  let value: unknown;
  try {
    value = parseYaml(source);
  } catch (err) {
    if (!(err instanceof YAMLParseError)) throw err;
    const pos = err.linePos?.[0];
    const where = pos ? { ...at, line: pos.line + 1, column: pos.col } : at;
    // The parser's message says where in the front matter; ours says where in the file.
    throw refusal(
      where,
      `its front matter is not valid YAML: ${err.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '')}.`,
    );
  }
  if (value === null || value === undefined) return { front: null, source, body };
  if (typeof value !== 'object' || Array.isArray(value))
    throw refusal({ ...at, line: 2, column: 1 }, 'its front matter is not a mapping of names to values.');
  // As JSON: what metadata can hold (YAML can say more, such as a key that is a list).
  return { front: JSON.parse(JSON.stringify(value)) as Record<string, unknown>, source, body };
}

/**
 * A fenced code block, at the top level or inside a callout or quote (its lines opening with `>`,
 * nested or not): from its opening fence to the closing one of the same characters.
 */
const FENCED = /^(?:[ \t]{0,3}>)*[ \t]{0,3}(`{3,}|~{3,})[^\n]*\n[\s\S]*?^(?:[ \t]{0,3}>)*[ \t]{0,3}\1[ \t]*$/gm;

/** The body without fenced and inline code: where headings, tags and links are looked for. */
const withoutCode = (body: string) => body.replace(FENCED, '').replace(/`[^`\n]*`/g, '');

const unique = (values: string[]) => [...new Set(values.filter(Boolean))];

/**
 * Tags as Obsidian reads them: `#tag` in the text (not only digits) and the front matter's `tags`
 * (a list, or words in a string).
 */
function tagsOf(prose: string, front: Record<string, unknown> | null): string[] {
  const listed = front?.tags ?? front?.tag;
  const fromFront = Array.isArray(listed)
    ? listed.map(String)
    : typeof listed === 'string'
      ? listed.split(/[,\s]+/)
      : [];
  const inline = [...prose.matchAll(/(?:^|\s)#([\p{L}\p{N}_\-/]*[\p{L}_\-/][\p{L}\p{N}_\-/]*)/gu)].map((m) => m[1]!);
  return unique([...fromFront, ...inline].map((t) => t.trim().replace(/^#/, '')));
}

/** The notes a note links to: `[[target]]`, `[[target|shown]]`, `[[target#heading]]`, `![[embedded]]`. */
const linksOf = (prose: string) =>
  unique([...prose.matchAll(/!?\[\[([^\]\n|#^]+)[^\]\n]*\]\]/g)].map((m) => m[1]!.trim()));

/**
 * Metadata within the API's 16 KiB: the front matter goes first when it is too much, then the
 * longest lists are halved.
 */
function fitMetadata(metadata: Record<string, unknown>): Record<string, unknown> {
  const fits = (m: Record<string, unknown>) => Buffer.byteLength(JSON.stringify(m)) <= LIMITS.metadataBytes;
  if (fits(metadata)) return metadata;
  const { front_matter: _dropped, ...rest } = metadata;
  const fitted: Record<string, unknown> = { ...rest, front_matter_omitted: 'too large for metadata' };
  while (!fits(fitted)) {
    for (const key of ['links', 'tags'] as const) {
      const list = fitted[key] as string[] | undefined;
      if (list?.length) fitted[key] = list.slice(0, Math.floor(list.length / 2));
    }
  }
  return fitted;
}

/** The items of one note (none but a skip when it holds nothing). */
function noteItems(
  bytes: Uint8Array,
  path: string,
  at: SourcePosition,
  modified: number,
  container: ContainerTarget,
): ImportItem[] {
  const { text, encoding } = decodeNote(bytes);
  let split: ReturnType<typeof splitFrontMatter>;
  try {
    split = splitFrontMatter(text, at);
  } catch (err) {
    if (err instanceof SourceRefusal) return [{ kind: 'invalid', refusal: err }];
    throw err;
  }
  const { front, source, body } = split;
  if (!body.trim() && !source.trim()) return [{ kind: 'skipped', what: 'empty note', plural: 'empty notes', at }];
  const prose = withoutCode(body);
  const heading = /^#[ \t]+(.+?)[ \t]*#*[ \t]*$/m.exec(prose)?.[1];
  const title = fitTitle(
    (typeof front?.title === 'string' && front.title.trim()) || heading || basename(path, extname(path)),
  );
  const tags = tagsOf(prose, front);
  const links = linksOf(prose);
  const metadata = fitMetadata({
    source: 'markdown',
    path,
    ...(front ? { front_matter: front } : {}),
    ...(tags.length ? { tags } : {}),
    ...(links.length ? { links } : {}),
    ...(encoding ? { encoding } : {}),
  });
  // A note of front matter alone (a person's card, say) is searchable by it.
  const parts = documentParts(body.trim() || source.trim(), (part, n) => `${title} (part ${part} of ${n})`);
  // When it was written: the front matter's `created` or `date` when it says, else as the file was last changed.
  const createdAt = isoMs(front?.created) ?? isoMs(front?.date) ?? modified;
  return parts.map((content, i) => ({
    kind: 'document' as const,
    container,
    at,
    content,
    createdAt,
    updatedAt: Math.max(createdAt, modified),
    customId: customId('markdown', i === 0 ? path : `${path}#${i + 1}`),
    title: parts.length > 1 ? fitTitle(`${title} (part ${i + 1} of ${parts.length})`) : title,
    metadata: parts.length > 1 ? { ...metadata, part: i + 1, parts: parts.length } : metadata,
  }));
}

/** The folder's container: named after it. */
const folderContainer = (name: string): ContainerTarget => ({
  name: containerName(name, 'Notes'),
  description: `Notes imported from the folder ${name}.`,
});

/**
 * Opens a folder of notes, or a zip of one (its one top folder, if it has one, names the
 * container); `label` names it in messages.
 */
export async function openMarkdown(path: string, label: string, into: ContainerTarget | null): Promise<ImportReader> {
  if ((await stat(path)).isDirectory()) {
    const files = (await readdir(path, { recursive: true, withFileTypes: true }))
      .filter((d) => d.isFile())
      .map((d) => relative(path, join(d.parentPath, d.name)).split(sep).join('/').normalize('NFC'))
      .filter(isNote)
      .sort();
    const sizes = await Promise.all(files.map(async (f) => (await stat(join(path, f))).size));
    const total = sizes.reduce((a, b) => a + b, 0);
    const container = into ?? folderContainer(basename(path));
    return {
      async *items(onRead: OnRead) {
        const counter = readCounter(onRead, total);
        for (const [i, file] of files.entries()) {
          const at = { file: `${label}/${file}` };
          const full = join(path, file);
          if (sizes[i]! > MAX_NOTE_BYTES) yield invalid(at, tooLarge);
          else
            yield* noteItems(await Bun.file(full).bytes(), file, at, Math.round((await stat(full)).mtimeMs), container);
          counter(sizes[i]!);
        }
      },
      close() {},
    };
  }
  if (!(await isZip(path))) throw refusal({ file: label }, 'is neither a folder nor a zip archive of one.');
  const zip = await ZipArchive.open(path, label);
  const notes = zip.entries.filter((e) => isNote(e.name)).sort((a, b) => (a.name < b.name ? -1 : 1));
  // A zip of one folder holds everything under it: that folder names the container, and is not part
  // of the notes' paths.
  const tops = new Set(zip.entries.map((e) => (e.name.includes('/') ? e.name.split('/')[0] : '')));
  const top = tops.size === 1 && !tops.has('') ? [...tops][0]! : null;
  const container = into ?? folderContainer(top ?? basename(label, extname(label)));
  const total = notes.reduce((sum, e) => sum + e.size, 0);
  return {
    async *items(onRead: OnRead) {
      const counter = readCounter(onRead, total);
      for (const entry of notes) {
        const at = { file: `${label}/${entry.name}` };
        if (entry.size > MAX_NOTE_BYTES) {
          yield invalid(at, tooLarge);
          counter(entry.size);
          continue;
        }
        const bytes = await zip.bytes(entry, counter);
        yield* noteItems(
          bytes,
          (top ? entry.name.slice(top.length + 1) : entry.name).normalize('NFC'),
          at,
          entry.modified.getTime(),
          container,
        );
      }
    },
    close: () => zip.close(),
  };
}
