/**
 * An Engram export read by an import (import-pass.ts hands it each line), line by line
 * (docs/running.md, "Backup, restore, export, import"):
 * - What an earlier import of the same export brought is remembered (`import_origins`) under the
 *   exporting account's id and the line's id (a digest of the line when it has none): a thing
 *   still here is skipped, and lines naming it use that one.
 * - A thing whose exported id this account holds is the same thing (the account's own export):
 *   it is already there. Containers are matched by id, then by name (made when missing).
 * - A document whose custom_id the container already holds is left as it is; facts that name it
 *   as their source point at the one already there.
 * - A learned document is learned again for search but no facts are extracted from it (they are
 *   in the file); a URL document is indexed from the passages in the file, not fetched. A queued
 *   one is learned in full; a failed one stays failed. Version 1 files do not say: every document
 *   is learned again without fact extraction, URL ones fetched.
 * - A fact keeps its source document and passage, and its earlier wordings; a source the file
 *   does not hold is dropped. A rule for a key of this account keeps its key; another holds for
 *   the whole account.
 */
import { newId, sha256 } from '../../ids';
import type { ContainerLine, DocumentLine, ExportLine, FactLine, RuleLine } from '../../importers/engram-format';
import type { ImportReader } from '../../importers/items';
import { refusal, type SourcePosition } from '../../importers/problem';
import { type DocumentLearning, insertDocument, insertFact } from '../../learning/queue';
import type { DocumentRow, ImportedKind, Transaction } from '../../storage/store';
import { addDocument, checkDocumentSource } from '../documents/add-document';
import { addMemory, checkFactContent } from '../facts/add-memory';
import { addRule } from '../rules/add-rule';
import { createContainer } from '../containers/create-container';
import { asTheApi, TO_BE_MADE } from './import-checks';
import type { ImportChange, ImportSummary } from './import-summary';
import { parseInput } from '../operation';

/** What the lines need of the import's pass: its account and time, its counts, and its records. */
export interface LinePass {
  readonly accountId: string;
  /** The time things are stored at; null for the dry read. */
  readonly now: number | null;
  readonly summary: ImportSummary;
  change(action: ImportChange['action'], kind: ImportedKind, name: string, container: string | null): void;
  countedAs(from: 'added' | 'replaced', to: 'alreadyThere'): void;
  remember(db: Transaction, source: string, kind: ImportedKind, exportedId: string, localId: string): Promise<void>;
}

/** The lines of one Engram export, matched to what this account holds and what an earlier import of them made. */
export class ExportLines {
  /** The export's container and document ids, and what each became here. */
  private readonly exportedContainers = new Map<string, string>();
  private readonly exportedDocuments = new Map<string, string>();
  /** Per digest of a line without an id, how many such lines came so far: two equal lines are two things. */
  private readonly digests = new Map<string, number>();

  constructor(
    private readonly pass: LinePass,
    private readonly reader: ImportReader,
  ) {}

  async apply(db: Transaction, line: ExportLine, at: SourcePosition): Promise<void> {
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
    return db.importOrigins.get(this.pass.accountId, this.source(), kind, exportedId);
  }

  private remember(db: Transaction, kind: ImportedKind, exportedId: string, localId: string): Promise<void> {
    return this.pass.remember(db, this.source(), kind, exportedId, localId);
  }

