/**
 * The learning worker thread dies (an uncaught error in the thread, injected from outside the
 * product by test/e2e/fixtures/learning-thread-fault.ts) while it is mid-job (a document's facts,
 * waiting on the model), twice in a row. `engram serve` must keep answering, log each death and
 * start the worker again after a pause that doubles; the job the dead workers held is done, once.
 */
import { Database } from 'bun:sqlite';
import { afterAll, afterEach, expect, it } from 'bun:test';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Served, setUp, spawnServer } from '../../../bench/lib/engram-process';
import { EXTRACT_SYSTEM } from '../../../src/learning/fact-extractor';
import { DB_FILE } from '../../../src/storage/sqlite/open';
import { type ChatRequest, startFakeModel } from '../../agent/fake-model';
import { sweepThenRemove } from '../../helpers/secret-sweep';

const FAULT = join(import.meta.dir, '../fixtures/learning-thread-fault.ts');

/** Each extraction waits, so the facts' job is mid-way when its worker dies; the check at start does not. */
const model = startFakeModel(async (req: ChatRequest) => {
  if (req.messages[0]!.content !== EXTRACT_SYSTEM) return { httpStatus: 400 };
  await Bun.sleep(1500);
  return { facts: [{ content: 'Herons nest in reeds.', passage: 1, standing: false }] };
});
afterAll(() => model.stop());

const home = mkdtempSync(join(tmpdir(), 'engram-supervision-'));
const data = join(home, 'data');
const logFile = join(home, 'server.log');
let server: Served | null = null;

afterEach(async () => {
  server?.proc.kill('SIGKILL');
  await server?.proc.exited;
  sweepThenRemove({ harness: 'bun:worker-supervision', stores: [data], logs: [logFile] }, home);
});

const logLines = () =>
  readFileSync(logFile, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

it('a learning worker that dies is logged and started again with a doubling pause; the server keeps answering and the job is done once', async () => {
  const { container, key } = setUp(data);
  server = await spawnServer(
    data,
    {
      BUN_OPTIONS: `--preload ${FAULT}`,
      FAULT_WORKER_DEATHS: '2',
      FAULT_AFTER_MS: '1000',
      ENGRAM_MODEL_URL: model.url,
      ENGRAM_MODEL: 'm',
      ENGRAM_MODEL_RETRIES: '0',
      ENGRAM_LOG_LEVEL: 'info',
    },
    logFile,
  );
  const headers = { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' };
  const added = await fetch(`${server.url}/v1/documents`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ container, content: 'Herons nest in the reeds by the lake every spring.' }),
  });
  expect(added.status).toBe(202);
  const doc = ((await added.json()) as { id: string }).id;

  // The server answers throughout, until the document's facts are learned by the third worker.
  let answered = 0;
  let learned = false;
  const t0 = performance.now();
  while (!learned) {
    expect(performance.now() - t0).toBeLessThan(30_000);
    expect(server.proc.exitCode).toBeNull();
    const search = await fetch(`${server.url}/v1/search`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ q: 'heron', container }),
    });
    expect(search.status).toBe(200);
    answered++;
    const profile = await fetch(`${server.url}/v1/profile`, { headers });
    learned = ((await profile.json()) as { dynamic: unknown[] }).dynamic.length > 0;
    await Bun.sleep(100);
  }
  const learnedMs = performance.now() - t0;

  const log = logLines();
  const deaths = log.filter((l) => l.msg === 'the learning worker died; it starts again after a pause');
  expect(deaths.map((d) => [d.deaths_in_a_row, d.restart_in_ms])).toEqual([
    [1, 1000],
    [2, 2000],
  ]);
  for (const d of deaths) expect(d.error).toContain('fault injected into the learning worker by the test');
  expect(log.filter((l) => l.msg === 'the learning worker started again')).toHaveLength(2);
  // Each restarted worker found the dead one's job still claimed and queued it again.
  expect(log.filter((l) => l.msg === 'learning resumes the jobs of the worker that died').map((l) => l.jobs)).toEqual([
    1, 1,
  ]);
  // Death to next start: the pause, then the worker's own start-up.
  const at = (l: Record<string, unknown>) => Date.parse(l.time as string);
  const started = log.filter((l) => l.msg === 'the learning worker started again');
  const gaps = deaths.map((d, i) => at(started[i]!) - at(d));
  expect(gaps[0]).toBeGreaterThanOrEqual(1000);
  expect(gaps[1]).toBeGreaterThanOrEqual(2000);

  const db = new Database(join(data, DB_FILE), { readonly: true });
  try {
    const state = db
      .query<{ status: string; passages: number; facts: number; learning: number; extraction: number }, [string]>(`
      SELECT d.status, (SELECT count(*) FROM passages WHERE document_id = d.id) AS passages,
             (SELECT count(*) FROM memories WHERE source_document_id = d.id) AS facts,
             (SELECT attempts FROM jobs WHERE document_id = d.id AND kind = 'learn_document') AS learning,
             (SELECT attempts FROM jobs WHERE document_id = d.id AND kind = 'extract_facts') AS extraction
        FROM documents d WHERE d.id = ?`)
      .get(doc);
    // Searchable at once, by the first worker; its facts by the third.
    expect(state).toEqual({ status: 'learned', passages: 1, facts: 1, learning: 1, extraction: 3 });
  } finally {
    db.close();
  }

  // The supervised worker still stops with the server.
  server.proc.kill('SIGTERM');
  expect(await server.proc.exited).toBe(0);
  server = null;
  console.log(
    `worker supervision: 2 deaths, restarted after ${gaps.map((g) => `${g} ms`).join(' and ')}; ${answered} searches all answered meanwhile; the facts learned ${learnedMs.toFixed(0)} ms after the document was added`,
  );
}, 60_000);
