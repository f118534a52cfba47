/** The learning thread's lower CPU priority: its own thread's nice value, not the process's. */
import { describe, expect, it } from 'bun:test';
import { readFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';

/** The calling thread's nice value, from /proc (field 19 of its stat, after the command's parentheses). */
const niceOfThisThread = () => Number(readFileSync('/proc/thread-self/stat', 'utf8').split(') ')[1]!.split(' ')[16]);

describe.if(process.platform === 'linux')('lowering a thread priority', () => {
  it('sets the nice value of the calling thread alone', async () => {
    const before = niceOfThisThread();
    const worker = new Worker(new URL('./fixtures/lower-priority-worker.ts', import.meta.url));
    const seen = await new Promise<{ lowered: boolean; nice: number }>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    await worker.terminate();
    // An absolute nice value: 10, from the 0 a test runs at.
    expect(before).toBe(0);
    expect(seen).toEqual({ lowered: true, nice: 10 });
    expect(niceOfThisThread()).toBe(before);
  });
});
