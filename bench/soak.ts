/**
 * The soak: the server as its own process over a store seeded with N passages, and a second
 * process (bench/soak-clients.ts) running 16 clients for a fixed time: 8 through the TypeScript
 * client library, 8 over MCP. Reports throughput and p50/p95/p99 per operation, then, once
 * learning has caught up, checks the targets and exits non-zero if one fails:
 *   - no 5xx (nor any other failed call);
 *   - no acknowledged write lost: every acknowledged document present exactly once by id and by
 *     custom_id, every acknowledged fact present;
 *   - exactly one `queued` (the other `exists`, same id) per concurrent duplicate pair, and every
 *     re-add of an acknowledged custom_id answered `exists` with the first id.
 *
 *   bun bench/soak.ts [--passages 100000] [--minutes 5] [--keep DIR [--seed-only]] [--embedder builtin|none] [--think-ms 0]
 *
 * --keep DIR seeds DIR once and keeps it; a later run with the same DIR skips the seeding (the
 * documents a run adds stay, so the store grows a little with each run). --seed-only stops once
 * DIR is seeded: CI seeds while another phase runs (scripts/test-all.sh), then soaks on DIR.
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { openDatabase } from '../src/storage/sqlite/open';
import { openSqliteStore } from '../src/storage/sqlite/sqlite-store';
import { percentile } from './lib/corpus';
import { ROOT, serve } from './lib/engram-process';
import { seedStore } from './lib/seed';
import type { SoakRecord } from './soak-clients';

const { values } = parseArgs({
  options: {
    passages: { type: 'string', default: '100000' },
    minutes: { type: 'string', default: '5' },
    keep: { type: 'string' },
    embedder: { type: 'string', default: 'builtin' },
    'think-ms': { type: 'string', default: '0' },
    'seed-only': { type: 'boolean', default: false },
  },
});
if (values['seed-only'] && values.keep === undefined) throw new Error('--seed-only needs --keep DIR');
const wallStart = performance.now();
const target = Number(values.passages);
const dir = values.keep ?? mkdtempSync(join(tmpdir(), 'engram-soak-'));
const env = { ENGRAM_EMBEDDER: values.embedder! };
const seed = await seedStore(dir, target, values.embedder!, values.keep !== undefined);
const { key, passages } = seed;
if (values['seed-only']) {
  console.log(
    `== soak: ${passages} passages seeded in ${dir} (${seed.reused ? 'before' : `${seed.seconds.toFixed(1)} s`})`,
  );
  process.exit(0);
}

// The server, then the clients, each its own process.
const server = await serve(dir, env);
/** Passages the strong tier had refined (null: no strong tier): refinement yields to searches, so it shows how far it got. */
const refined = async () =>
  (
    (await (await fetch(`${server.url}/healthz`, { headers: { Authorization: `Bearer ${key}` } })).json()) as {
      learning: { refined: number | null };
    }
  ).learning.refined;
// One search first: it waits for the server's indexes to load, so the count is the store's.
const first = await fetch(`${server.url}/v1/search`, {
  method: 'POST',
  headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
  body: '{"q":"start"}',
});
if (!first.ok) {
  await server.stop();
  throw new Error(`search answered ${first.status}`);
}
const refinedBefore = await refined();
const runId = Date.now().toString(36);
const out = join(tmpdir(), `engram-soak-${runId}.json`);
const clients = Bun.spawn(
  [
    process.execPath,
    join(ROOT, 'bench/soak-clients.ts'),
    '--url',
    server.url,
    '--key',
    key,
    '--container',
    seed.containerId,
    '--minutes',
    values.minutes!,
    '--run',
    runId,
    '--out',
    out,
    '--think-ms',
    values['think-ms']!,
  ],
  { stdout: 'inherit', stderr: 'inherit' },
);
const clientsExit = await clients.exited;
const refinedAfter = await refined();
if (clientsExit !== 0) {
  await server.stop();
  throw new Error(`soak-clients exited ${clientsExit}`);
}
const rec = (await Bun.file(out).json()) as SoakRecord;
rmSync(out, { force: true });

