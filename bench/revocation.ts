/**
 * Revocation under load by hand: `bun bench/revocation.ts [trials] [loops]` (default 100 and 8),
 * against a spawned `engram serve`; test/e2e/reliability/revocation.test.ts runs the same trials
 * (20 by default) against the in-process server.
 * Each trial mints a key, runs concurrent request loops with it, and at a random moment the owner
 * changes it: revokes it (DELETE /v1/exposures/{id}), lowers it to read or unticks the profile
 * (PATCH /v1/api-keys/{id}), or takes a container out of its reach (PATCH /v1/exposures/{id}/views).
 * Every request's send time and answer are recorded; once the owner's answer has arrived, no
 * request sent after that instant may succeed on the old grant, and what the new grant still
 * allows keeps working.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sweepThenRemove } from '../test/helpers/secret-sweep';
import { engram, spawnServer } from './lib/engram-process';

export type Change = 'revoke' | 'lower' | 'narrow' | 'unprofile';
export const CHANGES: Change[] = ['revoke', 'lower', 'narrow', 'unprofile'];

export interface Target {
  url: string;
  owner: string;
  /** Two containers of the owner: the second is the one a narrowed key loses. */
  containers: [string, string];
}

/** A loop's call: what the old grant allowed and the new one does not (`lost`), or what both allow (`kept`). */
type Kind = 'lost' | 'kept';

interface Sent {
  loop: number;
  kind: Kind;
  sentAt: number;
  status: number;
}

export interface TrialResult {
  change: Change;
  changeStatus: number;
  /** When the owner's answer to the change arrived. */
  answeredAt: number;
  /** Requests whose send time was after that instant. */
  sentAfter: number;
  /** Those of them that succeeded on the old grant: must be zero. */
  violations: Sent[];
  /** Requests that succeeded before the change: the loops really were working. */
  okBefore: number;
  /** Calls the new grant still allows, sent after the change, and how many of them succeeded (all should). */
  keptAfter: number;
  keptAfterOk: number;
  requests: number;
}

type Call = (key: string, n: number) => Promise<number>;

interface ChangeSpec {
  /** The key's grant when minted. */
  grant: Record<string, unknown>;
  /** The owner's change, given the key's id. */
  apply(id: string): Promise<number>;
  /** What the change takes away; loop i of a revoke calls `lost(i)` (reads and writes alike). */
  lost(loop: number): Call;
  /** What the new grant still allows (none for a revoke); one loop in four calls it. */
  kept: Call | null;
}