  /** The exporting account's id ('' for files that do not say). */
  private source(): string {
    return this.reader.source?.() ?? '';
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
      this.pass.summary.alreadyImported.container++;
      return;
    }
    // The account's own export: the same container, with the same id. Nothing was imported.
    if (await db.containers.get(this.pass.accountId, c.id)) {
      this.exportedContainers.set(c.id, c.id);
      this.pass.summary.alreadyThere.container++;
      return;
    }
    let id = (await db.containers.getByName(this.pass.accountId, name))?.id;
    if (id) {
      this.pass.summary.alreadyThere.container++;
    } else {
      this.pass.change('add', 'container', name, null);
      this.pass.summary.added.container++;
      if (this.pass.now !== null) {
        id = newId('ctr');
        await db.containers.insert({
          id,
          accountId: this.pass.accountId,
          name,
          description: description ?? '',
          createdAt: c.created_at,
          updatedAt: c.updated_at ?? c.created_at,
          learnsIntoProfile: c.learns_into_profile ?? true,
        });
      }
    }
    this.exportedContainers.set(c.id, id ?? TO_BE_MADE);
    if (this.pass.now !== null) await this.remember(db, 'container', c.id, id!);
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
      this.pass.summary.alreadyImported.document++;
      return;
    }
    // The account's own export: the same document, with the same id. Nothing was imported.
    if (d.id !== undefined && (await db.documents.get(this.pass.accountId, d.id))) {
      this.exportedDocuments.set(d.id, d.id);
      this.pass.summary.alreadyThere.document++;
      return;
    }
    const held =
      d.custom_id !== null && containerId !== TO_BE_MADE
        ? await db.documents.getByCustomId(this.pass.accountId, containerId, d.custom_id)
        : null;
    if (!held) {
      this.pass.change('add', 'document', d.title ?? d.custom_id ?? d.url ?? (d.content ?? '').slice(0, 80), null);
      this.pass.summary.added.document++;
    }
    let id = held?.id ?? newId('doc');
    if (this.pass.now !== null && !held) {
      const { row, learning } = importedDocument(d);
      const stored = await insertDocument(
        db,
        {
          id,
          accountId: this.pass.accountId,
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
        this.pass.now,
      );
      if (!stored.inserted) this.pass.countedAs('added', 'alreadyThere'); // an app added it meanwhile
      id = stored.document.id;
    }
    if (held) this.pass.summary.alreadyThere.document++;
    if (d.id !== undefined) this.exportedDocuments.set(d.id, id);
    if (this.pass.now !== null) await this.remember(db, 'document', exported, id);
  }

  private async exportedFact(db: Transaction, f: FactLine, at: SourcePosition): Promise<void> {
    asTheApi(at, () => {
      parseInput(addMemory.input, { content: f.content, title: f.title ?? undefined });
      checkFactContent(f.content);
    });
    const containerId = this.exportedContainerId(f.container, at);
    const exported = this.exportedId(f, f.id);
    if (await this.earlier(db, 'fact', exported)) {
      this.pass.summary.alreadyImported.fact++;
      return;
    }
    if (f.id !== undefined && (await db.facts.get(this.pass.accountId, f.id))) {
      this.pass.summary.alreadyThere.fact++;
      return;
    }
    this.pass.change('add', 'fact', f.content, null);
    this.pass.summary.added.fact++;
    const sourceId = f.source ? (this.exportedDocuments.get(f.source.document) ?? null) : null;
    if (f.source && !sourceId) this.pass.summary.unsourced++;
    if (this.pass.now === null) return;
    const id = newId('mem');
    await insertFact(
      db,
      {
        id,
        accountId: this.pass.accountId,
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
      this.pass.summary.alreadyImported.rule++;
      return;
    }
    if (r.id !== undefined && (await db.rules.get(this.pass.accountId, r.id))) {
      this.pass.summary.alreadyThere.rule++;
      return;
    }
    this.pass.change('add', 'rule', text, null);
    this.pass.summary.added.rule++;
    if (this.pass.now === null) return;
    const credentialId =
      r.credential_id && (await db.credentials.get(this.pass.accountId, r.credential_id)) ? r.credential_id : null;
    const id = newId('rul');
    await db.rules.insert({ id, accountId: this.pass.accountId, credentialId, text, createdAt: r.created_at });
    await this.remember(db, 'rule', exported, id);
  }
}

/** The state an exported document starts in, and what learning does with it (see the file's comment). */
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
