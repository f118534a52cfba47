/**
 * Imports started from the Import page: each runs the import operation in the background over a
 * file uploaded into the data directory's `imports/` folder, while the page shows its progress
 * and then its summary. Runs live in memory (the page needs them for minutes, not across a
 * restart); the uploaded file is removed when its run ends, and whatever a stopped server left in
 * the folder is removed at the next start.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Clock } from '../clock';
import { refusalOf } from '../errors';
import { randomBase62 } from '../ids';
import type { ImportFormatName } from '../importers/format-labels';
import { importMemory } from '../operations/import-export/import-memory';
import type { ImportProgress } from '../operations/import-export/import-pass';
import type { ImportChange, ImportSummary } from '../operations/import-export/import-summary';
import type { Context } from '../operations/operation';

/** The changes of a dry run the page lists; the count says how many more. */
const LISTED_CHANGES = 200;
/** How long a finished run's summary stays to be read. */
const KEPT_MS = 60 * 60 * 1000;

export interface ImportRun {
  id: string;
  accountId: string;
  /** The uploaded file's name. */
  label: string;
  format: ImportFormatName;
  dryRun: boolean;
  state: 'running' | 'done' | 'failed';
  progress: ImportProgress | null;
  summary: ImportSummary | null;
  /** What refused the file, or why the run stopped. */
  error: string | null;
  /** A dry run's first changes. */
  changes: ImportChange[];
  changeCount: number;
  endedAt: number | null;
}

export class ImportRuns {
  private readonly runs = new Map<string, { run: ImportRun; done: Promise<void> }>();
  private readonly stopping = new AbortController();

  /** `dir` holds the uploads; what is in it from an earlier start is removed. */
  constructor(
    readonly dir: string,
    private readonly clock: Clock,
  ) {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  }

  /** Where to write an upload (readable by the server's user alone, as the store is). */
  uploadPath(): string {
    return join(this.dir, `upload-${randomBase62(16)}`);
  }

  /** Starts importing the uploaded file at `path` for the context's owner; the file is removed when the run ends. */
  start(
    ctx: Context,
    path: string,
    label: string,
    options: { format: ImportFormatName; container: string | null; dryRun: boolean; skipInvalid: boolean },
  ): ImportRun {
    this.forgetOld();
    const run: ImportRun = {
      id: randomBase62(16),
      accountId: ctx.caller.accountId,
      label,
      format: options.format,
      dryRun: options.dryRun,
      state: 'running',
      progress: null,
      summary: null,
      error: null,
      changes: [],
      changeCount: 0,
      endedAt: null,
    };
    const done = importMemory(
      ctx,
      { path, label },
      {
        format: options.format,
        container: options.container,
        dry_run: options.dryRun,
        skip_invalid: options.skipInvalid,
      },
      {
        signal: this.stopping.signal,
        onProgress: (progress) => {
          run.progress = progress;
        },
        onChange: (change) => {
          if (run.changeCount++ < LISTED_CHANGES) run.changes.push(change);
        },
      },
    )
      .then(
        (summary) => {
          run.summary = summary;
          run.state = 'done';
        },
        (err: unknown) => {
          // A refusal (a broken file, a full disk) is meant for the person; anything else is ours, logged.
          const refusal = refusalOf(err);
          if (!refusal)
            ctx.log.error('an import failed', {
              trace_id: ctx.traceId,
              error: String(err),
              stack: (err as Error).stack,
            });
          run.error =
            refusal?.message ?? `The import failed on the server. Quote the trace_id ${ctx.traceId} when reporting it.`;
          run.state = 'failed';
        },
      )
      .finally(() => {
        run.endedAt = this.clock.now();
        rmSync(path, { force: true });
      });
    this.runs.set(run.id, { run, done });
    return run;
  }

  /** The account's run of that id, or null (another account's is null too). */
  get(accountId: string, id: string): ImportRun | null {
    const found = this.runs.get(id)?.run;
    return found && found.accountId === accountId ? found : null;
  }

  /** Stops the runs between two batches (what they stored stays) and waits for them to end: the server is stopping. */
  async stop(): Promise<void> {
    this.stopping.abort();
    await Promise.all([...this.runs.values()].map((r) => r.done));
  }

  private forgetOld(): void {
    const now = this.clock.now();
    for (const [id, { run }] of this.runs)
      if (run.endedAt !== null && now - run.endedAt > KEPT_MS) this.runs.delete(id);
  }
}
