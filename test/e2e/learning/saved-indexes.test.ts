/**
 * The search indexes across stops and starts of the real `engram serve`: a clean stop saves them and
 * the next start reads them back, whole before its first answer; a server killed instead rebuilds
 * them at its next start; and a store replaced while the server is stopped (`engram restore`) is
 * never searched through the indexes saved for the store it replaced.
 */
import { afterAll, describe, expect, it } from 'bun:test';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { engram, type Served, setUp, spawnServer } from '../../../bench/lib/engram-process';
import { sweepThenRemove } from '../../helpers/secret-sweep';

const dataDir = mkdtempSync(join(tmpdir(), 'engram-saved-indexes-'));
const logFile = `${dataDir}.serve.log`;
const backup = `${dataDir}.backup.db`;
let served: Served | null = null;
let key = '';

afterAll(async () => {
  served?.proc.kill('SIGKILL');
  await served?.proc.exited;
  sweepThenRemove({ harness: 'bun:saved-indexes', stores: [dataDir, backup], logs: [logFile] }, dataDir, logFile, backup);
});

async function start(): Promise<void> {
  writeFileSync(logFile, '');
  served = await spawnServer(dataDir, { ENGRAM_EMBEDDER: 'builtin', ENGRAM_LOG_LEVEL: 'info' }, logFile);
}
/** Lines of this start's log with the message. */
const said = (msg: string) => readFileSync(logFile, 'utf8').split('\n').filter((l) => l.includes(`"msg":"${msg}"`)).length;
const READ_AS_SAVED = 'search indexes read as saved at the last stop';

async function call(path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${served!.url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  expect(res.ok).toBe(true);
  return res.json();
}
const learning = async () => (await call('/healthz')).learning as { queue: number; passages: number; refined: number };
/** The contents of a search's results, best first. */
const search = async (q: string) => ((await call('/v1/search', { q, limit: 3 })).results as { content: string }[]).map((r) => r.content);

async function refinedAll(): Promise<void> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const h = await learning();
    if (h.queue === 0 && h.refined === h.passages) return;
    if (Date.now() > deadline) throw new Error('timed out waiting for refinement');
    await Bun.sleep(50);
  }
}

async function stop(): Promise<void> {
  served!.proc.kill('SIGTERM');
  expect(await served!.proc.exited).toBe(0);
  served = null;
}

const VIOLIN = 'My sister has been practising the violin every evening for her audition at the conservatory.';
const BOATS = 'My brother spends his weekends restoring an old wooden sailing boat in the harbour.';
/** Share no word with the passages they find (stemmed): only vectors find them. */
const INSTRUMENT = 'Which musical instrument is she learning?';
const HOBBY = 'What hobby does he have at sea?';

describe('search indexes saved at a clean stop', () => {
  it('are read back at the next start, rebuilt after a kill, and never used for a store restored meanwhile', async () => {
    ({ key } = setUp(dataDir));
    await start();
    for (const content of [VIOLIN, 'The garden needs weeding before the rain comes.', 'We booked a cabin in the mountains for the winter holiday.']) {
      await call('/v1/documents', { content });
    }
    await refinedAll();
    const before = await search(INSTRUMENT);
    expect(before[0]).toBe(VIOLIN);
    engram(dataDir, ['backup', backup]);
    await call('/v1/documents', { content: BOATS });
    await refinedAll();
    const { passages } = await learning();

    // Idle a while first: with no timer or connection left to keep the process alive, the stop
    // must keep it alive itself until it has saved the indexes (and said "stopped").
    await Bun.sleep(3000);
    await stop();
    expect(said('stopped')).toBe(1);
    expect(existsSync(join(dataDir, 'vector-index', 'strong.state'))).toBe(true);
    await start();
    expect(said(READ_AS_SAVED)).toBe(1);
    // Whole from the first answer: every passage refined and searchable at once.
    expect(await learning()).toEqual({ queue: 0, passages, refined: passages });
    expect(await search(INSTRUMENT)).toEqual(before);
    expect((await search(HOBBY))[0]).toBe(BOATS);

    // Killed: nothing was saved, the start used up the last copy, and the next start rebuilds.
    served!.proc.kill('SIGKILL');
    await served!.proc.exited;
    await start();
    expect(await search(INSTRUMENT)).toEqual(before);
    expect(said(READ_AS_SAVED)).toBe(0);
    expect(await learning()).toEqual({ queue: 0, passages, refined: passages });

    // The store goes back to the backup, made before BOATS, while the server is stopped.
    await stop();
    expect(said('stopped')).toBe(1);
    expect(existsSync(join(dataDir, 'vector-index', 'strong.state'))).toBe(true);
    engram(dataDir, ['restore', backup]);
    await start();
    expect(await search(HOBBY)).not.toContain(BOATS);
    expect(said(READ_AS_SAVED)).toBe(0);
    expect(await learning()).toEqual({ queue: 0, passages: passages - 1, refined: passages - 1 });
  }, 300_000);
});
