/**
 * One read of an import's source (import-memory.ts reads it twice, each time with `run`): what
 * each item becomes here (a container found or made, a document added, replaced, moved or already
 * there, a fact, an entry left out), checked by the rules of the operation that adds such a thing
 * over the API, counted, and, on the second read, stored a batch of items a transaction. An Engram
 * export's lines are import-export-lines.ts's.
 */
import { ServiceError } from '../../errors';
import { newId, sha256 } from '../../ids';
import type { ImportFormatName } from '../../importers/format-labels';
import type { DocumentLine } from '../../importers/engram-format';
import type { DocumentItem, FactItem, ImportItem, ImportReader } from '../../importers/items';
import { SourceRefusal } from '../../importers/problem';
import { forgetDocument } from '../../learning/exchange';
import { insertDocument, insertFact } from '../../learning/queue';
import type { DocumentRow, ImportedKind, Transaction } from '../../storage/store';
import { addDocument, checkDocumentSource } from '../documents/add-document';
import { addMemory, checkFactContent } from '../facts/add-memory';
import { createContainer } from '../containers/create-container';
import { asTheApi, refusedAsTheApi, TO_BE_MADE } from './import-checks';
import { ExportLines, type LinePass } from './import-export-lines';
import { emptySummary, type ImportChange, type ImportSummary } from './import-summary';
import { type Context, invoke, parseInput } from '../operation';

export interface PassOptions {
  /** The time things are stored at; null for the dry read, which stores nothing. */
  now: number | null;
  /** What the source is called (the file's name), recorded with what it brings. */
  file: string;
  /** Leave out, and list, the entries that cannot be imported, instead of refusing the source. */
  skipInvalid: boolean;
}

export interface ImportProgress {
  phase: 'checking' | 'importing';
  /** Of the source's bytes (files, for a folder). */
  done: number;
  total: number;
}

export interface ImportHooks {
  onProgress?(progress: ImportProgress): void;
  /** Told each change the read finds (the dry run's list). */
  onChange?(change: ImportChange): void;
  /** Stops the import between two batches (the server stopping). */
  signal?: AbortSignal;
}

/** A batch's limits: an Engram export's URL documents and conversations run to megabytes each. */
const BATCH_ITEMS = 200;
const BATCH_BYTES = 8 * 1024 * 1024;

/** Lets the event loop run between batches: the server answers requests while an import goes on. */
const turn = () => new Promise((resolve) => setImmediate(resolve));

const SKIP_HINT =
  'Nothing was imported. To import the rest without it: engram import --skip-invalid, or tick “Skip entries that cannot be imported” on the Import page.';

/** A document found here for an item of the source (see `findDocument`). */
interface Found {
  row: DocumentRow;
  /** It sits where an import put it not knowing better: it moves to where the source now says. */
  moves: boolean;
}

/**
 * What one read of a source does with each item: checks it, decides what it becomes here, and
 * (when `now` is given) stores it. The dry read decides the same way and stores nothing.
 */
export class ImportPass implements LinePass {
  readonly summary: ImportSummary;
  readonly now: number | null;
  readonly accountId: string;
  /** Containers by name, as found or made (a dry run's to-be-made ones under TO_BE_MADE). */
  private readonly containers = new Map<string, string>();
  /** The facts met so far, by their key in their container: a fact the source repeats is imported once. */
  private readonly factsMet = new Set<string>();
  private readonly lines: ExportLines;
  /** Passages of replaced documents, dropped from the search indexes once their batch commits. */
  private forgotten: number[] = [];

  constructor(
    private readonly ctx: Context,
    private readonly format: ImportFormatName,
    private readonly reader: ImportReader,
    private readonly options: PassOptions,
    private readonly hooks: ImportHooks = {},
  ) {
    this.now = options.now;
    this.accountId = ctx.caller.accountId;
    this.summary = emptySummary(format, options.now === null);
    this.lines = new ExportLines(this, reader);
  }

