/**
 * Engram's own export format: JSON lines, a header first, then containers, documents, facts and
 * rules. Version 2 is written; versions 1 and 2 are read. This holds each line's shape in each
 * version, and how a stored thing is written as a line (for the export operation,
 * src/operations/import-export/export-memory.ts); reading a file is engram.ts's, and what a line does when
 * imported is the import operation's.
 */
import { z } from 'zod';
import { iso } from '../clock';
import { LIMITS, text } from '../limits';
import type { Container, DocumentRow, Fact, FactHistoryEntry, PassageInput, Rule } from '../storage/store';

export const EXPORT_FORMAT = 'engram-export';
const EXPORT_VERSION = 2;
/** The versions read. Version 1 had no document ids, states, fact sources or history. */
export const READABLE_VERSIONS = [1, 2];

/**
 * A fact's earlier wordings, bounded like every other field: each as long as a fact may be, so
 * many, and so much together.
 */
const HISTORY_LIMITS = { entries: 1000, bytes: 4 * LIMITS.contentBytes } as const;

const time = z.number().int();

export const HeaderLine = z.object({
  type: z.literal('header'),
  format: z.string(),
  version: z.number(),
  exported_at: z.string().optional(),
  /** The exporting account's id; with a line's id it names the thing an import remembers. Absent in older files. */
  account: z.string().min(1).optional(),
});

const ContainerLine = z.object({
  type: z.literal('container'),
  id: z.string(),
  name: z.string().min(1),
  description: z.string(),
  created_at: time,
  /** Version 2. */
  updated_at: time.optional(),
  /** Whether learning may promote the container's facts to the profile; absent in older files (on, the default). */
  learns_into_profile: z.boolean().optional(),
});

const DocumentV1 = z.object({
  type: z.literal('document'),
  container: z.string(),
  title: z.string().nullable(),
  content: z.string().nullable(),
  url: z.string().nullable(),
  custom_id: z.string().nullable(),
  metadata: z.record(z.string(), z.unknown()).nullable(),
  created_at: time,
});

const DocumentV2 = DocumentV1.extend({
  /** The document's id on the exporting server: fact lines name their source by it. */
  id: z.string(),
  status: z.enum(['queued', 'learned', 'failed']),
  error: z.string().nullable(),
  updated_at: time,
  learned_at: time.nullable(),
  /** A learned URL document: the passages its page was read as, so an import needs no fetch. Null otherwise. */
  passages: z
    .array(z.object({ position: z.number().int(), title: z.string().nullable(), content: z.string() }))
    .nullable(),
});

const FactV1 = z.object({
  type: z.literal('fact'),
  container: z.string().nullable(),
  content: z.string(),
  title: z.string().nullable(),
  static: z.boolean(),
  created_at: time,
  updated_at: time,
});

const FactV2 = FactV1.extend({
  /** The document (its export-time id) and passage position the fact was learned from; null when saved directly. */
  source: z.object({ document: z.string(), position: z.number().int() }).nullable(),
  /** Earlier wordings, oldest first. */
  history: z
    .array(z.object({ content: text(LIMITS.contentBytes), replaced_at: time }))
    .max(HISTORY_LIMITS.entries)
    .refine((h) => h.reduce((sum, e) => sum + Buffer.byteLength(e.content), 0) <= HISTORY_LIMITS.bytes, {
      message: `must hold at most ${HISTORY_LIMITS.bytes} bytes of earlier wordings`,
    }),
  /** When the owner confirmed or edited it (such a fact outlives its source document); absent in older files. */
  reviewed_at: time.nullable().optional(),
  /** The fact's id on the exporting server; absent in older files. */
  id: z.string().min(1).optional(),
});

const RuleLine = z.object({
  type: z.literal('rule'),
  text: z.string(),
  credential_id: z.string().nullable(),
  created_at: time,
  /** The rule's id on the exporting server (written from version 2 on; absent in older files). */
  id: z.string().min(1).optional(),
});

export type HeaderLine = z.infer<typeof HeaderLine>;
export type ContainerLine = z.infer<typeof ContainerLine>;
/** A document line of either version: version 1 lacks the fields that are optional here. */
export type DocumentLine = z.infer<typeof DocumentV1> & Partial<z.infer<typeof DocumentV2>>;
export type FactLine = z.infer<typeof FactV1> & Partial<z.infer<typeof FactV2>>;
export type RuleLine = z.infer<typeof RuleLine>;
/** What the export writes, line by line (version 2). */
export type WrittenLine =
  | HeaderLine
  | Required<ContainerLine>
  | z.infer<typeof DocumentV2>
  | z.infer<typeof FactV2>
  | RuleLine;
/** A checked line after the header, as the import reads it. */
export type ExportLine = ContainerLine | DocumentLine | FactLine | RuleLine;

/**
 * The first line: which format and version, when, and the exporting account (an import remembers
 * its things under it).
 */
export const headerLine = (accountId: string, now: number): WrittenLine => ({
  type: 'header',
  format: EXPORT_FORMAT,
  version: EXPORT_VERSION,
  exported_at: iso(now)!,
  account: accountId,
});

export const containerLine = (c: Container): WrittenLine => ({
  type: 'container',
  id: c.id,
  name: c.name,
  description: c.description,
  created_at: c.createdAt,
  updated_at: c.updatedAt,
  learns_into_profile: c.learnsIntoProfile,
});

/**
 * A document; a learned URL document with the passages its page was read as, since the page may
 * have changed or gone.
 */
export const documentLine = (d: DocumentRow, passages: PassageInput[] | null): WrittenLine => ({
  type: 'document',
  id: d.id,
  container: d.containerId,
  title: d.title,
  content: d.content,
  url: d.url,
  custom_id: d.customId,
  metadata: d.metadata,
  status: d.status,
  error: d.error,
  created_at: d.createdAt,
  updated_at: d.updatedAt,
  learned_at: d.learnedAt,
  passages,
});

/** A fact with where it was learned from and its earlier wordings. */
export const factLine = (m: Fact, history: FactHistoryEntry[]): WrittenLine => ({
  type: 'fact',
  id: m.id,
  container: m.containerId,
  content: m.content,
  title: m.title,
  static: m.static,
  created_at: m.createdAt,
  updated_at: m.updatedAt,
  source: m.sourceDocumentId ? { document: m.sourceDocumentId, position: m.sourcePosition ?? 0 } : null,
  history: history.map((h) => ({ content: h.content, replaced_at: h.replacedAt })),
  reviewed_at: m.reviewedAt ?? null,
});

export const ruleLine = (r: Rule): WrittenLine => ({
  type: 'rule',
  id: r.id,
  text: r.text,
  credential_id: r.credentialId,
  created_at: r.createdAt,
});

/** Each readable version's line shapes, by a line's type. */
export const SCHEMAS: Record<number, Record<string, z.ZodType>> = {
  1: { container: ContainerLine, document: DocumentV1, fact: FactV1, rule: RuleLine },
  2: { container: ContainerLine, document: DocumentV2, fact: FactV2, rule: RuleLine },
};
