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
import { refusal } from '../../importers/problem';
import type { ImportSummary } from './import-summary';
import { type Context, parseInput } from '../operation';
import { type ImportHooks, ImportPass } from './import-pass';
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
    const pass = (now: number | null, passHooks: ImportHooks) =>
      new ImportPass(ctx, format, reader, { now, file: source.label, skipInvalid }, passHooks).run();
    const checked = await pass(null, hooks);
    if (dryRun) return checked;
    return await pass(ctx.clock.now(), { ...hooks, onChange: undefined });
  } finally {
    reader.close();
  }
}
