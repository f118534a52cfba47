/**
 * The strong model's query thread dies before its model loads (injected from outside the product
 * by test/e2e/fixtures/query-thread-fault.ts). The learning thread refines with that thread's
 * session, so it never gets one: `engram serve` must keep learning and answering searches from
 * keyword search and the fast tier, say why refinement does not happen, and still stop cleanly.
 */
import { afterAll, expect, it } from 'bun:test';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Served, setUp, spawnServer } from '../../../bench/lib/engram-process';
import { sweepThenRemove } from '../../helpers/secret-sweep';

const FAULT = join(import.meta.dir, '../fixtures/query-thread-fault.ts');
const home = mkdtempSync(join(tmpdir(), 'engram-query-fault-'));
const data = join(home, 'data');
const logFile = join(home, 'server.log');
let server: Served | null = null;

afterAll(async () => {
  server?.proc.kill('SIGKILL');
  await server?.proc.exited;
  sweepThenRemove({ harness: 'bun:query-thread-fault', stores: [data], logs: [logFile] }, home);
});

it('a query thread that dies before its model loads leaves learning and search working, refinement waiting, and a clean stop', async () => {
  const { key } = setUp(data);
  server = await spawnServer(
    data,
    { BUN_OPTIONS: `--preload ${FAULT}`, ENGRAM_EMBEDDER: 'builtin', ENGRAM_LOG_LEVEL: 'info' },
    logFile,
  );
  const headers = { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' };
  const ids: string[] = [];
  for (const content of [
    'My sister plays the violin every evening.',
    'The dentist appointment is on Tuesday.',
    'We booked flights to Lisbon for May.',
  ]) {
    const res = await fetch(`${server.url}/v1/documents`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ content }),
    });
    expect(res.status).toBe(202);
    ids.push(((await res.json()) as { id: string }).id);
  }
  const t0 = performance.now();
  for (const id of ids) {
    for (;;) {
      expect(performance.now() - t0).toBeLessThan(20_000);
      const doc = (await (await fetch(`${server.url}/v1/documents/${id}`, { headers })).json()) as { learned: boolean };
      if (doc.learned) break;
      await Bun.sleep(50);
    }
  }
  const search = await fetch(`${server.url}/v1/search`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ q: 'which instrument does my sister play' }),
  });
  expect(search.status).toBe(200);
  expect(((await search.json()) as { results: { content: string }[] }).results[0]!.content).toBe(
    'My sister plays the violin every evening.',
  );

  // Refinement tried, was told why there is no model, and paused; nothing was refined.
  const log = () =>
    readFileSync(logFile, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  for (;;) {
    expect(performance.now() - t0).toBeLessThan(20_000);
    if (log().some((l) => l.msg === 'learning paused after a failure')) break;
    await Bun.sleep(50);
  }
  const paused = log().find((l) => l.msg === 'learning paused after a failure')!;
  expect(paused.error).toContain('the strong model is not loaded');
  expect(paused.error).toContain('fault injected into the query thread by the test');
  const health = (await (await fetch(`${server.url}/healthz`, { headers })).json()) as {
    learning: { refined: number; passages: number };
  };
  expect(health.learning).toMatchObject({ refined: 0, passages: 3 });

  server.proc.kill('SIGTERM');
  expect(await server.proc.exited).toBe(0);
  server = null;
}, 60_000);
