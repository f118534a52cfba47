/**
 * Revocation under load by hand: `bun bench/revocation.ts [trials] [loops]` (default 100 and 8),
 * against a spawned `engram serve`; test/e2e/reliability/revocation.test.ts runs the same trials
 * (20 by default) against the in-process server.
 * Each trial mints a key, runs concurrent request loops with it, and at a random moment the owner
 * revokes the key (DELETE /v1/exposures/{id}) or lowers it to read (PATCH /v1/api-keys/{id}).
 * Every request's send time and answer are recorded; once the owner's answer has arrived, no
 * request sent after that instant may succeed on the old grant.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { engramCli, serve } from './crash';

export type Change = 'revoke' | 'lower';

export interface Target {
  url: string;
  owner: string;
  container: string;
}

interface Sent {
  loop: number;
  kind: 'write' | 'read';
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
  /** For `lower`: reads sent after the change, and how many of them succeeded (they should). */
  readsAfter: number;
  readsAfterOk: number;
  requests: number;
}

async function send(url: string, method: string, path: string, token: string, body?: unknown): Promise<number> {
  const res = await fetch(`${url}${path}`, {
    method, headers: { Authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  await res.arrayBuffer();
  return res.status;
}

async function ownerCall(t: Target, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${t.url}${path}`, {
    method, headers: { Authorization: `Bearer ${t.owner}`, 'Content-Type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

export async function runTrial(t: Target, change: Change, loops: number, trial: number): Promise<TrialResult> {
  const minted = await ownerCall(t, 'POST', '/v1/api-keys', { name: `load ${trial}`, level: 'manage', containers: [t.container] });
  if (minted.status !== 201) throw new Error(`mint: ${minted.status} ${JSON.stringify(minted.body)}`);
  const { id, key } = minted.body as { id: string; key: string };
  const sent: Sent[] = [];
  let stopAt = Number.POSITIVE_INFINITY;
  let n = 0;
  const loop = async (i: number) => {
    // For `revoke` the loops mix writes and reads (every call must stop); for `lower` they write,
    // but for one loop in four that reads, which the lowered grant still allows.
    const kind: 'write' | 'read' = i % 4 === 3 ? 'read' : 'write';
    while (performance.now() < stopAt) {
      const sentAt = performance.now();
      const status =
        kind === 'write'
          ? await send(t.url, 'POST', '/v1/memories', key, { container: t.container, content: `trial ${trial} loop ${i} call ${n++}` })
          : await send(t.url, 'POST', '/v1/search', key, { q: 'trial', container: t.container, limit: 1 });
      sent.push({ loop: i, kind, sentAt, status });
    }
  };
  const running = Array.from({ length: loops }, (_, i) => loop(i));
  await Bun.sleep(20 + Math.random() * 130);
  const res = change === 'revoke' ? await ownerCall(t, 'DELETE', `/v1/exposures/${id}`) : await ownerCall(t, 'PATCH', `/v1/api-keys/${id}`, { level: 'read' });
  const answeredAt = performance.now();
  stopAt = answeredAt + 60 + Math.random() * 60;
  await Promise.all(running);

  const ok = (s: number) => s >= 200 && s < 300;
  const after = sent.filter((s) => s.sentAt > answeredAt);
  const violations = after.filter((s) => ok(s.status) && (change === 'revoke' || s.kind === 'write'));
  const readsAfter = change === 'lower' ? after.filter((s) => s.kind === 'read') : [];
  return {
    change, changeStatus: res.status, answeredAt, sentAfter: after.length, violations,
    okBefore: sent.filter((s) => s.sentAt < answeredAt && ok(s.status)).length,
    readsAfter: readsAfter.length, readsAfterOk: readsAfter.filter((s) => ok(s.status)).length, requests: sent.length,
  };
}

if (import.meta.main) {
  const trials = Number(process.argv[2] ?? 100);
  const loops = Number(process.argv[3] ?? 8);
  const home = mkdtempSync(join(tmpdir(), 'engram-revocation-'));
  const data = join(home, 'data');
  let failed = false;
  try {
    engramCli(data, ['owner', 'create', '--email', 'load@example.org'], 'correct horse battery staple\n');
    const container = engramCli(data, ['containers', 'create', 'Load']);
    const owner = engramCli(data, ['owner', 'token']);
    const server = await serve(data);
    try {
      for (const change of ['revoke', 'lower'] as Change[]) {
        const results: TrialResult[] = [];
        for (let i = 0; i < trials; i++) results.push(await runTrial({ url: server.url, owner, container }, change, loops, i));
        const sum = (f: (r: TrialResult) => number) => results.reduce((a, r) => a + f(r), 0);
        const violations = sum((r) => r.violations.length);
        const badReads = sum((r) => r.readsAfter - r.readsAfterOk);
        console.log(JSON.stringify({ change, trials, loops, requests: sum((r) => r.requests), okBefore: sum((r) => r.okBefore), sentAfter: sum((r) => r.sentAfter), violations, readsAfter: sum((r) => r.readsAfter), readsAfterRefused: badReads, changeNot200: results.filter((r) => r.changeStatus !== 200).length }));
        if (violations > 0 || badReads > 0 || results.some((r) => r.changeStatus !== 200)) failed = true;
      }
    } finally {
      server.proc.kill('SIGTERM');
      await server.proc.exited;
    }
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
  process.exit(failed ? 1 : 0);
}
