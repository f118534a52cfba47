/**
 * What the importers' tests share, units and end to end: the fixtures (test/fixtures/imports/, in
 * each product's documented export shape), zip archives made of them, and the items a reader
 * yields, gathered.
 */
import { join } from 'node:path';
import { ZipFile } from 'yazl';
import type { ImportItem, ImportReader } from '../../src/importers/items';

export const FIXTURES = join(import.meta.dir, '../fixtures/imports');

/** Writes a zip archive of `entries` (name → text or bytes) at `path`. */
export async function writeZip(path: string, entries: Record<string, string | Uint8Array>): Promise<string> {
  const zip = new ZipFile();
  for (const [name, data] of Object.entries(entries))
    zip.addBuffer(Buffer.from(data), name, { mtime: new Date('2025-01-01T00:00:00Z') });
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
  await Bun.write(path, Buffer.concat(chunks));
  return path;
}

/** Every item a reader yields in one read of its source, in order; the reader is closed after. */
export async function readItems(reader: ImportReader | Promise<ImportReader>): Promise<ImportItem[]> {
  const opened = await reader;
  const items: ImportItem[] = [];
  try {
    for await (const item of opened.items(() => {})) items.push(item);
  } finally {
    opened.close();
  }
  return items;
}

/** One line of each kind an Engram export (version 2) holds, as `engram export` writes them. */
export const EXPORT_HEADER = {
  type: 'header',
  format: 'engram-export',
  version: 2,
  exported_at: '2026-01-01T00:00:00Z',
  account: 'acc_elsewhere',
};
export const EXPORT_CONTAINER = {
  type: 'container',
  id: 'ctr_x',
  name: 'Notes',
  description: '',
  created_at: 1,
  updated_at: 1,
};
export const EXPORT_FACT = {
  type: 'fact',
  id: 'mem_x',
  container: 'ctr_x',
  content: 'Lives in Berlin.',
  title: null,
  static: false,
  created_at: 1,
  updated_at: 2,
  source: null,
  history: [],
  reviewed_at: null,
};
export const EXPORT_DOCUMENT = {
  type: 'document',
  id: 'doc_x',
  container: 'ctr_x',
  title: 'Boiler',
  content: 'The boiler was serviced in May.',
  url: null,
  custom_id: null,
  metadata: null,
  status: 'learned',
  error: null,
  created_at: 1,
  updated_at: 1,
  learned_at: 1,
  passages: null,
};
export const EXPORT_RULE = {
  type: 'rule',
  id: 'rul_x',
  text: 'Never share notes with shopping apps.',
  credential_id: null,
  created_at: 1,
};
