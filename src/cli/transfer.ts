/**
 * `engram export` and `engram import`: one account's containers, documents, facts (the profile's
 * static ones included) and rules as JSON lines, without any secret (no keys, tokens, sessions).
 * Import gives everything new ids, keeps times and custom_ids, and queues documents for learning.
 */
import { iso } from '../clock';
import { newId } from '../ids';
import type { Store } from '../storage/store';

export const EXPORT_FORMAT = 'engram-export';
export const EXPORT_VERSION = 1;

type Line =
  | { type: 'header'; format: string; version: number; exported_at: string }
  | { type: 'container'; id: string; name: string; description: string; created_at: number }
  | { type: 'document'; container: string; title: string | null; content: string | null; url: string | null; custom_id: string | null;
      metadata: Record<string, unknown> | null; created_at: number }
  | { type: 'fact'; container: string | null; content: string; title: string | null; static: boolean; created_at: number; updated_at: number }
  | { type: 'rule'; text: string; credential_id: string | null; created_at: number };

const PAGE = 200;

/** Writes the account's memory, line by line. */
export function exportAccount(store: Store, accountId: string, now: number, write: (line: string) => void): void {
  const emit = (line: Line) => write(JSON.stringify(line));
  emit({ type: 'header', format: EXPORT_FORMAT, version: EXPORT_VERSION, exported_at: iso(now)! });
  const containers = store.listContainers(accountId);
  for (const c of containers) emit({ type: 'container', id: c.id, name: c.name, description: c.description, created_at: c.createdAt });
  // In the order they were stored, so that an import stores them in the same order again.
  for (let page = store.listDocumentsInInsertOrder(accountId, 0, PAGE); page.lastSeq !== null; page = store.listDocumentsInInsertOrder(accountId, page.lastSeq, PAGE)) {
    for (const d of page.documents) {
      emit({ type: 'document', container: d.containerId, title: d.title, content: d.content, url: d.url, custom_id: d.customId, metadata: d.metadata, created_at: d.createdAt });
    }
  }
  for (const m of store.listMemories(accountId)) {
    emit({ type: 'fact', container: m.containerId, content: m.content, title: m.title, static: m.static, created_at: m.createdAt, updated_at: m.updatedAt });
  }
  for (const r of store.listRules(accountId, null)) emit({ type: 'rule', text: r.text, credential_id: r.credentialId, created_at: r.createdAt });
}

export interface ImportSummary {
  containers: number;
  documents: number;
  existing: number;
  facts: number;
  rules: number;
}

export class ImportError extends Error {}

/**
 * Reads an export into the account, all in one transaction: a bad line changes nothing. Containers
 * are matched by name (made when missing); a document whose custom_id the container already holds
 * is left as it is. A rule for a key of this account keeps its key; one for a key not here holds
 * for the whole account.
 */
export function importAccount(store: Store, accountId: string, lines: string[]): ImportSummary {
  const summary: ImportSummary = { containers: 0, documents: 0, existing: 0, facts: 0, rules: 0 };
  const containerIds = new Map<string, string>();
  store.transaction(() => {
    lines.forEach((text, n) => {
      if (!text.trim()) return;
      let line: Line;
      try {
        line = JSON.parse(text) as Line;
      } catch {
        throw new ImportError(`Line ${n + 1} is not JSON.`);
      }
      if (n === 0 && (line.type !== 'header' || line.format !== EXPORT_FORMAT || line.version !== EXPORT_VERSION)) {
        throw new ImportError(`This is not an Engram export of version ${EXPORT_VERSION}.`);
      }
      const container = (id: string | null) => {
        if (id === null) return null;
        const mapped = containerIds.get(id);
        if (!mapped) throw new ImportError(`Line ${n + 1} names a container the export did not list: ${id}.`);
        return mapped;
      };
      switch (line.type) {
        case 'header':
          return;
        case 'container': {
          const existing = store.getContainerByName(accountId, line.name);
          if (existing) return void containerIds.set(line.id, existing.id);
          const id = newId('ctr');
          store.insertContainer({ id, accountId, name: line.name, description: line.description, createdAt: line.created_at, updatedAt: line.created_at });
          containerIds.set(line.id, id);
          summary.containers++;
          return;
        }
        case 'document': {
          const { inserted } = store.insertDocument({
            id: newId('doc'), accountId, containerId: container(line.container)!, title: line.title, content: line.content, url: line.url,
            customId: line.custom_id, metadata: line.metadata, status: 'queued', error: null, createdAt: line.created_at,
            updatedAt: line.created_at, learnedAt: null,
          });
          if (inserted) summary.documents++;
          else summary.existing++;
          return;
        }
        case 'fact':
          store.insertMemory({
            id: newId('mem'), accountId, containerId: container(line.container), content: line.content, title: line.title,
            static: line.static, createdAt: line.created_at, updatedAt: line.updated_at,
          });
          summary.facts++;
          return;
        case 'rule': {
          const credentialId = line.credential_id && store.getCredential(accountId, line.credential_id) ? line.credential_id : null;
          store.insertRule({ id: newId('rul'), accountId, credentialId, text: line.text, createdAt: line.created_at });
          summary.rules++;
          return;
        }
        default:
          throw new ImportError(`Line ${n + 1} has an unknown type.`);
      }
    });
  });
  return summary;
}
