/**
 * How far a long command is, on standard error: a bar redrawn in place on a terminal, and on
 * anything else (a log, a pipe) a plain line at the start of each phase and each tenth of it.
 * Nothing is shown for a command that ends within a second: a small file's import says only what it did.
 */
import type { ImportProgress } from '../operations/import-export/import-pass';

const PHASES = { checking: 'Checking', importing: 'Importing' } as const;
const WIDTH = 30;
/** Redraws of the bar at most this often: drawing is not free, and an eye reads no faster. */
const REDRAW_MS = 100;
/** Progress shows once the command has run this long. */
const QUIET_MS = 1000;

const megabytes = (bytes: number) => `${(bytes / 1e6).toFixed(bytes < 1e7 ? 1 : 0)} MB`;

export interface ProgressReport {
  update(progress: ImportProgress): void;
  /** Ends the bar's line (a terminal) before the next output. */
  end(): void;
}

export function progressReport(
  out: Pick<NodeJS.WriteStream, 'write' | 'isTTY'> = process.stderr,
  quietMs = QUIET_MS,
): ProgressReport {
  let phase: ImportProgress['phase'] | null = null;
  let tenth = -1;
  let drawnAt = 0;
  let drawn = false;
  const started = performance.now();
  return {
    update(p) {
      if (performance.now() - started < quietMs) return;
      const fraction = p.total > 0 ? Math.min(1, p.done / p.total) : 1;
      if (out.isTTY) {
        const now = performance.now();
        if (p.phase === phase && now - drawnAt < REDRAW_MS && fraction < 1) return;
        if (p.phase !== phase && drawn) out.write('\n');
        [phase, drawnAt, drawn] = [p.phase, now, true];
        const filled = Math.round(fraction * WIDTH);
        out.write(
          `\r\x1b[2K${PHASES[p.phase]} [${'#'.repeat(filled)}${'-'.repeat(WIDTH - filled)}] ${Math.floor(fraction * 100)}%  ${megabytes(p.done)} of ${megabytes(p.total)}`,
        );
        return;
      }
      const step = Math.floor(fraction * 10);
      if (p.phase === phase && step === tenth) return;
      [phase, tenth] = [p.phase, step];
      out.write(`${PHASES[p.phase]}: ${step * 10}% (${megabytes(p.done)} of ${megabytes(p.total)})\n`);
    },
    end() {
      if (out.isTTY && drawn) out.write('\n');
      drawn = false;
    },
  };
}
