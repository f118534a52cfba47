/**
 * Makes test/fixtures/release-0.1/: a small store written by a released Engram, for upgrade tests
 * (the stemmed keyword index migration, issue 17; the upgrade test of issue 14). It drives the
 * code of the checkout it runs in as a user would (the CLI, then `engram serve` over REST), so run
 * it once from a worktree of the release, writing into this checkout:
 *
 *   git worktree add --detach /tmp/engram-head <release commit>
 *   ln -s "$PWD/node_modules" /tmp/engram-head/node_modules
 *   cp scripts/make-release-fixture.ts /tmp/engram-head/scripts/
 *   (cd /tmp/engram-head && node_modules/.bin/bun scripts/make-release-fixture.ts "$PWD/test/fixtures/release-0.1")
 *
 * The credentials it mints are test-only; they are written beside the store in credentials.json.
 */
import { Database } from 'bun:sqlite';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { engram, spawnServer } from '../bench/lib/engram-process';

const out = resolve(process.argv[2] ?? 'test/fixtures/release-0.1');
const EMAIL = 'fixture-owner@example.org';
const PASSWORD = 'fixture password, test only';

/**
 * One document a line pair: its container and its text. Words whose stems matter come in several
 * forms across documents (running / runs / ran, cities / city, cooking / cooked, studies / studied)
 * so that a stemmed index finds what a plain one cannot.
 */
const DOCUMENTS: Array<[container: 'Personal' | 'Work', title: string | null, text: string]> = [
  ['Personal', 'Morning routine', 'I went running along the Tamsin river before breakfast; the fog lifted by seven.'],
  ['Personal', null, 'Maya runs the neighbourhood book swap every second Saturday at the Larkspur cafe.'],
  ['Personal', null, 'We ran the Harwick half marathon in October and finished in just under two hours.'],
  ['Personal', 'Travel wishes', 'Cities I want to visit next year: Lisbon, Porto and Valparaíso, ideally by train.'],
  ['Personal', null, 'The city library on Quenby Street stays open until nine on Thursdays.'],
  ['Personal', null, 'Grandmother cooked saffron rice with barberries for every family birthday.'],
  ['Personal', 'Hobbies', 'Cooking classes at the Ostrava community kitchen start again in January.'],
  ['Personal', null, 'My sister studies marine biology and keeps a tank of nudibranchs in her flat.'],
  ['Personal', null, 'Allergic to penicillin since childhood; the reaction was a rash and swelling.'],
  ['Personal', null, 'The dentist, Dr. Okonkwo, wants a check-up every six months, next one in March.'],
  ['Personal', null, 'Bought a secondhand cello from a luthier in Ghent; it needs new strings.'],
  ['Personal', null, 'Our cat Pimento hides under the radiator whenever the doorbell rings.'],
  ['Personal', null, 'Favourite tea is a smoky lapsang souchong, brewed weak, no milk.'],
  ['Personal', null, 'Planted quinces and medlars in the back garden; the medlars fruited first.'],
  ['Personal', null, 'Walking the dog through Fenwick woods takes about forty minutes at a slow pace.'],
  ['Personal', null, 'Learning Portuguese with a tutor called Inês on Tuesday evenings.'],
  ['Personal', null, 'The bicycle needs a new chain; the shop on Maple Row quoted thirty euros.'],
  ['Personal', null, 'Booked a cabin near Lake Saimaa for the midsummer weekend with old friends.'],
  ['Personal', null, 'Swimming lengths at the Corbel lido before work keeps my back from aching.'],
  ['Personal', null, 'Started a sourdough starter named Gerald; it doubles in about six hours.'],
  ['Work', 'Standup', 'The payments team runs its deploys on Wednesdays after the freeze window closes.'],
  ['Work', null, 'Running the migration against the staging replica took eleven minutes last time.'],
  ['Work', null, 'The quarterly review with Henrike is moved to the fourteenth, room Aldgate.'],
  ['Work', null, 'Our biggest customers are in three cities: Rotterdam, Osaka and Monterrey.'],
  ['Work', null, 'Studied the incident from the outage: a certificate expired on the edge proxies.'],
  ['Work', null, 'Invoices over five thousand need a second approver from the finance office.'],
  ['Work', null, 'The onboarding checklist lives in the wiki under people operations.'],
  ['Work', null, 'Kofi prefers written proposals over meetings and answers within a day.'],
  ['Work', null, 'Benchmarks show the search service answering within nine milliseconds at the median.'],
  ['Work', null, 'The office coffee machine is descaled on Fridays; do not use it before ten.'],
  ['Work', null, 'Travel reimbursements are filed through the Expensory portal within thirty days.'],
  ['Work', null, 'The design review ran long because the typography debate reopened.'],
  [
    'Work',
    'Handbook',
    [
      'Engineering handbook, chapter on releases. Every release is cut from the main branch on a Monday, after the nightly build is green. The release captain for the week announces the cut in the releases channel and tags the commit.',
      'Hotfixes skip the queue only when customers are affected. A hotfix still needs a reviewer, a changelog line and a test that fails without it. The captain merges it back into main the same day so nothing is lost at the next cut.',
      'Rollbacks are cheap and encouraged. If error rates climb after a deploy, roll back first and investigate afterwards; nobody is blamed for rolling back a healthy release.',
      'Release notes are written for people who use the product, not for engineers. Say what changed for them, in plain words, and link the longer technical notes for those who want them.',
      'Once a quarter the team rehearses a disaster recovery drill: a replica is promoted, the old primary is rebuilt from backups, and the time to recover is written down beside the last drill.',
    ].join('\n\n'),
  ],
];

