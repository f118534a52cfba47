/**
 * One read of an import's source (import-memory.ts reads it twice): what each item becomes here
 * (a container found or made, a document added, replaced or already there, a fact, a rule, and an
 * Engram export's lines matched to what an earlier import of them made), checked by the rules of
 * the operation that adds such a thing over the API, counted, and, on the second read, stored.
 */
import { ServiceError } from '../errors';
import { newId, sha256 } from '../ids';
import type { ImportFormatName } from '../importers/format-labels';
import type { ContainerLine, DocumentLine, ExportLine, FactLine, RuleLine } from '../importers/engram-format';
import type { DocumentItem, FactItem, ImportItem, ImportReader } from '../importers/items';
import { refusal, type SourcePosition } from '../importers/problem';
import { type DocumentLearning, insertDocument, insertFact } from '../learning/queue';
import type { DocumentRow, ImportedKind, Transaction } from '../storage/store';
import { addDocument, checkDocumentSource } from './add-document';
import { addMemory, checkFactContent } from './add-memory';
import { addRule } from './add-rule';
import { createContainer } from './create-container';
import { emptySummary, type ImportSummary } from './import-summary';
import { type Context, invoke, parseInput } from './operation';

/** One thing an import adds or replaces, told as the dry run finds it. */
export interface ImportChange {
  action: 'add' | 'replace';
  kind: ImportedKind;
  /** Its title, name or words. */
  name: string;
  container: string | null;
}

/** A container that a dry run would make: no id yet. */
const TO_BE_MADE = '(to be made)';

/**
 * What one read of a source does with each item: checks it, decides what it becomes here, and
 * (when `now` is given) stores it. The dry read decides the same way and stores nothing.
 */
export class ImportPass {
  readonly summary: ImportSummary;
  readonly writing: boolean;
  private readonly accountId: string;
  /** Containers by name, as found or made (a dry run's to-be-made ones under TO_BE_MADE). */
  private readonly containers = new Map<string, string>();
  /** An Engram export's container and document ids, and what each became here. */
  private readonly exportedContainers = new Map<string, string>();
  private readonly exportedDocuments = new Map<string, string>();
  /** Per digest of an export line without an id, how many such lines came so far: two equal lines are two things. */
  private readonly digests = new Map<string, number>();
  /** Passages of replaced documents, dropped from the search indexes once their batch commits. */
  private forgotten: number[] = [];

  constructor(
    private readonly ctx: Context,
    private readonly format: ImportFormatName,
    private readonly reader: ImportReader,
    /** The time things are stored at; null for the dry read. */
    private readonly now: number | null,
    private readonly onChange?: (change: ImportChange) => void,
  ) {
    this.writing = now !== null;
    this.accountId = ctx.caller.accountId;
    this.summary = emptySummary(format, !this.writing);
  }

  takeForgotten(): number[] {
    return this.forgotten.splice(0);
  }

  /**
   * Before a batch: makes the item's container through create_container when it is missing (not
   * inside the batch's transaction).
   */
  async prepare(item: ImportItem): Promise<void> {
    if ((item.kind !== 'document' && item.kind !== 'fact') || this.containers.has(item.container.name)) return;
    const found = await this.ctx.store.containers.getByName(this.accountId, item.container.name);
    let id = found?.id;
    if (!id) {
      try {
        id = (await invoke(createContainer, this.ctx, item.container)).id;
      } catch (err) {
        throw refusedAsTheApi(item.at, err);
      }
    }
    this.landed(item.container.name, id, !found);
  }

  /** Checks the item and does what it calls for, through `db`: a batch's transaction when writing. */
  async apply(db: Transaction, item: ImportItem): Promise<void> {
    if (item.kind === 'document') await this.document(db, item);
    else if (item.kind === 'fact') await this.fact(db, item);
    else if (item.kind === 'export-line') await this.exportLine(db, item.line, item.at);
    else
      this.summary.skipped[item.what] = {
        count: (this.summary.skipped[item.what]?.count ?? 0) + 1,
        plural: item.plural,
      };
  }

  private landed(name: string, id: string | null, made: boolean): void {
    this.containers.set(name, id ?? TO_BE_MADE);
    this.summary.containers.push({ id, name, made });
    if (made) this.summary.added.container++;
    else this.summary.alreadyThere.container++;
  }

  /** The id of the item's container: found, made in `prepare`, or in a dry run found or to be made. */
  private async containerOf(db: Transaction, item: DocumentItem | FactItem): Promise<string> {
    const known = this.containers.get(item.container.name);
    if (known) return known;
    asTheApi(item.at, () => parseInput(createContainer.input, item.container));
    const found = await db.containers.getByName(this.accountId, item.container.name);
    this.landed(item.container.name, found?.id ?? null, !found);
    return found?.id ?? TO_BE_MADE;
  }

