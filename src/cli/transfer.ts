/**
 * `engram export`: one account's containers, documents, facts (the profile's static ones included,
 * with where each was learned from and its earlier wordings) and rules as JSON lines, without any
 * secret (no keys, tokens, sessions, codes or hashes), in the format src/importers/engram.ts reads.
 * `engram import` is the import operation's (src/operations/import-memory.ts).
 */
import { iso } from '../clock';
import { EXPORT_FORMAT, EXPORT_VERSION, type WrittenLine } from '../importers/engram';
import type { DocumentRow, Store } from '../storage/store';

const PAGE = 200;

/**
 * Writes the account's memory, line by line, from one consistent snapshot (the server may be
 * running): the header, containers, documents in the order they were stored, facts oldest first,
 * then rules. Documents come before the facts that name them as their source.
 */
export function exportAccount(store: Store, accountId: string, now: number, write: (line: string) => void): void {
  const emit = (line: WrittenLine) => write(JSON.stringify(line));
  store.snapshot(() => {
    emit({ type: 'header', format: EXPORT_FORMAT, version: EXPORT_VERSION, exported_at: iso(now)!, account: accountId });
    for (const c of store.listContainers(accountId)) {
      emit({
        type: 'container', id: c.id, name: c.name, description: c.description, created_at: c.createdAt, updated_at: c.updatedAt,
        learns_into_profile: c.learnsIntoProfile,
      });
    }
    // In the order they were stored, so that an import stores them in the same order again.
    for (let page = store.listDocumentsInInsertOrder(accountId, 0, PAGE); page.lastSeq !== null; page = store.listDocumentsInInsertOrder(accountId, page.lastSeq, PAGE)) {
      for (const d of page.documents) emit(documentLine(store, d));
    }
    for (const m of store.listFacts(accountId)) {
      emit({
        type: 'fact', id: m.id, container: m.containerId, content: m.content, title: m.title, static: m.static,
        created_at: m.createdAt, updated_at: m.updatedAt,
        source: m.sourceDocumentId ? { document: m.sourceDocumentId, position: m.sourcePosition ?? 0 } : null,
        history: store.listFactHistory(accountId, m.id).map((h) => ({ content: h.content, replaced_at: h.replacedAt })),
        reviewed_at: m.reviewedAt ?? null,
      });
    }
    for (const r of store.listRules(accountId, null)) {
      emit({ type: 'rule', id: r.id, text: r.text, credential_id: r.credentialId, created_at: r.createdAt });
    }
  });
}

function documentLine(store: Store, d: DocumentRow): WrittenLine {
  // A page is read when it is learned and only its passages keep the text: they travel, since the
  // page may have changed or gone, or the importing server may not reach it.
  const passages = d.url != null && d.status === 'learned' ? store.listPassages(d.accountId, d.id) : null;
  return {
    type: 'document', id: d.id, container: d.containerId, title: d.title, content: d.content, url: d.url, custom_id: d.customId,
    metadata: d.metadata, status: d.status, error: d.error, created_at: d.createdAt, updated_at: d.updatedAt, learned_at: d.learnedAt, passages,
  };
}