const FACTS: Array<[container: 'Personal' | 'Work', text: string]> = [
  ['Personal', 'Prefers running in the early morning rather than after work.'],
  ['Personal', 'Has lived in four cities: Leeds, Utrecht, Tallinn and Bristol.'],
  ['Work', 'Runs the weekly architecture review on Thursdays.'],
];
const STATIC_FACT = 'Vegetarian; cooks mostly Persian and Georgian dishes.';

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'engram-fixture-'));
  engram(dir, ['owner', 'create', '--email', EMAIL], `${PASSWORD}\n`);
  const containers = {
    Personal: engram(dir, ['containers', 'create', 'Personal', '--description', 'Home, family and hobbies']),
    Work: engram(dir, ['containers', 'create', 'Work']),
  };
  const key = engram(dir, ['keys', 'create', '--name', 'fixture', '--level', 'manage', '--all', '--profile']);
  const server = await spawnServer(dir);
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${path} answered ${res.status}: ${await res.text()}`);
    return (await res.json()) as { id: string };
  };
  try {
    const ids: string[] = [];
    for (const [container, title, content] of DOCUMENTS) {
      ids.push(
        (await post('/v1/documents', { container: containers[container], content, ...(title ? { title } : {}) })).id,
      );
    }
    // One more, deleted once learned: the old index then holds a deletion and passage ids a gap.
    const gone = (
      await post('/v1/documents', {
        container: containers.Work,
        content: 'A draft memo about the Zanzibar offsite, withdrawn.',
      })
    ).id;
    for (const [container, content] of FACTS) await post('/v1/memories', { container: containers[container], content });
    await post('/v1/memories', { static: true, content: STATIC_FACT });
    await untilQueueEmpty(dir);
    const del = await fetch(`${server.url}/v1/documents/${gone}?confirm=true`, {
      method: 'DELETE',
      headers: { Authorization: `Bearer ${key}` },
    });
    if (!del.ok) throw new Error(`delete answered ${del.status}`);
  } finally {
    server.proc.kill('SIGTERM');
    await server.proc.exited;
  }
  // The whole store in one file: the WAL checkpointed into it and truncated, the free pages dropped.
  const db = new Database(join(dir, 'engram.db'));
  db.run('PRAGMA wal_checkpoint(TRUNCATE)');
  db.run('VACUUM');
  db.run('PRAGMA wal_checkpoint(TRUNCATE)');
  db.close();
  mkdirSync(out, { recursive: true });
  await Bun.write(join(out, 'engram.db'), Bun.file(join(dir, 'engram.db')));
  await Bun.write(
    join(out, 'credentials.json'),
    `${JSON.stringify({ email: EMAIL, password: PASSWORD, key, containers }, null, 2)}\n`,
  );
  rmSync(dir, { recursive: true, force: true });
  console.log(`wrote ${out}`);
}

/** Waits until the server's learning worker has finished every job (read beside it, as WAL allows). */
async function untilQueueEmpty(dir: string): Promise<void> {
  const db = new Database(join(dir, 'engram.db'), { readonly: true });
  try {
    for (const deadline = Date.now() + 60_000; Date.now() < deadline; await Bun.sleep(100)) {
      const left = db
        .query<{ n: number }, []>("SELECT count(*) AS n FROM jobs WHERE state IN ('queued', 'running')")
        .get()!.n;
      const failed = db.query<{ n: number }, []>("SELECT count(*) AS n FROM jobs WHERE state = 'failed'").get()!.n;
      if (failed) throw new Error(`${failed} learning jobs failed`);
      if (left === 0) return;
    }
    throw new Error('learning did not finish within 60 s');
  } finally {
    db.close();
  }
}

await main();