  private change(action: ImportChange['action'], kind: ImportedKind, name: string, container: string | null): void {
    this.onChange?.({ action, kind, name, container });
  }

  /**
   * A conversation, note or project document: new, the same as the one its custom_id names here, or a
   * changed version of it.
   */
  private async document(db: Transaction, item: DocumentItem): Promise<void> {
    asTheApi(item.at, () => {
      parseInput(addDocument.input, {
        content: item.content,
        custom_id: item.customId,
        metadata: item.metadata,
        title: item.title ?? undefined,
      });
      checkDocumentSource(item);
    });
    const containerId = await this.containerOf(db, item);
    const existing =
      containerId === TO_BE_MADE ? null : await db.documents.getByCustomId(this.accountId, containerId, item.customId);
    const same =
      existing &&
      existing.content === item.content &&
      existing.title === item.title &&
      JSON.stringify(existing.metadata) === JSON.stringify(item.metadata);
    if (existing && (same || olderThan(item.metadata, existing.metadata))) {
      this.summary.alreadyThere.document++;
      return;
    }
    this.change(existing ? 'replace' : 'add', 'document', item.title ?? item.customId, item.container.name);
    if (existing) this.summary.replaced++;
    else this.summary.added.document++;
    if (this.now === null) return;
    // A changed version replaces the old: it goes as a delete goes (its passages, and the facts learned
    // from it that the owner has not reviewed).
    if (existing)
      this.forgotten.push(
        ...((await db.forgetting.forget(this.accountId, { documentId: existing.id }, []))?.passageIds ?? []),
      );
    const { inserted } = await insertDocument(
      db,
      {
        id: newId('doc'),
        accountId: this.accountId,
        containerId,
        title: item.title,
        content: item.content,
        url: null,
        customId: item.customId,
        metadata: item.metadata,
        status: 'queued',
        error: null,
        createdAt: item.createdAt,
        updatedAt: item.updatedAt,
        learnedAt: null,
      },
      { mode: 'learn' },
      this.now,
    );
    if (!inserted) this.counted(existing ? 'replaced' : 'added', 'alreadyThere'); // an app added it meanwhile
  }

  /** Moves a document counted as added (or replaced) to another count: what storing it found. */
  private counted(from: 'added' | 'replaced', to: 'alreadyThere'): void {
    if (from === 'added') this.summary.added.document--;
    else this.summary.replaced--;
    this.summary[to].document++;
  }

  /** A fact of another product (the MCP memory server's): known again by its words, entity and container. */
  private async fact(db: Transaction, item: FactItem): Promise<void> {
    asTheApi(item.at, () => {
      parseInput(addMemory.input, { content: item.content, title: item.title ?? undefined });
      checkFactContent(item.content);
    });
    const containerId = await this.containerOf(db, item);
    const exported = sha256(`${containerId}\n${item.key}`);
    if (containerId !== TO_BE_MADE && (await db.importOrigins.get(this.accountId, this.format, 'fact', exported))) {
      this.summary.alreadyImported.fact++;
      return;
    }
    this.change('add', 'fact', item.content, item.container.name);
    this.summary.added.fact++;
    if (this.now === null) return;
    const id = newId('mem');
    await insertFact(db, {
      id,
      accountId: this.accountId,
      containerId,
      content: item.content,
      title: item.title,
      static: false,
      createdAt: this.now,
      updatedAt: this.now,
    });
    await db.importOrigins.insert({
      accountId: this.accountId,
      source: this.format,
      kind: 'fact',
      exportedId: exported,
      localId: id,
      importedAt: this.now,
    });
  }

  // An Engram export, line by line (docs/running.md, "Backup, restore, export, import"):
  // - What an earlier import of the same export brought is remembered (`import_origins`) under the
  //   exporting account's id and the line's id (a digest of the line when it has none): a thing
  //   still here is skipped, and lines naming it use that one.
  // - A thing whose exported id this account holds is the same thing (the account's own export):
  //   it is already there. Containers are matched by id, then by name (made when missing).
  // - A document whose custom_id the container already holds is left as it is; facts that name it
  //   as their source point at the one already there.
  // - A learned document is learned again for search but no facts are extracted from it (they are
  //   in the file); a URL document is indexed from the passages in the file, not fetched. A queued
  //   one is learned in full; a failed one stays failed. Version 1 files do not say: every document
  //   is learned again without fact extraction, URL ones fetched.
  // - A fact keeps its source document and passage, and its earlier wordings; a source the file
  //   does not hold is dropped. A rule for a key of this account keeps its key; another holds for
  //   the whole account.

  private async exportLine(db: Transaction, line: ExportLine, at: SourcePosition): Promise<void> {
    if (line.type === 'container') await this.exportedContainer(db, line as ContainerLine, at);
    else if (line.type === 'document') await this.exportedDocument(db, line as DocumentLine, at);
    else if (line.type === 'fact') await this.exportedFact(db, line as FactLine, at);
    else await this.exportedRule(db, line as RuleLine, at);
  }

