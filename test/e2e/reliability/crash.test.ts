/**
 * Crash safety: the real `engram serve` in its own process, written to at full speed by
 * concurrent loops (documents of ~1 KiB with unique custom_ids, and facts), is killed with SIGKILL
 * at a random instant 50–400 ms in, mid-add and mid-learning, then restarted on the same data
 * directory. In every cycle, before the kill, an outside SQLite client (Python's sqlite3, and the
 * `sqlite3` shell where installed) opens the store, reads and closes. After every kill and restart: every acknowledged write is there exactly once, the
 * file passes integrity_check, every acknowledged document is learned within 15 s of the restart,
 * and no document is learned twice. ENGRAM_CRASH_CYCLES sets the cycles (default 30);
 * bench/crash.ts runs 200 by hand.
 */
import { describe, expect, it } from 'bun:test';
import { runCrashCycles } from '../../../bench/crash';

const CYCLES = Number(process.env.ENGRAM_CRASH_CYCLES ?? 30);

describe('SIGKILL mid-write and mid-learning, restart on the same data directory', () => {
  it(`loses no acknowledged write, duplicates none, keeps the file intact and learns everything once (${CYCLES} cycles)`, async () => {
    const report = await runCrashCycles({ cycles: CYCLES, learnBoundS: 15 });
    console.log(
      `crash: ${report.cycles} cycles, ${report.docsAcked} documents and ${report.factsAcked} facts acknowledged, ${report.unanswered} requests cut off, ${report.queuedAtKill} documents queued at kill, ${report.outsideReads} outside reads followed by ${report.ackedAfterReader} acknowledged writes, max start ${report.maxStartMs.toFixed(0)} ms, max learn ${report.maxLearnMs.toFixed(0)} ms`,
    );
    expect(report.problems).toEqual([]);
    expect(report.cycles).toBe(CYCLES);
    // The kills must really have landed mid-write and mid-learning, or the test proves nothing.
    expect(report.docsAcked).toBeGreaterThan(CYCLES);
    expect(report.factsAcked).toBeGreaterThan(CYCLES);
    expect(report.unanswered).toBeGreaterThan(0);
    expect(report.queuedAtKill).toBeGreaterThan(0);
    // And writes were acknowledged after an outside client had opened and closed the store.
    expect(report.outsideReads).toBe(CYCLES);
    expect(report.ackedAfterReader).toBeGreaterThan(CYCLES);
    expect(report.maxLearnMs).toBeLessThan(15_000);
  }, 600_000);
});
