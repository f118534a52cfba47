/**
 * `engram export` and `engram import`: one account's containers, documents, facts (the profile's
 * static ones included, with where each was learned from and its earlier wordings) and rules as
 * JSON lines, without any secret (no keys, tokens, sessions, codes or hashes). Version 2 is written;
 * versions 1 and 2 are read. Import gives everything new ids and keeps times and custom_ids; it
 * checks each line by the rules of the operation that would add it over the API, and remembers what
 * it brought so that importing the same export again adds nothing.
 */
import { z } from 'zod';
import { iso } from '../clock';
import { ServiceError } from '../errors';
import { newId, sha256 } from '../ids';
import { addDocument, checkDocumentSource } from '../operations/add-document';
import { addMemory } from '../operations/add-memory';
import { addRule } from '../operations/add-rule';
import { createContainer } from '../operations/create-container';
import { parseInput } from '../operations/operation';
import { type DocumentLearning, insertDocument, insertFact } from '../learning/queue';
import type { DocumentRow, ImportedKind, Repositories, Store } from '../storage/store';

export const EXPORT_FORMAT = 'engram-export';
export const EXPORT_VERSION = 2;
/** The versions `importAccount` reads. Version 1 had no document ids, states, fact sources or history. */
const READABLE_VERSIONS = [1, 2];

const time = z.number().int();

const HeaderLine = z.object({
  type: z.literal('header'), format: z.string(), version: z.number(), exported_at: z.string().optional(),
  /** The exporting account's id; with a line's id it names the thing an import remembers. Absent in older files. */
  account: z.string().min(1).optional(),
});

const ContainerLine = z.object({
  type: z.literal('container'), id: z.string(), name: z.string().min(1), description: z.string(), created_at: time,
  /** Version 2. */
  updated_at: time.optional(),
});

const DocumentV1 = z.object({
  type: z.literal('document'), container: z.string(), title: z.string().nullable(), content: z.string().nullable(), url: z.string().nullable(),
  custom_id: z.string().nullable(), metadata: z.record(z.string(), z.unknown()).nullable(), created_at: time,
});

const DocumentV2 = DocumentV1.extend({
  /** The document's id on the exporting server: fact lines name their source by it. */
  id: z.string(),
  status: z.enum(['queued', 'learned', 'failed']),
  error: z.string().nullable(),
  updated_at: time,
  learned_at: time.nullable(),
  /** A learned URL document: the passages its page was read as, so an import needs no fetch. Null otherwise. */
  passages: z.array(z.object({ position: z.number().int(), title: z.string().nullable(), content: z.string() })).nullable(),
});

const FactV1 = z.object({
  type: z.literal('fact'), container: z.string().nullable(), content: z.string(), title: z.string().nullable(), static: z.boolean(),
  created_at: time, updated_at: time,
});

const FactV2 = FactV1.extend({
  /** The document (its export-time id) and passage position the fact was learned from; null when saved directly. */
  source: z.object({ document: z.string(), position: z.number().int() }).nullable(),
  /** Earlier wordings, oldest first. */
  history: z.array(z.object({ content: z.string(), replaced_at: time })),
  /** When the owner confirmed or edited it (such a fact outlives its source document); absent in older files. */
  reviewed_at: time.nullable().optional(),
  /** The fact's id on the exporting server; absent in older files. */
  id: z.string().min(1).optional(),
});

const RuleLine = z.object({
  type: z.literal('rule'), text: z.string(), credential_id: z.string().nullable(), created_at: time,
  /** The rule's id on the exporting server (written from version 2 on; absent in older files). */
  id: z.string().min(1).optional(),
});

type Line =
  | z.infer<typeof HeaderLine>
  | Required<z.infer<typeof ContainerLine>>
  | z.infer<typeof DocumentV2>
  | z.infer<typeof FactV2>
  | z.infer<typeof RuleLine>;

const SCHEMAS: Record<number, Record<string, z.ZodType>> = {
  1: { header: HeaderLine, container: ContainerLine, document: DocumentV1, fact: FactV1, rule: RuleLine },
  2: { header: HeaderLine, container: ContainerLine, document: DocumentV2, fact: FactV2, rule: RuleLine },
};

const PAGE = 200;

/**
 * Writes the account's memory, line by line, from one consistent snapshot (the server may be
 * running): the header, containers, documents in the order they were stored, facts oldest first,
 * then rules. Documents come before the facts that name them as their source.
 */
