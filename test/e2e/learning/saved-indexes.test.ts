/**
 * The search indexes across stops and starts of the real `engram serve`: saved while the server
 * rests, a server killed then reads them back at its next start, whole before its first answer; a
 * clean stop saves them too; a server killed after a change they have not been saved with rebuilds
 * them; and a store replaced while the server is stopped (`engram restore`) is never searched
 * through the indexes saved for the store it replaced. And `engram import` run beside the server,
 * replacing a changed note from its own process: the indexes drop the old passages at once and are
 * saved at the next stop.
 */
import { afterAll, describe, expect, it } from 'bun:test';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
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
  sweepThenRemove(
    { harness: 'bun:saved-indexes', stores: [dataDir, backup], logs: [logFile] },
    dataDir,
    logFile,
    backup,
    `${dataDir}.vault`,
  );
});

/** Starts the server; its indexes are saved once unchanged for `saveSeconds` (0: only at a clean stop). */
async function start(saveSeconds = 1): Promise<void> {
  writeFileSync(logFile, '');
  served = await spawnServer(
    dataDir,
    { ENGRAM_EMBEDDER: 'builtin', ENGRAM_LOG_LEVEL: 'info', ENGRAM_INDEX_SAVE_SECONDS: String(saveSeconds) },
    logFile,
  );
}
/** Lines of this start's log with the message. */
const said = (msg: string) =>
  readFileSync(logFile, 'utf8')
    .split('\n')
    .filter((l) => l.includes(`"msg":"${msg}"`)).length;
const READ_AS_SAVED = 'search indexes read as last saved';
const SAVED = 'search indexes saved';

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
const search = async (q: string) =>
  ((await call('/v1/search', { q, limit: 3 })).results as { content: string }[]).map((r) => r.content);

async function refinedAll(): Promise<void> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const h = await learning();
    // At least as many: an index that kept a passage the store no longer holds counts it too.
    if (h.queue === 0 && h.refined >= h.passages) return;
    if (Date.now() > deadline) throw new Error('timed out waiting for refinement');
    await Bun.sleep(50);
  }
}

async function kill(): Promise<void> {
  served!.proc.kill('SIGKILL');
  await served!.proc.exited;
  served = null;
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
const CAMERA = 'Our grandfather gave me his old film camera, and I develop the rolls myself in the bathroom.';
const PHOTOS = 'Who handed down a device for taking pictures?';
const STATE = join(dataDir, 'vector-index', 'strong.state');

describe('search indexes saved while the server rests and at a clean stop', () => {
  it('are read back after a kill or a stop, rebuilt after a kill that came before a save, and never used for a store restored meanwhile', async () => {
    ({ key } = setUp(dataDir));
    await start();
    for (const content of [
      VIOLIN,
      'The garden needs weeding before the rain comes.',
      'We booked a cabin in the mountains for the winter holiday.',
    ]) {
      await call('/v1/documents', { content });
    }
    await refinedAll();
    const before = await search(INSTRUMENT);
    expect(before[0]).toBe(VIOLIN);
    engram(dataDir, ['backup', backup]);
    await call('/v1/documents', { content: BOATS });
    await refinedAll();
    const { passages } = await learning();
    const savedAfter = Date.now();
    const savesBefore = said(SAVED);

    // Saved once the indexes rest (a second here; saves come at least ten of those apart), then killed.
    // Saved means said so: each tier's state is written, then the token recorded in the store.
    while (!existsSync(STATE) || statSync(STATE).mtimeMs < savedAfter || said(SAVED) === savesBefore) {
      expect(Date.now() - savedAfter).toBeLessThan(30_000);
      await Bun.sleep(100);
    }
    await kill();
    await start();
    expect(said(READ_AS_SAVED)).toBe(1);
    // Whole from the first answer: every passage refined and searchable at once.
    expect(await learning()).toMatchObject({ queue: 0, passages, refined: passages });
    expect(await search(INSTRUMENT)).toEqual(before);
    expect((await search(HOBBY))[0]).toBe(BOATS);

    // Idle a while first: with no timer or connection left to keep the process alive, the stop
    // must keep it alive itself until it is done (and said "stopped").
    await Bun.sleep(3000);
    await stop();
    expect(said('stopped')).toBe(1);
    expect(existsSync(STATE)).toBe(true);

    // Saved at a clean stop only: a document learned since, then a kill, and the next start rebuilds with it.
    await start(0);
    expect(said(READ_AS_SAVED)).toBe(1);
    await call('/v1/documents', { content: CAMERA });
    await refinedAll();
    expect(existsSync(STATE)).toBe(false);
    await kill();
    await start();
    expect(said(READ_AS_SAVED)).toBe(0);
    expect(await learning()).toMatchObject({ queue: 0, passages: passages + 1, refined: passages + 1 });
    expect((await search(PHOTOS))[0]).toBe(CAMERA);
    expect(await search(INSTRUMENT)).toEqual(before);

    // The store goes back to the backup, made before BOATS, while the server is stopped.
    await stop();
    expect(said('stopped')).toBe(1);
    expect(existsSync(STATE)).toBe(true);
    engram(dataDir, ['restore', backup]);
    await start();
    expect(await search(HOBBY)).not.toContain(BOATS);
    expect(said(READ_AS_SAVED)).toBe(0);
    expect(await learning()).toMatchObject({ queue: 0, passages: passages - 1, refined: passages - 1 });
  }, 300_000);

  it('follow an import run beside the server: a replaced note leaves them at once, and they are saved at the stop', async () => {
    // `engram import` deletes the old note's passages from its own process; the server hears of it from the store.
    // Saved at a clean stop only: the stop's save is the one this test sees.
    await stop();
    await start(0);
    const vault = join(`${dataDir}.vault`, 'Vault');
    mkdirSync(vault, { recursive: true });
    const note = (body: string) => `# Greenhouse\n\n${body}\n`;
    writeFileSync(join(vault, 'Greenhouse.md'), note('The greenhouse heater runs on paraffin every Sunday in winter.'));
    writeFileSync(join(vault, 'Seeds.md'), '# Seeds\n\nTomato seeds are sown indoors in March.\n');
    engram(dataDir, ['import', vault, '--from', 'markdown']);
    await refinedAll();
    const counts = async () => {
      const { queue, passages, refined } = await learning();
      return { queue, passages, refined };
    };
    const before = await counts();
    expect(before.refined).toBe(before.passages);
    writeFileSync(
      join(vault, 'Greenhouse.md'),
      note('The greenhouse heater now has a thermostat set to seven degrees.'),
    );
    engram(dataDir, ['import', vault, '--from', 'markdown']);
    await refinedAll();
    // The strong index (which `refined` counts) holds what the store holds once the deletion is read.
    const deadline = Date.now() + 5_000;
    while ((await counts()).refined !== before.passages && Date.now() < deadline) await Bun.sleep(50);
    expect(await counts()).toEqual(before);

    await stop();
    expect(said(SAVED)).toBe(1);
    await start();
    expect(said(READ_AS_SAVED)).toBe(1);
    expect(await counts()).toEqual(before);
    const found = (
      (await call('/v1/search', { q: 'greenhouse heater', container: '*', limit: 5 })).results as {
        content: string;
      }[]
    ).map((r) => r.content);
    expect(found.some((c) => c.includes('thermostat'))).toBe(true);
    expect(found.some((c) => c.includes('paraffin'))).toBe(false);
  }, 300_000);
});