  /**
   * Reads the whole source. The dry read checks each item as it is read, so that a refused source
   * names its first problem; the writing read stores a batch of items a transaction. Between
   * batches the event loop runs.
   */
  async run(): Promise<ImportSummary> {
    const { hooks } = this;
    const phase = this.now === null ? 'checking' : 'importing';
    let batch: ImportItem[] = [];
    let bytes = 0;
    let read = 0;
    for await (const item of this.reader.items((done, total) => hooks.onProgress?.({ phase, done, total }))) {
      if (hooks.signal?.aborted)
        throw new ServiceError(
          'conflict',
          'The import was stopped (the server is stopping); run it again to add the rest.',
        );
      if (this.now === null) await this.apply(this.ctx.store, item);
      else if (await this.prepare(item)) {
        batch.push(item);
        bytes += weight(item);
      }
      if (++read % BATCH_ITEMS === 0 || bytes >= BATCH_BYTES) {
        await this.store(batch);
        [batch, bytes] = [[], 0];
        await turn();
      }
    }
    await this.store(batch);
    return this.summary;
  }

  /** A batch's items, each checked and stored, in one transaction; then search forgets what they replaced. */
  private async store(batch: ImportItem[]): Promise<void> {
    if (!batch.length) return;
    await this.ctx.store.transaction(async (tx) => {
      for (const item of batch) await this.apply(tx, item);
    });
    this.ctx.indexes.forgetPassages(this.forgotten.splice(0));
    this.ctx.notifyQueued();
  }

  /**
   * Before a batch: makes the item's container through create_container when it is missing (not
   * inside the batch's transaction). False when the item is left out for it (see `leaveOut`). The
   * dry read finds or counts containers as it checks each item (`containerOf`).
   */
  private async prepare(item: ImportItem): Promise<boolean> {
    if ((item.kind !== 'document' && item.kind !== 'fact') || this.containers.has(item.container.name)) return true;
    const found = await this.ctx.store.containers.getByName(this.accountId, item.container.name);
    let id = found?.id;
    if (!id) {
      try {
        id = (await invoke(createContainer, this.ctx, item.container)).id;
      } catch (err) {
        const refused = refusedAsTheApi(item.at, err);
        if (!(refused instanceof SourceRefusal)) throw refused;
        this.leaveOut(refused);
        return false;
      }
    }
    this.landed(item.container.name, id, !found);
    return true;
  }

  /**
   * Checks the item and does what it calls for, through `db`: a batch's transaction when writing. An
   * item refused before anything of it is written is left out (see `leaveOut`).
   */
  private async apply(db: Transaction, item: ImportItem): Promise<void> {
    if (item.kind === 'skipped') {
      this.summary.skipped[item.what] = {
        count: (this.summary.skipped[item.what]?.count ?? 0) + 1,
        plural: item.plural,
      };
      return;
    }
    if (item.kind === 'invalid') return this.leaveOut(item.refusal, item.always);
    try {
      if (item.kind === 'document') await this.document(db, item);
      else if (item.kind === 'fact') await this.fact(db, item);
      else await this.lines.apply(db, item.line, item.at);
    } catch (err) {
      if (!(err instanceof SourceRefusal)) throw err;
      this.leaveOut(err);
    }
  }

  /**
   * An entry that cannot be imported: the source is refused for it, saying how to import the rest,
   * unless such entries are skipped (and listed).
   */
  private leaveOut(refusal: SourceRefusal, always = false): void {
    if (!always && !this.options.skipInvalid)
      throw new SourceRefusal('validation', `${refusal.message}\n${SKIP_HINT}`, refusal.details);
    this.summary.leftOut.push(refusal.message);
  }

  change(action: ImportChange['action'], kind: ImportedKind, name: string, container: string | null): void {
    this.hooks.onChange?.({ action, kind, name, container });
  }

  /** Moves a document counted as added (or replaced) to another count: what storing it found. */
  countedAs(from: 'added' | 'replaced', to: 'alreadyThere'): void {
    if (from === 'added') this.summary.added.document--;
    else this.summary.replaced--;
    this.summary[to].document++;
  }

