/**
 * Lowers the calling thread's CPU priority (its nice value) on Linux, where each thread has its
 * own; elsewhere nothing happens. The learning thread runs the strong model for minutes at a time:
 * niced, it yields the cores to the threads that answer requests whenever they want them, and runs
 * at full speed when they are idle.
 */
import { dlopen, FFIType } from 'bun:ffi';

/** The learning threads' nice value. 10: under contention a thread at the default 0 gets ~9 times this one's share of a core. */
export const LEARNING_NICE = 10;

/** gettid's system call number, by architecture (glibc before 2.30 has no wrapper). */
const GETTID: Partial<Record<string, number>> = { x64: 186, arm64: 178 };

/** Returns whether the priority was lowered. */
export function lowerThreadPriority(nice: number): boolean {
  const gettid = GETTID[process.arch];
  if (process.platform !== 'linux' || gettid === undefined) return false;
  try {
    const libc = dlopen('libc.so.6', {
      syscall: { args: [FFIType.i64], returns: FFIType.i64 },
      setpriority: { args: [FFIType.i32, FFIType.u32, FFIType.i32], returns: FFIType.i32 },
    });
    const tid = Number(libc.symbols.syscall(gettid));
    // PRIO_PROCESS (0) with a thread id sets that thread's nice value alone.
    const done = tid > 0 && libc.symbols.setpriority(0, tid, nice) === 0;
    libc.close();
    return done;
  } catch {
    return false;
  }
}