async function send(url: string, method: string, path: string, token: string, body?: unknown): Promise<number> {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: {
      Authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  await res.arrayBuffer();
  return res.status;
}

async function ownerCall(
  t: Target,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: any }> {
  const res = await fetch(`${t.url}${path}`, {
    method,
    headers: { Authorization: `Bearer ${t.owner}`, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

/** Each change the owner can make to a key in use, with a call it takes away and one it leaves. */
function changeSpec(t: Target, change: Change, trial: number): ChangeSpec {
  const [kept, lost] = t.containers;
  const write =
    (container: string): Call =>
    (key, n) =>
      send(t.url, 'POST', '/v1/memories', key, { container, content: `trial ${trial} call ${n}` });
  const search =
    (container: string): Call =>
    (key) =>
      send(t.url, 'POST', '/v1/search', key, { q: 'trial', container, limit: 1 });
  const profile: Call = (key) => send(t.url, 'GET', '/v1/profile', key);
  const status = async (p: Promise<{ status: number }>) => (await p).status;
  switch (change) {
    case 'revoke':
      return {
        grant: { level: 'manage', containers: [kept] },
        apply: (id) => status(ownerCall(t, 'DELETE', `/v1/exposures/${id}`)),
        lost: (i) => (i % 4 === 3 ? search(kept) : write(kept)),
        kept: null,
      };
    case 'lower':
      return {
        grant: { level: 'manage', containers: [kept] },
        apply: (id) => status(ownerCall(t, 'PATCH', `/v1/api-keys/${id}`, { level: 'read' })),
        lost: () => write(kept),
        kept: search(kept),
      };
    case 'narrow':
      return {
        grant: { level: 'suggest', containers: [kept, lost] },
        apply: (id) => status(ownerCall(t, 'PATCH', `/v1/exposures/${id}/views`, { containers: [kept] })),
        lost: (i) => (i % 2 ? search(lost) : write(lost)),
        kept: search(kept),
      };
    case 'unprofile':
      return {
        grant: { level: 'read', containers: [kept], profile: true },
        apply: (id) => status(ownerCall(t, 'PATCH', `/v1/api-keys/${id}`, { profile: false })),
        lost: () => profile,
        kept: search(kept),
      };
  }
}

export async function runTrial(t: Target, change: Change, loops: number, trial: number): Promise<TrialResult> {
  const spec = changeSpec(t, change, trial);
  const minted = await ownerCall(t, 'POST', '/v1/api-keys', { name: `load ${trial}`, ...spec.grant });
  if (minted.status !== 201) throw new Error(`mint: ${minted.status} ${JSON.stringify(minted.body)}`);
  const { id, key } = minted.body as { id: string; key: string };
  const sent: Sent[] = [];
  let stopAt = Number.POSITIVE_INFINITY;
  let answeredAt = Number.POSITIVE_INFINITY;
  let n = 0;
  const loop = async (i: number) => {
    const kind: Kind = spec.kept && i % 4 === 3 ? 'kept' : 'lost';
    const call = kind === 'kept' ? spec.kept! : spec.lost(i);
    // Until the window after the change has passed, and at least once after the answer: on a slow
    // host a request in flight at the answer can outlast the window.
    for (let sentAt = 0; performance.now() < stopAt || sentAt <= answeredAt; ) {
      sentAt = performance.now();
      sent.push({ loop: i, kind, sentAt, status: await call(key, n++) });
    }
  };
  const running = Array.from({ length: loops }, (_, i) => loop(i));
  await Bun.sleep(20 + Math.random() * 130);
  const changeStatus = await spec.apply(id);
  answeredAt = performance.now();
  stopAt = answeredAt + 60 + Math.random() * 60;
  await Promise.all(running);

  const ok = (s: number) => s >= 200 && s < 300;
  const after = sent.filter((s) => s.sentAt > answeredAt);
  const keptAfter = after.filter((s) => s.kind === 'kept');
  return {
    change,
    changeStatus,
    answeredAt,
    sentAfter: after.length,
    violations: after.filter((s) => ok(s.status) && s.kind === 'lost'),
    okBefore: sent.filter((s) => s.sentAt < answeredAt && ok(s.status)).length,
    keptAfter: keptAfter.length,
    keptAfterOk: keptAfter.filter((s) => ok(s.status)).length,
    requests: sent.length,
  };
}

if (import.meta.main) {
  const trials = Number(process.argv[2] ?? 100);
  const loops = Number(process.argv[3] ?? 8);
  const home = mkdtempSync(join(tmpdir(), 'engram-revocation-'));
  const data = join(home, 'data');
  let failed = false;
  try {
    engram(data, ['owner', 'create', '--email', 'load@example.org'], 'correct horse battery staple\n');
    const containers: [string, string] = [
      engram(data, ['containers', 'create', 'Load']),
      engram(data, ['containers', 'create', 'Taken away']),
    ];
    const owner = engram(data, ['owner', 'token']);
    const server = await spawnServer(data, {}, join(home, 'serve.log'));
    try {
      for (const change of CHANGES) {
        const results: TrialResult[] = [];
        for (let i = 0; i < trials; i++)
          results.push(await runTrial({ url: server.url, owner, containers }, change, loops, i));
        const sum = (f: (r: TrialResult) => number) => results.reduce((a, r) => a + f(r), 0);
        const violations = sum((r) => r.violations.length);
        const keptRefused = sum((r) => r.keptAfter - r.keptAfterOk);
        console.log(
          JSON.stringify({
            change,
            trials,
            loops,
            requests: sum((r) => r.requests),
            okBefore: sum((r) => r.okBefore),
            sentAfter: sum((r) => r.sentAfter),
            violations,
            keptAfter: sum((r) => r.keptAfter),
            keptAfterRefused: keptRefused,
            changeNot200: results.filter((r) => r.changeStatus !== 200).length,
          }),
        );
        if (violations > 0 || keptRefused > 0 || results.some((r) => r.changeStatus !== 200)) failed = true;
      }
    } finally {
      server.proc.kill('SIGTERM');
      await server.proc.exited;
    }
  } finally {
    sweepThenRemove({ harness: 'bench:revocation', stores: [data], logs: [join(home, 'serve.log')] }, home);
  }
  process.exit(failed ? 1 : 0);
}
