/**
 * Crash safety by hand: `bun bench/crash.ts [cycles]` (default 200, or ENGRAM_CRASH_CYCLES).
 * The real `engram serve` as a separate process, written to at full speed, killed with SIGKILL at a
 * random instant mid-write and mid-learning, restarted on the same data directory, and checked after
 * every restart: every acknowledged write, the file's integrity, learning. In every cycle an outside
 * SQLite client (Python's sqlite3, and the `sqlite3` shell where installed) opens the store, reads
 * and closes while the writes go on. The same harness runs 30 cycles in
 * test/e2e/reliability/crash.test.ts. See docs/reliability.md.
 */
import { Database } from 'bun:sqlite';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { splitPassages } from '../src/learning/split-passages';
import { sweepThenRemove } from '../test/helpers/secret-sweep';
import { engram, spawnServer } from './lib/engram-process';
import { readFromOutside } from './lib/outside-reader';

const PASSWORD = 'correct horse battery staple';

export interface CrashOptions {
  cycles: number;
  /** Concurrent writers of each kind (documents, facts). */
  loops?: number;
  /** Seconds after a restart within which every acknowledged document must be learned or failed. */
  learnBoundS?: number;
  /** An outside SQLite client reads the store mid-write in every cycle (default true). */
  outsideReader?: boolean;
  env?: Record<string, string>;
  log?: (line: string) => void;
}

export interface CrashReport {
  cycles: number;
  docsAcked: number;
  factsAcked: number;
  /** Requests cut off by the kill (no answer): their outcome is unknown and allowed either way. */
  unanswered: number;
  /** Documents still queued at the instant of a kill (learning was interrupted mid-queue). */
  queuedAtKill: number;
  /** Outside readers that opened, read and closed the store while the server wrote. */
  outsideReads: number;
  /** Writes acknowledged after an outside reader had closed the store, in the same cycle. */
  ackedAfterReader: number;
  maxStartMs: number;
  maxLearnMs: number;
  passages: number;
  problems: string[];
}

/** A document body of about 1 KiB in three paragraphs, unique to `tag`. */
function body(tag: string): string {
  const para = (n: number) =>
    `Paragraph ${n} of ${tag}. ` + 'Lentils, cumin and a slow simmer make a winter soup worth keeping. '.repeat(5);
  return [para(1), para(2), para(3)].join('\n\n');
}

function readOnly(data: string): Database {
  return new Database(join(data, 'engram.db'), { readonly: true });
}

