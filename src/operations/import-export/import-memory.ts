/**
 * The import: memory from elsewhere (an Engram export, ChatGPT, Claude, the MCP memory server, a
 * folder of Markdown notes) read into the owner's account. One operation for every door: `engram
 * import` and the Import page of the owner's app. The formats' readers are in src/importers/.
 *
 * The source is read twice. The first read checks all of it (each item by the rules of the
 * operation that adds such a thing over the API) and counts what it would do, storing nothing: a
 * broken or refused source is refused whole, naming where its first problem is, and a dry run
 * stops there. The second read stores it, a batch of items a transaction, so that the server goes
 * on answering while a large archive goes in; an import cut short (the process stopped, the disk
 * full) keeps the batches it committed, and running it again adds the rest and nothing twice.
 */
import { statSync } from 'node:fs';
import { z } from 'zod';
import { refuseOwnerOnly } from '../../auth/access';
import { ServiceError } from '../../errors';
import { FORMAT_NAMES } from '../../importers/format-labels';
import { IMPORTERS } from '../../importers/formats';
import type { DocumentLine } from '../../importers/engram-format';
import type { ImportItem, ImportReader } from '../../importers/items';
import { refusal } from '../../importers/problem';
import type { ImportChange, ImportSummary } from './import-summary';
import { type Context, parseInput } from '../operation';
import { ImportPass } from './import-pass';
import { displayName } from '../schemas';

/** What the person asks for, besides the source: checked like any operation's input. */
export const ImportOptions = z.object({
  format: z.enum(FORMAT_NAMES),
  /** A container's name: everything goes there (made when missing). Absent: each source's own. */
  container: displayName.nullish(),
  dry_run: z.boolean().optional(),
  /** Leave out, and list, the entries that cannot be imported, rather than refuse the whole source. */
  skip_invalid: z.boolean().optional(),
});

/**
 * The source: a file (or a folder of notes) on this machine, and what messages call it (the
 * uploaded file's name, say).
 */
export interface ImportSource {
  path: string;
  label: string;
}

export interface ImportProgress {
  phase: 'checking' | 'importing';
  /** Of the source's bytes (files, for a folder). */
  done: number;
  total: number;
}

export interface ImportHooks {
  onProgress?(progress: ImportProgress): void;
  /** Told each change the first read finds (the dry run's list). */
  onChange?(change: ImportChange): void;
  /** Stops the import between two batches (the server stopping). */
  signal?: AbortSignal;
}

/** A batch's limits: an Engram export's URL documents and conversations run to megabytes each. */
const BATCH_ITEMS = 200;
const BATCH_BYTES = 8 * 1024 * 1024;

/** Lets the event loop run between batches: the server answers requests while an import goes on. */
const turn = () => new Promise((resolve) => setImmediate(resolve));

/**
 * Imports the source into the caller's account (the owner only), or with `dry_run` says what that
 * would do. Refuses (400 `validation`) a source that is broken or that holds a thing the API would
 * refuse, naming the file, line and column of the first, before anything is stored.
 */
export async function importMemory(
  ctx: Context,
  source: ImportSource,
  options: z.input<typeof ImportOptions>,
  hooks: ImportHooks = {},
): Promise<ImportSummary> {
  if (ctx.caller.kind !== 'owner') throw refuseOwnerOnly('import', ctx.caller);
  const {
    format,
    container,
    dry_run: dryRun = false,
    skip_invalid: skipInvalid = false,
  } = parseInput(ImportOptions, options);
  if (format === 'engram' && container) {
    throw new ServiceError('validation', 'An Engram export keeps its own containers: import it without naming one.', {
      fields: ['container'],
    });
  }
  if (format !== 'markdown' && statSync(source.path).isDirectory()) {
    throw refusal(
      { file: source.label },
      'is a folder: a folder is read as Markdown notes (--from markdown); other formats are files.',
    );
  }
  const reader = await IMPORTERS[format](
    source.path,
    source.label,
    container ? { name: container, description: '' } : null,
  );
  try {
    const pass = (now: number | null, onChange?: ImportHooks['onChange']) =>
      new ImportPass(ctx, format, reader, { now, file: source.label, skipInvalid, onChange });
    const checked = await read(ctx, reader, pass(null, hooks.onChange), hooks);
    if (dryRun) return checked;
    return await read(ctx, reader, pass(ctx.clock.now()), hooks);
  } finally {
    reader.close();
  }
}

/** One read of the source through `pass`: checking, or storing in batches (see the file's comment). */
async function read(ctx: Context, reader: ImportReader, pass: ImportPass, hooks: ImportHooks): Promise<ImportSummary> {
  const phase = pass.writing ? 'importing' : 'checking';
  const onRead = (done: number, total: number) => hooks.onProgress?.({ phase, done, total });
  let batch: ImportItem[] = [];
  let bytes = 0;
  const flush = async () => {
    await ctx.store.transaction(async (tx) => {
      for (const item of batch) await pass.apply(tx, item);
    });
    ctx.indexes.forgetPassages(pass.takeForgotten());
    ctx.notifyQueued();
    batch = [];
    bytes = 0;
  };
  let n = 0;
  for await (const item of reader.items(onRead)) {
    if (hooks.signal?.aborted)
      throw new ServiceError(
        'conflict',
        'The import was stopped (the server is stopping); run it again to add the rest.',
      );
    if (!pass.writing) {
      await pass.apply(ctx.store, item);
      if (++n % BATCH_ITEMS === 0) await turn();
      continue;
    }
    if (!(await pass.prepare(item))) continue;
    batch.push(item);
    bytes += weight(item);
    if (batch.length >= BATCH_ITEMS || bytes >= BATCH_BYTES) {
      await flush();
      await turn();
    }
  }
  if (batch.length) await flush();
  return pass.summary;
}

/** About how much an item weighs in a batch: its text. */
function weight(item: ImportItem): number {
  if (item.kind === 'document') return item.content.length;
  if (item.kind !== 'export-line') return 0;
  const line = item.line as Partial<DocumentLine>;
  return (line.content?.length ?? 0) + (line.passages ?? []).reduce((sum, p) => sum + p.content.length, 0);
}
