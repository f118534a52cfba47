/**
 * The search indexes follow what another process changes in the store: `engram import` run beside
 * the real `engram serve` replaces a changed note (its old passages deleted by the command's own
 * process), the running server's indexes drop the old passages at once, and a clean stop then saves
 * them, so the next start reads them back instead of rebuilding, and finds the new text only.
 */
import { afterAll, describe, expect, it } from 'bun:test';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { engram, type Served, setUp, spawnServer } from '../../../bench/lib/engram-process';
import { sweepThenRemove } from '../../helpers/secret-sweep';

const work = mkdtempSync(join(tmpdir(), 'engram-indexes-follow-'));
const dataDir = join(work, 'data');
const vault = join(work, 'Vault');
const logFile = join(work, 'serve.log');
let served: Served | null = null;
let key = '';

afterAll(async () => {
  served?.proc.kill('SIGKILL');
  await served?.proc.exited;
  sweepThenRemove({ harness: 'bun:indexes-follow-import', stores: [dataDir], logs: [logFile] }, work);
});

async function start(): Promise<void> {
  writeFileSync(logFile, '');
  served = await spawnServer(dataDir, { ENGRAM_EMBEDDER: 'builtin', ENGRAM_LOG_LEVEL: 'info' }, logFile);
}
const said = (msg: string) =>
  readFileSync(logFile, 'utf8')
    .split('\n')
    .filter((l) => l.includes(`"msg":"${msg}"`));

async function call(path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${served!.url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  expect(res.ok).toBe(true);
  return res.json();
}
/** The learning counters of /healthz, without the pace (which moves with time). */
async function health(): Promise<{ queue: number; passages: number; refined: number }> {
  const { queue, passages, refined } = (await call('/healthz')).learning;
  return { queue, passages, refined };
}

/** Waits until the queue is empty and the strong index holds as many passages as the store, or more. */
async function refinedAll(): Promise<void> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const h = await health();
    if (h.queue === 0 && h.refined >= h.passages) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for refinement: ${JSON.stringify(h)}`);
    await Bun.sleep(50);
  }
}

const OLD = 'The greenhouse heater runs on paraffin and needs refilling every Sunday in winter.';
const NEW = 'The greenhouse heater now runs on electricity with a thermostat set to seven degrees.';
const note = (body: string) => `# Greenhouse\n\n${body}\n`;

describe('the indexes follow an import run beside the server', () => {
  it('drop a replaced note at once, are saved at a clean stop, and are read back at the next start', async () => {
    mkdirSync(vault, { recursive: true });
    writeFileSync(join(vault, 'Greenhouse.md'), note(OLD));
    writeFileSync(join(vault, 'Seeds.md'), '# Seeds\n\nTomato seeds are sown indoors in March.\n');
    ({ key } = setUp(dataDir));
    await start();
    engram(dataDir, ['import', vault, '--from', 'markdown']);
    await refinedAll();
    const before = await health();
    expect(before.refined).toBe(before.passages);

    writeFileSync(join(vault, 'Greenhouse.md'), note(NEW));
    expect(engram(dataDir, ['import', vault, '--from', 'markdown'])).toBe('');
    await refinedAll();
    // The old note's passages left the strong index (refined counts what it holds) as they left the store.
    const deadline = Date.now() + 5_000;
    while ((await health()).refined !== before.passages && Date.now() < deadline) await Bun.sleep(50);
    expect(await health()).toEqual(before);

    served!.proc.kill('SIGTERM');
    expect(await served!.proc.exited).toBe(0);
    expect(said('search indexes saved')).toHaveLength(1);
    await start();
    expect(said('search indexes read as last saved')).toHaveLength(1);
    expect(await health()).toEqual(before);
    const found = (await call('/v1/search', { q: 'greenhouse heater', container: '*', limit: 5 })).results.map(
      (r: { content: string }) => r.content,
    );
    expect(found.some((c: string) => c.includes('thermostat'))).toBe(true);
    expect(found.some((c: string) => c.includes('paraffin'))).toBe(false);
  }, 300_000);
});
