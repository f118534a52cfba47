/**
 * A large store's start while its inverted lists are filed (inverted-lists.ts): after an upgrade
 * from a release before the lists (its indexes saved in format 1), or on a start that built the
 * indexes from the store. `engram serve` of TREE (this one by default) on a kept store
 * (archive-scale.ts --keep DIR): start to first search, then searches one at a time until the log
 * says the lists are filed (p50/p95 of those, answered by the whole scan), how long the filing took
 * and the server's CPU meanwhile, then a stop (which saves the lists for the next start).
 *
 *   bun bench/lists-filing.ts --keep DIR [--tree TREE] [--limit-s 900]
 */
import { readFileSync, rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { percentile, query, seeded } from './lib/corpus';
import { searchOnce, spawnServer } from './lib/engram-process';

const { values } = parseArgs({
  options: { keep: { type: 'string' }, tree: { type: 'string' }, 'limit-s': { type: 'string', default: '900' } },
});
if (!values.keep) throw new Error('--keep DIR: a store archive-scale.ts kept');
const { key } = JSON.parse(readFileSync(join(values.keep, 'built.json'), 'utf8')) as { key: string };
const logFile = join(values.keep, 'lists-filing.log');
const cpuSeconds = (pid: number) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
};
const logged = (msg: string) =>
  readFileSync(logFile, 'utf8')
    .split('\n')
    .filter((l) => l.includes(`"msg":"${msg}"`))
    .map((l) => JSON.parse(l) as Record<string, unknown>);

rmSync(logFile, { force: true });
const spawned = performance.now();
const server = await spawnServer(
  join(values.keep, 'store'),
  { ENGRAM_EMBEDDER: 'builtin', ENGRAM_LOG_LEVEL: 'info' },
  logFile,
  [],
  values.tree,
);
const random = seeded(7);
await searchOnce(server.url, key, 'the first search');
const firstMs = performance.now() - spawned;
const read = logged('search indexes read as last saved').length > 0;
console.log(
  `start to first search ${firstMs.toFixed(0)} ms (${read ? 'indexes read as saved' : 'indexes built'}), load ${loadavg()[0]!.toFixed(1)}`,
);
const cpu0 = cpuSeconds(server.proc.pid);
const times: number[] = [];
const deadline = performance.now() + Number(values['limit-s']) * 1000;
while (!logged('search indexes filed in lists').length && performance.now() < deadline) {
  const t = performance.now();
  await searchOnce(server.url, key, query(random));
  times.push(performance.now() - t);
  await Bun.sleep(100);
}
const filed = logged('search indexes filed in lists')[0];
const cpu = cpuSeconds(server.proc.pid) - cpu0;
times.sort((a, b) => a - b);
console.log(
  filed
    ? `lists filed ${((performance.now() - spawned) / 1000).toFixed(1)} s after spawn (${JSON.stringify(filed)}), server CPU ${cpu.toFixed(1)} s meanwhile`
    : `lists not filed within ${values['limit-s']} s`,
);
console.log(
  `${times.length} searches meanwhile, one every 0.1 s: p50 ${percentile(times, 50).toFixed(1)} ms, p95 ${percentile(times, 95).toFixed(1)} ms, max ${times.at(-1)?.toFixed(1)} ms (load ${loadavg()[0]!.toFixed(1)})`,
);
const stopped = performance.now();
server.proc.kill('SIGTERM');
await server.proc.exited;
const saved = logged('search indexes saved').at(-1);
console.log(
  `stop ${((performance.now() - stopped) / 1000).toFixed(1)} s; ${saved ? `saved (${JSON.stringify(saved)})` : 'not saved'}`,
);