  /** Records what this import made of a thing of the source, under the source's name for it. */
  remember(db: Transaction, source: string, kind: ImportedKind, exportedId: string, localId: string): Promise<void> {
    return db.importOrigins.insert({
      accountId: this.accountId,
      source,
      kind,
      exportedId,
      localId,
      importedAt: this.now!,
      file: this.options.file,
    });
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

  /**
   * A conversation, note or project document: new, the same as the one imported before, a changed
   * version of it, or one to move where the source now places it. One imported before stays in its
   * container (the person may have chosen it), unless it sits where an import that did not know
   * better put it.
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
    const target = await this.containerOf(db, item);
    const found = await this.findDocument(db, item, target);
    const existing = found?.row ?? null;
    const into = existing && !found!.moves ? existing.containerId : target;
    const same =
      existing &&
      existing.content === item.content &&
      existing.title === item.title &&
      JSON.stringify(existing.metadata) === JSON.stringify(item.metadata);
    if (existing && (olderThan(item.metadata, existing.metadata) || (same && !found!.moves))) {
      this.summary.alreadyThere.document++;
      // Imported before this import was recorded: recorded now.
      if (
        this.now !== null &&
        !(await db.importOrigins.get(this.accountId, this.format, 'document', originId(item, into)))
      )
        await this.remember(db, this.format, 'document', originId(item, into), existing.id);
      return;
    }
    const action = !existing ? 'add' : found!.moves ? 'move' : 'replace';
    const intoName =
      into === target ? item.container.name : ((await db.containers.get(this.accountId, into))?.name ?? null);
    this.change(action, 'document', item.title ?? item.customId, intoName);
    if (action === 'add') this.summary.added.document++;
    else if (action === 'move') this.summary.moved++;
    else this.summary.replaced++;
    if (this.now === null) return;
    // A changed (or moved) version replaces the old: it goes as a delete goes (its passages, and the
    // facts learned from it that the owner has not reviewed).
    if (existing)
      this.forgotten.push(...((await forgetDocument(db, this.accountId, existing.id, []))?.passageIds ?? []));
    const { inserted, document } = await insertDocument(
      db,
      {
        id: newId('doc'),
        accountId: this.accountId,
        containerId: into,
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
    if (inserted) await this.remember(db, this.format, 'document', originId(item, into), document.id);
    else if (action === 'move') {
      this.summary.moved--; // an app added it there meanwhile
      this.summary.alreadyThere.document++;
    } else this.countedAs(action === 'add' ? 'added' : 'replaced', 'alreadyThere'); // an app added it meanwhile
  }

  /**
   * The document an earlier import made of the item: by the record of it (an id the source uses
   * once in the whole account), else by its custom_id in its container, else in the container it
   * would have landed in had the source not said (then it moves).
   */
  private async findDocument(db: Transaction, item: DocumentItem, target: string): Promise<Found | null> {
    const recorded = item.global
      ? await db.importOrigins.get(this.accountId, this.format, 'document', item.customId)
      : null;
    let row = recorded ? await db.documents.get(this.accountId, recorded) : null;
    if (!row && target !== TO_BE_MADE) row = await db.documents.getByCustomId(this.accountId, target, item.customId);
    const fallback = item.fallback && (await db.containers.getByName(this.accountId, item.fallback.name))?.id;
    if (!row && fallback) row = await db.documents.getByCustomId(this.accountId, fallback, item.customId);
    return row && { row, moves: row.containerId !== target && row.containerId === fallback };
  }

  /** A fact of another product (the MCP memory server's): known again by its words, entity and container. */
  private async fact(db: Transaction, item: FactItem): Promise<void> {
    asTheApi(item.at, () => {
      parseInput(addMemory.input, { content: item.content, title: item.title ?? undefined });
      checkFactContent(item.content);
    });
    const containerId = await this.containerOf(db, item);
    const exported = sha256(`${containerId}\n${item.key}`);
    if (this.factsMet.has(exported)) {
      this.summary.repeated++;
      return;
    }
    this.factsMet.add(exported);
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
    await this.remember(db, this.format, 'fact', exported, id);
  }
}

/**
 * The name an import records a document under: its custom_id when that names it in the whole
 * account, else with its container too (a note's path is its own only within its folder).
 */
const originId = (item: DocumentItem, containerId: string): string =>
  item.global ? item.customId : `${containerId}\n${item.customId}`;

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

/** About how much an item weighs in a batch: its text. */
function weight(item: ImportItem): number {
  if (item.kind === 'document') return item.content.length;
  if (item.kind !== 'export-line') return 0;
  const line = item.line as Partial<DocumentLine>;
  return (line.content?.length ?? 0) + (line.passages ?? []).reduce((sum, p) => sum + p.content.length, 0);
}
