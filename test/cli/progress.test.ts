/** `engram import`'s progress on standard error: a bar redrawn in place on a terminal, plain lines a tenth apart otherwise, nothing for a quick one. */
import { describe, expect, it } from 'bun:test';
import { progressReport } from '../../src/cli/progress';

/** A stream that keeps what is written to it. */
const stream = (isTTY: boolean) => {
  const written: string[] = [];
  return { written, out: { isTTY, write: (s: string) => written.push(s) > 0 } };
};

/** Reports a read of 50 MB checked, then stored, in steps of 1 MB. */
function run(report: ReturnType<typeof progressReport>): void {
  for (const phase of ['checking', 'importing'] as const) {
    for (let done = 0; done <= 50e6; done += 1e6) report.update({ phase, done, total: 50e6 });
  }
  report.end();
}

describe('progress of an import', () => {
  it('on a terminal: one bar redrawn in place, a line a phase', () => {
    const { written, out } = stream(true);
    run(progressReport(out, 0));
    const text = written.join('');
    expect(text.split('\n')).toHaveLength(3); // two bars, each ended by a line break
    expect(text).toContain('\r\x1b[2KChecking [------------------------------] 0%  0.0 MB of 50 MB');
    expect(text).toContain('\r\x1b[2KChecking [##############################] 100%  50 MB of 50 MB\n');
    expect(text).toContain('\r\x1b[2KImporting [##############################] 100%  50 MB of 50 MB\n');
  });

  it('elsewhere (a log, a pipe): a plain line at each tenth of each phase', () => {
    const { written, out } = stream(false);
    run(progressReport(out, 0));
    expect(written).toHaveLength(22);
    expect(written.slice(0, 3)).toEqual([
      'Checking: 0% (0.0 MB of 50 MB)\n',
      'Checking: 10% (5.0 MB of 50 MB)\n',
      'Checking: 20% (10 MB of 50 MB)\n',
    ]);
    expect(written.at(-1)).toBe('Importing: 100% (50 MB of 50 MB)\n');
    expect(written.every((line) => !line.includes('\r'))).toBe(true);
  });

  it('nothing for an import over within the quiet second', () => {
    for (const tty of [true, false]) {
      const { written, out } = stream(tty);
      run(progressReport(out));
      expect(written).toEqual([]);
    }
  });
});