// Wait for learning: every acknowledged document learned (or failed), read back over the API.
const headers = { Authorization: `Bearer ${key}` };
async function listAll(): Promise<{ id: string; custom_id: string | null; status: string }[]> {
  const all: { id: string; custom_id: string | null; status: string }[] = [];
  let cursor: string | null = null;
  do {
    const qs: string = `container=${seed.containerId}&limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const res = await fetch(`${server.url}/v1/documents?${qs}`, { headers });
    if (!res.ok) throw new Error(`list_documents answered ${res.status}`);
    const page = (await res.json()) as {
      documents: { id: string; custom_id: string | null; status: string }[];
      next_cursor: string | null;
    };
    all.push(...page.documents);
    cursor = page.next_cursor;
  } while (cursor);
  return all;
}
const ackedIds = new Set(rec.docs.map((d) => d.id));
const learnStart = performance.now();
let listed = await listAll();
while (listed.some((d) => ackedIds.has(d.id) && d.status === 'queued') && performance.now() - learnStart < 300_000) {
  await Bun.sleep(500);
  listed = await listAll();
}
const learnWait = (performance.now() - learnStart) / 1000;
const peak = server.peakMiB();
const serverAlive = await fetch(`${server.url}/healthz`).then(
  (r) => r.ok,
  () => false,
);
await server.stop();

// The checks.
const problems: string[] = [];
const serverErrors =
  Object.entries(rec.httpStatuses)
    .filter(([s]) => Number(s) >= 500)
    .reduce((n, [, c]) => n + c, 0) + rec.failures.filter((f) => f.code === 'internal').length;
if (serverErrors > 0) problems.push(`${serverErrors} answers were 5xx (or an MCP \`internal\` tool error)`);
if (rec.failureCount > 0)
  problems.push(`${rec.failureCount} calls failed; first: ${JSON.stringify(rec.failures.slice(0, 3))}`);
if (!serverAlive) problems.push('the server no longer answers /healthz');

const byId = new Map<string, number>();
const byCustom = new Map<string, number>();
for (const d of listed) {
  byId.set(d.id, (byId.get(d.id) ?? 0) + 1);
  if (d.custom_id) byCustom.set(d.custom_id, (byCustom.get(d.custom_id) ?? 0) + 1);
}
const statusOf = new Map(listed.map((d) => [d.id, d.status]));
let lostDocs = 0;
let duplicated = 0;
const lostExamples: string[] = [];
for (const d of rec.docs) {
  if (byId.get(d.id) !== 1) {
    lostDocs++;
    if (lostExamples.length < 5) lostExamples.push(`${d.id} listed ${byId.get(d.id) ?? 0} times`);
  }
  if (d.customId && byCustom.get(d.customId) !== 1) {
    duplicated++;
    if (lostExamples.length < 5)
      lostExamples.push(`custom_id ${d.customId} listed ${byCustom.get(d.customId) ?? 0} times`);
  }
}
if (lostDocs > 0)
  problems.push(`${lostDocs} acknowledged documents not present exactly once by id (${lostExamples.join('; ')})`);
if (duplicated > 0)
  problems.push(`${duplicated} acknowledged custom_ids not present exactly once (${lostExamples.join('; ')})`);
const stillQueued = [...ackedIds].filter((id) => statusOf.get(id) === 'queued').length;
const failedLearning = [...ackedIds].filter((id) => statusOf.get(id) === 'failed').length;
if (stillQueued > 0)
  problems.push(`${stillQueued} acknowledged documents still queued after ${learnWait.toFixed(0)} s`);
if (failedLearning > 0) problems.push(`${failedLearning} acknowledged documents failed to learn`);

let badReuses = 0;
for (const r of rec.reuses) if (r.got.status !== 'exists' || r.got.id !== r.expectedId) badReuses++;
if (badReuses > 0)
  problems.push(
    `${badReuses} of ${rec.reuses.length} re-adds of an acknowledged custom_id did not answer \`exists\` with the first id`,
  );
let badPairs = 0;
let incompletePairs = 0;
const badPairExamples: string[] = [];
for (const p of rec.pairs) {
  const [a, b] = p.answers;
  if (!a || !b) {
    incompletePairs++;
    continue;
  }
  const queued = [a, b].filter((x) => x.status === 'queued').length;
  if (queued !== 1 || a.id !== b.id) {
    badPairs++;
    if (badPairExamples.length < 3) badPairExamples.push(JSON.stringify(p));
  }
}
if (badPairs > 0)
  problems.push(
    `${badPairs} of ${rec.pairs.length} concurrent duplicate pairs did not get exactly one \`queued\` with one id (${badPairExamples.join('; ')})`,
  );
if (incompletePairs > 0) problems.push(`${incompletePairs} concurrent duplicate pairs lack an answer (a call failed)`);

// Facts: no read-back route lists every fact, so they are read from the store once the server is down.
const store = openSqliteStore(openDatabase(dir, Date.now()));
const lostFacts: typeof rec.facts = [];
for (const f of rec.facts) if ((await store.facts.get(seed.accountId, f.id)) === null) lostFacts.push(f);
await store.close();
if (lostFacts.length > 0)
  problems.push(
    `${lostFacts.length} acknowledged facts missing (${lostFacts
      .slice(0, 3)
      .map((f) => f.id)
      .join(', ')})`,
  );

const bytes = readdirSync(dir).reduce((n, f) => n + statSync(join(dir, f)).size, 0);
if (!values.keep) rmSync(dir, { recursive: true, force: true });

// The summary.
const seconds = (rec.endedAt - rec.startedAt) / 1000;
const ms = (x: number) => x.toFixed(1).padStart(7);
const rows: [string, number[]][] = Object.entries(rec.latencies).sort(([a], [b]) => a.localeCompare(b));
const byOp = new Map<string, number[]>();
for (const [k, v] of rows) {
  const op = k.split('/')[0]!;
  byOp.set(op, [...(byOp.get(op) ?? []), ...v]);
}
const total = rows.reduce((n, [, v]) => n + v.length, 0);
const writes = (byOp.get('add_document')?.length ?? 0) + (byOp.get('add_memory')?.length ?? 0);
console.log(
  `\n== soak: ${passages} passages seeded (${seed.reused ? 'before this run' : `${seed.seconds.toFixed(1)} s`}), ${seconds.toFixed(0)} s, 16 clients (8 TS library, 8 MCP), embedder ${values.embedder}`,
);
console.log(
  `throughput: ${(total / seconds).toFixed(0)} calls/s acknowledged (${total} calls; writes ${((writes / total) * 100).toFixed(0)} %)`,
);
console.log(
  `${'operation'.padEnd(24)} ${'calls'.padStart(7)} ${'/s'.padStart(6)} ${'p50 ms'.padStart(7)} ${'p95 ms'.padStart(7)} ${'p99 ms'.padStart(7)}`,
);
const line = (name: string, v: number[]) => {
  const s = [...v].sort((a, b) => a - b);
  console.log(
    `${name.padEnd(24)} ${String(s.length).padStart(7)} ${(s.length / seconds).toFixed(1).padStart(6)} ${ms(percentile(s, 50))} ${ms(percentile(s, 95))} ${ms(percentile(s, 99))}`,
  );
};
for (const [op, v] of [...byOp].sort(([a], [b]) => a.localeCompare(b))) line(op, v);
for (const [k, v] of rows) line(`  ${k}`, v);
const queuedDocs = rec.docs.filter((d) => d.status === 'queued').length;
console.log(
  `acknowledged: ${rec.docs.length} document adds (${queuedDocs} queued, ${rec.docs.length - queuedDocs} exists), ${rec.facts.length} facts; ${rec.reuses.length} re-adds of a known custom_id, ${rec.pairs.length} concurrent duplicate pairs`,
);
console.log(
  `HTTP statuses seen by the clients: ${JSON.stringify(rec.httpStatuses)}; failed calls: ${rec.failureCount}`,
);
if (refinedBefore !== null) console.log(`refined while the clients ran: ${refinedAfter! - refinedBefore} passages`);
console.log(
  `learning caught up ${learnWait.toFixed(1)} s after the clients stopped; server peak memory (VmHWM) ${peak.toFixed(0)} MiB; store ${(bytes / 1024 / 1024).toFixed(0)} MiB`,
);
console.log(`wall time ${((performance.now() - wallStart) / 1000).toFixed(0)} s`);
if (problems.length === 0) {
  console.log('PASS: zero 5xx, zero lost acknowledged writes, exactly one `queued` per concurrent duplicate pair');
} else {
  for (const p of problems) console.log(`FAIL: ${p}`);
  process.exit(1);
}
