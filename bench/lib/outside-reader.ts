/**
 * Another program on the store while the server runs, as a person would use one: Python's sqlite3
 * module (and the `sqlite3` shell where it is installed), opening the file read-write as both do by
 * default, counting the documents, and closing. Both link the system's SQLite (3.40 on Debian
 * bookworm), which deletes the -wal and -shm files at close when no other process holds a lock on
 * the database file. Also: the POSIX locks a process holds on a file, read from /proc/locks.
 */
import { readFileSync, statSync } from 'node:fs';

const PYTHON = `import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
print(c.execute('select count(*) from documents').fetchone()[0])
c.close()`;

/** Runs the outside readers on `dbFile`, one after the other, and returns the documents each counted. Throws when one fails. */
export async function readFromOutside(dbFile: string): Promise<number[]> {
  const runs = [['python3', '-c', PYTHON, dbFile]];
  if (Bun.which('sqlite3')) runs.push(['sqlite3', dbFile, 'select count(*) from documents']);
  const counts: number[] = [];
  for (const cmd of runs) {
    const proc = Bun.spawn(cmd, { stdin: 'ignore', stdout: 'pipe', stderr: 'pipe' });
    const [out, err, code] = await Promise.all([
      new Response(proc.stdout).text(),
      new Response(proc.stderr).text(),
      proc.exited,
    ]);
    if (code !== 0) throw new Error(`${cmd[0]} on ${dbFile} exited ${code}: ${err.trim()}`);
    counts.push(Number(out.trim()));
  }
  return counts;
}

/** The lines of /proc/locks that are locks process `pid` holds on `file` (matched by inode). */
export function locksHeld(pid: number, file: string): string[] {
  const { ino } = statSync(file);
  // "1: POSIX  ADVISORY  READ 1234 fe:00:5678 128 128": the pid, then major:minor:inode.
  return readFileSync('/proc/locks', 'utf8')
    .split('\n')
    .filter((line) => {
      const fields = line.trim().split(/\s+/);
      return fields[4] === String(pid) && fields[5]?.split(':')[2] === String(ino);
    });
}