export function exportAccount(store: Store, accountId: string, now: number, write: (line: string) => void): Promise<void> {
  const emit = (line: Line) => write(JSON.stringify(line));
  return store.snapshot(async (tx) => {
    emit({ type: 'header', format: EXPORT_FORMAT, version: EXPORT_VERSION, exported_at: iso(now)!, account: accountId });
    for (const c of await tx.containers.list(accountId)) {
      emit({ type: 'container', id: c.id, name: c.name, description: c.description, created_at: c.createdAt, updated_at: c.updatedAt });
    }
    // In the order they were stored, so that an import stores them in the same order again.
    for (let page = await tx.documents.listInInsertOrder(accountId, 0, PAGE); page.lastSeq !== null; page = await tx.documents.listInInsertOrder(accountId, page.lastSeq, PAGE)) {
      for (const d of page.documents) emit(await documentLine(tx, d));
    }
    for (const m of await tx.facts.list(accountId)) {
      emit({
        type: 'fact', id: m.id, container: m.containerId, content: m.content, title: m.title, static: m.static,
        created_at: m.createdAt, updated_at: m.updatedAt,
        source: m.sourceDocumentId ? { document: m.sourceDocumentId, position: m.sourcePosition ?? 0 } : null,
        history: (await tx.facts.listHistory(accountId, m.id)).map((h) => ({ content: h.content, replaced_at: h.replacedAt })),
        reviewed_at: m.reviewedAt ?? null,
      });
    }
    for (const r of await tx.rules.list(accountId, null)) {
      emit({ type: 'rule', id: r.id, text: r.text, credential_id: r.credentialId, created_at: r.createdAt });
    }
  });
}

async function documentLine(store: Repositories, d: DocumentRow): Promise<z.infer<typeof DocumentV2>> {
  // A page is read when it is learned and only its passages keep the text: they travel, since the
  // page may have changed or gone, or the importing server may not reach it.
  const passages = d.url != null && d.status === 'learned' ? await store.passages.list(d.accountId, d.id) : null;
  return {
    type: 'document', id: d.id, container: d.containerId, title: d.title, content: d.content, url: d.url, custom_id: d.customId,
    metadata: d.metadata, status: d.status, error: d.error, created_at: d.createdAt, updated_at: d.updatedAt, learned_at: d.learnedAt, passages,
  };
}

type Counts = Record<ImportedKind, number>;

const noCounts = (): Counts => ({ container: 0, document: 0, fact: 0, rule: 0 });

export interface ImportSummary {
  /** What this import added. */
  added: Counts;
  /** Documents whose custom_id the container already held: left as they are. */
  existing: number;
  /** What an earlier import of the same export (or an overlapping one) brought and is still here: not added again. */
  skipped: Counts;
  /** Facts whose source document the file did not hold: imported without a source. */
  unsourced: number;
}

export class ImportError extends Error {}

/**
 * Reads an export into the account, all in one transaction: a bad line changes nothing. Learning
 * jobs are queued at `now`, not at the documents' (old, or another machine's) creation times.
 *
 * - Each line is checked by the rules of the operation that adds such a thing over the API
 *   (create_container, add_document, add_memory, add_rule): one they refuse is refused with the
 *   API's code and message, naming the line.
 * - What the import brings is remembered (`import_origins`) under the file's source (the exporting
 *   account's id) and the line's exported id (a digest of the line when it has none): a thing an
 *   earlier import brought and that is still here is skipped, and lines naming it use that one.
 * - Containers are matched by name (made when missing; a matched one is left as it is).
 * - A document whose custom_id the container already holds is left as it is; facts that name it
 *   as their source point at the one already there.
 * - A document that was learned is learned again for search (passages, vectors) but no facts are
 *   extracted from it: they are in the file. It keeps its times. A URL document is indexed from
 *   the passages in the file, not fetched. One that was still queued is learned in full (its
 *   facts were never extracted). One that failed stays failed with its reason; nothing is fetched.
 * - Version 1 files do not say which documents were learned: every document is learned again
 *   without fact extraction (the file's facts may come from any of them), URL ones fetched.
 * - A fact keeps its source document and passage, and its earlier wordings. A source the file
 *   does not hold (a document deleted, or a hand-edited file) is dropped: the fact comes without one.
 * - A rule for a key of this account keeps its key; one for a key not here holds for the whole account.
 */