export async function runCrashCycles(opts: CrashOptions): Promise<CrashReport> {
  const log = opts.log ?? (() => {});
  const loops = opts.loops ?? 2;
  const learnBoundMs = (opts.learnBoundS ?? 15) * 1000;
  const home = mkdtempSync(join(tmpdir(), 'engram-crash-'));
  const data = join(home, 'data');
  // Each start's standard error in a file of its own, swept for secrets with the store at the end.
  const logs = join(home, 'logs');
  mkdirSync(logs);
  let starts = 0;
  const start = () => spawnServer(data, opts.env, join(logs, `serve-${++starts}.log`));
  const report: CrashReport = {
    cycles: 0,
    docsAcked: 0,
    factsAcked: 0,
    unanswered: 0,
    queuedAtKill: 0,
    outsideReads: 0,
    ackedAfterReader: 0,
    maxStartMs: 0,
    maxLearnMs: 0,
    passages: 0,
    problems: [],
  };
  const ackedDocs = new Map<string, { id: string; content: string }>(); // custom_id -> id, content
  const ackedFacts = new Map<string, string>(); // content -> id
  const problem = (p: string) => {
    report.problems.push(p);
    log(`PROBLEM: ${p}`);
  };
  try {
    engram(data, ['owner', 'create', '--email', 'crash@example.org'], `${PASSWORD}\n`);
    const container = engram(data, ['containers', 'create', 'Crash']);
    const key = engram(data, ['keys', 'create', '--name', 'crash', '--level', 'manage', '--all', '--profile']);
    const auth = { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' };
    let server = await start();
    report.maxStartMs = server.startMs;

    for (let cycle = 0; cycle < opts.cycles; cycle++) {
      // 1. Write at full speed; kill at a random instant.
      let stop = false;
      let seq = 0;
      let readerClosed = false;
      const acked = () => {
        if (readerClosed) report.ackedAfterReader++;
      };
      const writer = async (kind: 'doc' | 'fact', w: number) => {
        while (!stop) {
          const tag = `c${cycle}-${kind}${w}-${seq++}-${crypto.randomUUID().slice(0, 8)}`;
          try {
            if (kind === 'doc') {
              const content = body(tag);
              const res = await fetch(`${server.url}/v1/documents`, {
                method: 'POST',
                headers: auth,
                body: JSON.stringify({ container, custom_id: tag, title: `Doc ${tag}`, content }),
              });
              const json = (await res.json()) as any;
              if (res.status === 202 || res.status === 200) {
                ackedDocs.set(tag, { id: json.id, content });
                acked();
              } else problem(`add_document ${tag} answered ${res.status} ${JSON.stringify(json)}`);
            } else {
              const content = `Fact ${tag}: prefers green tea in the morning.`;
              const res = await fetch(`${server.url}/v1/memories`, {
                method: 'POST',
                headers: auth,
                body: JSON.stringify({ container, content }),
              });
              const json = (await res.json()) as any;
              if (res.status === 201) {
                ackedFacts.set(content, json.id);
                acked();
              } else problem(`add_memory ${tag} answered ${res.status} ${JSON.stringify(json)}`);
            }
          } catch {
            report.unanswered++;
            return; // the server is gone
          }
        }
      };
      const writers = [
        ...Array.from({ length: loops }, (_, w) => writer('doc', w)),
        ...Array.from({ length: loops }, (_, w) => writer('fact', w)),
      ];
      if (opts.outsideReader ?? true) {
        // Once a person has opened the file beside the running server, every later acknowledgement must survive the kill.
        await Bun.sleep(Math.floor(Math.random() * 100));
        try {
          await readFromOutside(join(data, 'engram.db'));
          report.outsideReads++;
          readerClosed = true;
        } catch (err) {
          problem(`cycle ${cycle}: the outside reader failed: ${(err as Error).message}`);
        }
      }
      await Bun.sleep(50 + Math.floor(Math.random() * 351));
      server.proc.kill('SIGKILL');
      await server.proc.exited;
      stop = true;
      await Promise.all(writers);
      report.cycles++;

      // 2. Dead server: the file, read-only.
      {
        const db = readOnly(data);
        try {
          const integrity = db
            .query<{ integrity_check: string }, []>('PRAGMA integrity_check')
            .all()
            .map((r) => r.integrity_check);
          if (integrity.join() !== 'ok') problem(`cycle ${cycle}: integrity_check ${integrity.join('; ')}`);
          const counts = new Map<string, number>();
          for (const r of db
            .query<{ content: string; n: number }, []>('SELECT content, count(*) AS n FROM memories GROUP BY content')
            .all())
            counts.set(r.content, r.n);
          for (const content of ackedFacts.keys())
            if (counts.get(content) !== 1)
              problem(`cycle ${cycle}: acknowledged fact "${content}" stored ${counts.get(content) ?? 0} times`);
          const factPassages = db
            .query<{ memory_id: string; n: number }, []>(
              'SELECT memory_id, count(*) AS n FROM passages WHERE memory_id IS NOT NULL GROUP BY memory_id HAVING n <> 1',
            )
            .all();
          for (const r of factPassages) problem(`cycle ${cycle}: fact ${r.memory_id} has ${r.n} passages`);
          const bare = db
            .query<{ n: number }, []>(
              'SELECT count(*) AS n FROM memories m WHERE m.container_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM passages p WHERE p.memory_id = m.id)',
            )
            .get()!.n;
          if (bare > 0) problem(`cycle ${cycle}: ${bare} facts have no passage`);
          report.queuedAtKill += db
            .query<{ n: number }, []>("SELECT count(*) AS n FROM documents WHERE status = 'queued'")
            .get()!.n;
        } finally {
          db.close();
        }
      }

      // 3. Restart on the same directory.
      server = await start();
      const restartedAt = performance.now();
      report.maxStartMs = Math.max(report.maxStartMs, server.startMs);

      // 4. Every acknowledged document is there exactly once, by custom_id, through the API.
      const seen = new Map<string, number>();
      let cursor: string | null = null;
      do {
        const q: string = `/v1/documents?container=${container}&limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
        const res = await fetch(`${server.url}${q}`, { headers: auth });
        if (res.status !== 200) {
          problem(`cycle ${cycle}: list_documents answered ${res.status}`);
          break;
        }
        const page = (await res.json()) as { documents: { custom_id: string | null }[]; next_cursor: string | null };
        for (const d of page.documents) if (d.custom_id) seen.set(d.custom_id, (seen.get(d.custom_id) ?? 0) + 1);
        cursor = page.next_cursor;
      } while (cursor);
      for (const [cid] of ackedDocs)
        if (seen.get(cid) !== 1)
          problem(`cycle ${cycle}: acknowledged document ${cid} listed ${seen.get(cid) ?? 0} times`);
      for (const [cid, n] of seen) if (n !== 1) problem(`cycle ${cycle}: document ${cid} listed ${n} times`);

      // 5. Learning finishes within the bound after the restart (timed from the first healthy answer), and nothing is learned twice.
      const t0 = restartedAt;
      let queued = -1;
      while (performance.now() - t0 < learnBoundMs) {
        const db = readOnly(data);
        try {
          queued = db.query<{ n: number }, []>("SELECT count(*) AS n FROM documents WHERE status = 'queued'").get()!.n;
        } finally {
          db.close();
        }
        if (queued === 0) break;
        await Bun.sleep(100);
      }
      const learnMs = performance.now() - t0;
      report.maxLearnMs = Math.max(report.maxLearnMs, learnMs);
      if (queued !== 0)
        problem(`cycle ${cycle}: ${queued} documents still queued ${learnBoundMs / 1000} s after the restart`);
      const db = readOnly(data);
      try {
        const rows = db
          .query<{ custom_id: string; id: string; status: string; content: string; title: string | null }, []>(
            'SELECT custom_id, id, status, content, title FROM documents',
          )
          .all();
        const byId = new Map(rows.map((r) => [r.custom_id, r]));
        const passageCounts = new Map<string, number>();
        for (const r of db
          .query<{ document_id: string; n: number }, []>(
            'SELECT document_id, count(*) AS n FROM passages WHERE document_id IS NOT NULL GROUP BY document_id',
          )
          .all())
          passageCounts.set(r.document_id, r.n);
        const dupPositions = db
          .query<{ document_id: string; position: number; n: number }, []>(
            'SELECT document_id, position, count(*) AS n FROM passages WHERE document_id IS NOT NULL GROUP BY document_id, position HAVING n > 1',
          )
          .all();
        for (const d of dupPositions)
          problem(`cycle ${cycle}: document ${d.document_id} has ${d.n} passages at position ${d.position}`);
        for (const [cid, acked] of ackedDocs) {
          const row = byId.get(cid);
          if (!row) continue; // reported above
          if (row.id !== acked.id) problem(`cycle ${cycle}: ${cid} has id ${row.id}, acknowledged as ${acked.id}`);
          if (row.content !== acked.content) problem(`cycle ${cycle}: ${cid} content changed`);
          if (row.status === 'failed') problem(`cycle ${cycle}: ${cid} failed to learn`);
          if (row.status === 'learned') {
            const expected = splitPassages(acked.content, row.title).length;
            if (passageCounts.get(row.id) !== expected)
              problem(
                `cycle ${cycle}: ${cid} has ${passageCounts.get(row.id) ?? 0} passages, one learning makes ${expected}`,
              );
          }
        }
        report.passages = db.query<{ n: number }, []>('SELECT count(*) AS n FROM passages').get()!.n;
      } finally {
        db.close();
      }
      report.docsAcked = ackedDocs.size;
      report.factsAcked = ackedFacts.size;
      log(
        `cycle ${cycle + 1}/${opts.cycles}: ${ackedDocs.size} documents, ${ackedFacts.size} facts acknowledged; ${report.unanswered} cut off; start ${server.startMs.toFixed(0)} ms; learned in ${learnMs.toFixed(0)} ms; problems ${report.problems.length}`,
      );
      if (report.problems.length > 50) break;
    }
    server.proc.kill('SIGTERM');
    await server.proc.exited;
  } finally {
    sweepThenRemove({ harness: 'bun:crash', stores: [data], logs: [logs] }, home);
  }
  return report;
}

if (import.meta.main) {
  const cycles = Number(process.argv[2] ?? process.env.ENGRAM_CRASH_CYCLES ?? 200);
  const t0 = performance.now();
  const report = await runCrashCycles({ cycles, log: (l) => console.log(l) });
  const { problems, ...figures } = report;
  console.log(
    JSON.stringify(
      { ...figures, problems: problems.length, seconds: Math.round((performance.now() - t0) / 1000) },
      null,
      2,
    ),
  );
  for (const p of problems.slice(0, 20)) console.log(`  ${p}`);
  process.exit(problems.length === 0 ? 0 : 1);
}
