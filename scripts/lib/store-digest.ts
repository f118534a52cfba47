/**
 * A digest of what a data directory stores for its people, for scripts/schemathesis.sh to compare
 * before and after passes whose every write must be refused: one line per table, its row count and a
 * SHA-256 of its rows. Read-only; safe while the server runs (WAL readers do not block it).
 *
 * Left out, because they change without anything being stored for the caller: `usage` (a refused
 * call is counted there, by design), the learning queue and its products (`jobs`, passages and
 * their indexes; a document's status, error and learned time, moved by the background learning of
 * earlier writes), and `last_used_at` columns, which a call sets on its credential.
 *
 * Usage: bun scripts/lib/store-digest.ts DATA_DIR
 */
import { Database } from 'bun:sqlite';
import { createHash } from 'node:crypto';
import { join } from 'node:path';

const TABLES = [
  'accounts',
  'sessions',
  'containers',
  'documents',
  'memories',
  'memory_history',
  'rules',
  'credentials',
  'credential_containers',
  'exposures',
  'exposure_containers',
  'oauth_clients',
  'oauth_codes',
];
const SKIPPED_COLUMNS: Record<string, string[]> = { documents: ['status', 'error', 'updated_at', 'learned_at'] };

const dataDir = Bun.argv[2];
if (!dataDir) {
  process.stderr.write('store-digest: needs DATA_DIR\n');
  process.exit(2);
}

const db = new Database(join(dataDir, 'engram.db'), { readonly: true });
const present = new Set(
  db
    .query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'table'")
    .all()
    .map((r) => r.name),
);
const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;
for (const table of TABLES) {
  if (!present.has(table)) {
    process.stdout.write(`${table}\tabsent\n`);
    continue;
  }
  const columns = db
    .query<{ name: string }, []>(`PRAGMA table_info(${quote(table)})`)
    .all()
    .map((c) => c.name)
    .filter((c) => !/^last_\w+_at$/.test(c) && !(SKIPPED_COLUMNS[table] ?? []).includes(c));
  const list = columns.map(quote).join(', ');
  // Ordered by every kept column, so the digest does not depend on the order rows were written in.
  const rows = db.query<unknown[], []>(`SELECT ${list} FROM ${quote(table)} ORDER BY ${list}`).values();
  const hash = createHash('sha256');
  for (const row of rows)
    hash
      .update(
        JSON.stringify(row, (_k, v) =>
          typeof v === 'bigint' ? v.toString() : v instanceof Uint8Array ? Buffer.from(v).toString('base64') : v,
        ),
      )
      .update('\n');
  process.stdout.write(`${table}\t${rows.length} rows\t${hash.digest('hex').slice(0, 16)}\t(${columns.join(', ')})\n`);
}
db.close();