export async function importAccount(store: Store, accountId: string, lines: string[], now: number): Promise<ImportSummary> {
  const summary: ImportSummary = { added: noCounts(), existing: 0, skipped: noCounts(), unsourced: 0 };
  const containerIds = new Map<string, string>();
  const documentIds = new Map<string, string>();
  /** Per digest of a line without an id, how many such lines came so far: two equal lines are two things. */
  const digests = new Map<string, number>();
  let header: Header | null = null;
  await store.transaction(async (tx) => {
    const readLine = async (text: string, n: number): Promise<void> => {
      if (!text.trim()) return;
      let raw: { type?: unknown; format?: unknown; version?: unknown };
      try {
        raw = JSON.parse(text);
      } catch {
        throw new ImportError(`Line ${n + 1} is not JSON.`);
      }
      if (header === null) {
        header = readHeader(raw);
        return;
      }
      const { version, source } = header;
      const schemas = SCHEMAS[version]!;
      // Own keys only: a line of type "constructor" is an unknown type, not Object.prototype's.
      const schema = typeof raw?.type === 'string' && Object.hasOwn(schemas, raw.type) ? schemas[raw.type] : undefined;
      if (!schema) throw new ImportError(`Line ${n + 1} has an unknown type.`);
      const parsed = schema.safeParse(raw);
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        throw new ImportError(`Line ${n + 1} is not a valid ${raw.type} line: ${issue.path.join('.') || 'line'}: ${issue.message}.`);
      }
      const line = parsed.data as { type: Line['type'] };
      const asTheApi = <T>(check: () => T): T => checkedAsTheApi(n + 1, check);
      const container = (id: string | null) => {
        if (id === null) return null;
        const mapped = containerIds.get(id);
        if (!mapped) throw new ImportError(`Line ${n + 1} names a container the export did not list: ${id}.`);
        return mapped;
      };
      /** The line's name in the export: its id, or a digest of the line (counted) when it has none. */
      const exportedId = (id: string | undefined) => {
        if (id !== undefined) return id;
        const digest = sha256(JSON.stringify(line));
        const seen = (digests.get(digest) ?? 0) + 1;
        digests.set(digest, seen);
        return `${digest}#${seen}`;
      };
      const earlier = (kind: ImportedKind, exported: string) => tx.importOrigins.get(accountId, source, kind, exported);
      const remember = (kind: ImportedKind, exported: string, localId: string) =>
        tx.importOrigins.insert({ accountId, source, kind, exportedId: exported, localId, importedAt: now });
      switch (line.type) {
        case 'header':
          throw new ImportError(`Line ${n + 1} is a second header.`);
        case 'container': {
          const c = line as z.infer<typeof ContainerLine>;
          const { name, description } = asTheApi(() => parseInput(createContainer.input, { name: c.name, description: c.description }));
          const known = await earlier('container', c.id);
          if (known) {
            containerIds.set(c.id, known);
            summary.skipped.container++;
            return;
          }
          let id = (await tx.containers.getByName(accountId, name))?.id;
          if (!id) {
            id = newId('ctr');
            const times = { createdAt: c.created_at, updatedAt: c.updated_at ?? c.created_at };
            await tx.containers.insert({ id, accountId, name, description: description ?? '', ...times });
            summary.added.container++;
          }
          containerIds.set(c.id, id);
          await remember('container', c.id, id);
          return;
        }
        case 'document': {
          const d = line as z.infer<typeof DocumentV1> & Partial<z.infer<typeof DocumentV2>>;
          asTheApi(() => {
            // The API takes no null for these two: absent is what a null in the file means.
            const [customId, title] = [d.custom_id ?? undefined, d.title ?? undefined];
            parseInput(addDocument.input, { content: d.content, url: d.url, custom_id: customId, metadata: d.metadata, title });
            checkDocumentSource(d);
          });
          const containerId = container(d.container)!;
          const exported = exportedId(d.id);
          const known = await earlier('document', exported);
          if (known) {
            if (d.id !== undefined) documentIds.set(d.id, known);
            summary.skipped.document++;
            return;
          }
          const { row, learning } = importedDocument(d);
          const { inserted, document } = await insertDocument(tx, {
            id: newId('doc'), accountId, containerId, title: d.title, content: d.content, url: d.url,
            customId: d.custom_id, metadata: d.metadata, createdAt: d.created_at, ...row,
          }, learning, now);
          if (d.id !== undefined) documentIds.set(d.id, document.id);
          await remember('document', exported, document.id);
          if (inserted) summary.added.document++;
          else summary.existing++;
          return;
        }
        case 'fact': {
          const f = line as z.infer<typeof FactV1> & Partial<z.infer<typeof FactV2>>;
          asTheApi(() => parseInput(addMemory.input, { content: f.content, title: f.title ?? undefined }));
          const containerId = container(f.container);
          const exported = exportedId(f.id);
          if (await earlier('fact', exported)) {
            summary.skipped.fact++;
            return;
          }
          const sourceId = f.source ? documentIds.get(f.source.document) ?? null : null;
          if (f.source && !sourceId) summary.unsourced++;
          const id = newId('mem');
          await insertFact(tx, {
            id, accountId, containerId, content: f.content, title: f.title, static: f.static,
            createdAt: f.created_at, updatedAt: f.updated_at,
            sourceDocumentId: sourceId, sourcePosition: sourceId ? f.source!.position : null, reviewedAt: f.reviewed_at ?? null,
          }, (f.history ?? []).map((h) => ({ content: h.content, replacedAt: h.replaced_at })));
          await remember('fact', exported, id);
          summary.added.fact++;
          return;
        }
        case 'rule': {
          const r = line as z.infer<typeof RuleLine>;
          const { text: ruleText } = asTheApi(() => parseInput(addRule.input, { text: r.text }));
          const exported = exportedId(r.id);
          if (await earlier('rule', exported)) {
            summary.skipped.rule++;
            return;
          }
          const credentialId = r.credential_id && (await tx.credentials.get(accountId, r.credential_id)) ? r.credential_id : null;
          const id = newId('rul');
          await tx.rules.insert({ id, accountId, credentialId, text: ruleText, createdAt: r.created_at });
          await remember('rule', exported, id);
          summary.added.rule++;
          return;
        }
      }
    };
    for (const [n, text] of lines.entries()) await readLine(text, n);
    if (header === null) throw new ImportError('The file is empty: it is not an Engram export.');
  });
  return summary;
}