  /** The line's name in the export: its id, or a digest of the line (counted) when it has none. */
  private exportedId(line: ExportLine, id: string | undefined): string {
    if (id !== undefined) return id;
    const digest = sha256(JSON.stringify(line));
    const seen = (this.digests.get(digest) ?? 0) + 1;
    this.digests.set(digest, seen);
    return `${digest}#${seen}`;
  }

  private earlier(db: Transaction, kind: ImportedKind, exportedId: string): Promise<string | null> {
    return db.importOrigins.get(this.accountId, this.reader.source?.() ?? '', kind, exportedId);
  }

  private remember(db: Transaction, kind: ImportedKind, exportedId: string, localId: string): Promise<void> {
    return db.importOrigins.insert({
      accountId: this.accountId,
      source: this.reader.source?.() ?? '',
      kind,
      exportedId,
      localId,
      importedAt: this.now!,
    });
  }

  private exportedContainerId(id: string | null, at: SourcePosition): string | null {
    if (id === null) return null;
    const mapped = this.exportedContainers.get(id);
    if (!mapped) throw refusal(at, `names a container the export did not list: ${id}.`);
    return mapped;
  }

  private async exportedContainer(db: Transaction, c: ContainerLine, at: SourcePosition): Promise<void> {
    const { name, description } = asTheApi(at, () =>
      parseInput(createContainer.input, { name: c.name, description: c.description }),
    );
    const known = await this.earlier(db, 'container', c.id);
    if (known) {
      this.exportedContainers.set(c.id, known);
      this.summary.alreadyImported.container++;
      return;
    }
    // The account's own export: the same container, with the same id. Nothing was imported.
    if (await db.containers.get(this.accountId, c.id)) {
      this.exportedContainers.set(c.id, c.id);
      this.summary.alreadyThere.container++;
      return;
    }
    let id = (await db.containers.getByName(this.accountId, name))?.id;
    if (id) {
      this.summary.alreadyThere.container++;
    } else {
      this.change('add', 'container', name, null);
      this.summary.added.container++;
      if (this.now !== null) {
        id = newId('ctr');
        await db.containers.insert({
          id,
          accountId: this.accountId,
          name,
          description: description ?? '',
          createdAt: c.created_at,
          updatedAt: c.updated_at ?? c.created_at,
          learnsIntoProfile: c.learns_into_profile ?? true,
        });
      }
    }
    this.exportedContainers.set(c.id, id ?? TO_BE_MADE);
    if (this.now !== null) await this.remember(db, 'container', c.id, id!);
  }

  private async exportedDocument(db: Transaction, d: DocumentLine, at: SourcePosition): Promise<void> {
    asTheApi(at, () => {
      // The API takes no null for these two: absent is what a null in the file means.
      parseInput(addDocument.input, {
        content: d.content,
        url: d.url,
        custom_id: d.custom_id ?? undefined,
        metadata: d.metadata,
        title: d.title ?? undefined,
      });
      checkDocumentSource(d);
    });
    const containerId = this.exportedContainerId(d.container, at)!;
    const exported = this.exportedId(d, d.id);
    const known = await this.earlier(db, 'document', exported);
    if (known) {
      if (d.id !== undefined) this.exportedDocuments.set(d.id, known);
      this.summary.alreadyImported.document++;
      return;
    }
    // The account's own export: the same document, with the same id. Nothing was imported.
    if (d.id !== undefined && (await db.documents.get(this.accountId, d.id))) {
      this.exportedDocuments.set(d.id, d.id);
      this.summary.alreadyThere.document++;
      return;
    }
    const held =
      d.custom_id !== null && containerId !== TO_BE_MADE
        ? await db.documents.getByCustomId(this.accountId, containerId, d.custom_id)
        : null;
    if (!held) {
      this.change('add', 'document', d.title ?? d.custom_id ?? d.url ?? (d.content ?? '').slice(0, 80), null);
      this.summary.added.document++;
    }
    let id = held?.id ?? newId('doc');
    if (this.now !== null && !held) {
      const { row, learning } = importedDocument(d);
      const stored = await insertDocument(
        db,
        {
          id,
          accountId: this.accountId,
          containerId,
          title: d.title,
          content: d.content,
          url: d.url,
          customId: d.custom_id,
          metadata: d.metadata,
          createdAt: d.created_at,
          ...row,
        },
        learning,
        this.now,
      );
      if (!stored.inserted) this.counted('added', 'alreadyThere'); // an app added it meanwhile
      id = stored.document.id;
    }
    if (held) this.summary.alreadyThere.document++;
    if (d.id !== undefined) this.exportedDocuments.set(d.id, id);
    if (this.now !== null) await this.remember(db, 'document', exported, id);
  }