/** What `engram import` tells the person it did. */
export function describeImport(s: ImportSummary): string[] {
  const { added, skipped } = s;
  const before = listed([
    [skipped.container, 'containers'], [skipped.document, 'documents'], [skipped.fact, 'facts'], [skipped.rule, 'rules'],
  ]);
  const lines = [
    `Imported ${added.container} new containers, ${added.document} documents (${s.existing} already there), `
    + `${added.fact} facts, ${added.rule} rules${before ? `; skipped ${before} already imported` : ''}.`,
  ];
  if (s.unsourced) lines.push(`${s.unsourced} facts name a source document the file does not hold; they were imported without a source.`);
  return lines;
}

/** "2 documents and 40 facts" from the counts that are not zero; '' when all are. */
function listed(counts: [number, string][]): string {
  const parts = counts.filter(([n]) => n > 0).map(([n, what]) => `${n} ${what}`);
  return parts.length > 1 ? `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}` : parts.join('');
}

/** Runs an operation's check on a line: its refusal names the line, with the code and message the API answers. */
function checkedAsTheApi<T>(line: number, check: () => T): T {
  try {
    return check();
  } catch (err) {
    if (err instanceof ServiceError) throw new ImportError(`Line ${line} is refused as the API refuses it: ${err.code}: ${err.message}`);
    throw err;
  }
}

interface Header {
  version: number;
  /** The exporting account's id: what an import remembers the file's things under ('' when the file does not say). */
  source: string;
}

/** The first line: an Engram export of a version this engram reads, or a clear refusal. */
function readHeader(raw: { type?: unknown; format?: unknown; version?: unknown }): Header {
  if (raw?.type !== 'header' || raw.format !== EXPORT_FORMAT) {
    throw new ImportError('This is not an Engram export: its first line is not an engram-export header.');
  }
  if (typeof raw.version !== 'number' || !READABLE_VERSIONS.includes(raw.version)) {
    throw new ImportError(`This Engram export is of version ${String(raw.version)}; this engram reads versions ${READABLE_VERSIONS.join(' and ')}. Import it with a newer engram.`);
  }
  const header = HeaderLine.safeParse(raw);
  if (!header.success) {
    const issue = header.error.issues[0]!;
    throw new ImportError(`Line 1 is not a valid header: ${issue.path.join('.')}: ${issue.message}.`);
  }
  return { version: raw.version, source: header.data.account ?? '' };
}

/** The state an imported document starts in, and what learning does with it (see `importAccount`). */
function importedDocument(d: z.infer<typeof DocumentV1> & Partial<z.infer<typeof DocumentV2>>): {
  row: Pick<DocumentRow, 'status' | 'error' | 'updatedAt' | 'learnedAt'>;
  learning: DocumentLearning;
} {
  switch (d.status) {
    case undefined: // version 1
      return { row: { status: 'queued', error: null, updatedAt: d.created_at, learnedAt: null }, learning: { mode: 'rebuild' } };
    case 'learned':
      // Queued until rebuilt: learned is true only once the document is searchable here.
      return {
        row: { status: 'queued', error: null, updatedAt: d.updated_at!, learnedAt: d.learned_at ?? null },
        learning: { mode: 'rebuild', passages: d.url !== null ? d.passages : null },
      };
    case 'queued':
      return { row: { status: 'queued', error: null, updatedAt: d.updated_at!, learnedAt: null }, learning: { mode: 'learn' } };
    case 'failed':
      return { row: { status: 'failed', error: d.error ?? null, updatedAt: d.updated_at!, learnedAt: null }, learning: { mode: 'none' } };
  }
}