  private async exportedFact(db: Transaction, f: FactLine, at: SourcePosition): Promise<void> {
    asTheApi(at, () => {
      parseInput(addMemory.input, { content: f.content, title: f.title ?? undefined });
      checkFactContent(f.content);
    });
    const containerId = this.exportedContainerId(f.container, at);
    const exported = this.exportedId(f, f.id);
    if (await this.earlier(db, 'fact', exported)) {
      this.summary.alreadyImported.fact++;
      return;
    }
    if (f.id !== undefined && (await db.facts.get(this.accountId, f.id))) {
      this.summary.alreadyThere.fact++;
      return;
    }
    this.change('add', 'fact', f.content, null);
    this.summary.added.fact++;
    const sourceId = f.source ? (this.exportedDocuments.get(f.source.document) ?? null) : null;
    if (f.source && !sourceId) this.summary.unsourced++;
    if (this.now === null) return;
    const id = newId('mem');
    await insertFact(
      db,
      {
        id,
        accountId: this.accountId,
        containerId,
        content: f.content,
        title: f.title,
        static: f.static,
        createdAt: f.created_at,
        updatedAt: f.updated_at,
        sourceDocumentId: sourceId,
        sourcePosition: sourceId ? f.source!.position : null,
        reviewedAt: f.reviewed_at ?? null,
      },
      (f.history ?? []).map((h) => ({ content: h.content, replacedAt: h.replaced_at })),
    );
    await this.remember(db, 'fact', exported, id);
  }

  private async exportedRule(db: Transaction, r: RuleLine, at: SourcePosition): Promise<void> {
    const { text } = asTheApi(at, () => parseInput(addRule.input, { text: r.text }));
    const exported = this.exportedId(r, r.id);
    if (await this.earlier(db, 'rule', exported)) {
      this.summary.alreadyImported.rule++;
      return;
    }
    if (r.id !== undefined && (await db.rules.get(this.accountId, r.id))) {
      this.summary.alreadyThere.rule++;
      return;
    }
    this.change('add', 'rule', text, null);
    this.summary.added.rule++;
    if (this.now === null) return;
    const credentialId =
      r.credential_id && (await db.credentials.get(this.accountId, r.credential_id)) ? r.credential_id : null;
    const id = newId('rul');
    await db.rules.insert({ id, accountId: this.accountId, credentialId, text, createdAt: r.created_at });
    await this.remember(db, 'rule', exported, id);
  }
}

/**
 * An operation's refusal of an item, naming the item's place, with the code and message the API
 * answers; anything else as it is.
 */
function refusedAsTheApi(at: SourcePosition, err: unknown): unknown {
  return err instanceof ServiceError && err.code !== 'internal'
    ? refusal(at, `refused as the API refuses it: ${err.code}: ${err.message}`)
    : err;
}

/** Runs an operation's check on an item (see `refusedAsTheApi`). */
function asTheApi<T>(at: SourcePosition, check: () => T): T {
  try {
    return check();
  } catch (err) {
    throw refusedAsTheApi(at, err);
  }
}

/**
 * Whether an imported version is older than the one here, by the source's own time of its last
 * change (`metadata.updated_at`, which conversations and project documents carry): an earlier
 * export imported after a later one leaves the newer. Notes carry none; a changed one replaces.
 */
function olderThan(incoming: Record<string, unknown>, here: Record<string, unknown> | null): boolean {
  const [a, b] = [incoming.updated_at, here?.updated_at].map((t) =>
    typeof t === 'string' ? Date.parse(t) : Number.NaN,
  );
  return a! < b!;
}

/** The state an exported document starts in, and what learning does with it (see the comment above `exportLine`). */
function importedDocument(d: DocumentLine): {
  row: Pick<DocumentRow, 'status' | 'error' | 'updatedAt' | 'learnedAt'>;
  learning: DocumentLearning;
} {
  switch (d.status) {
    case undefined: // version 1
      return {
        row: { status: 'queued', error: null, updatedAt: d.created_at, learnedAt: null },
        learning: { mode: 'rebuild' },
      };
    case 'learned':
      // Queued until rebuilt: learned is true only once the document is searchable here.
      return {
        row: { status: 'queued', error: null, updatedAt: d.updated_at!, learnedAt: d.learned_at ?? null },
        learning: { mode: 'rebuild', passages: d.url !== null ? d.passages : null },
      };
    case 'queued':
      return {
        row: { status: 'queued', error: null, updatedAt: d.updated_at!, learnedAt: null },
        learning: { mode: 'learn' },
      };
    case 'failed':
      return {
        row: { status: 'failed', error: d.error ?? null, updatedAt: d.updated_at!, learnedAt: null },
        learning: { mode: 'none' },
      };
  }
}
