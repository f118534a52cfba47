/**
 * Spreads a kept store's documents (with their passages) over `--containers N` containers
 * of its account, in place: the first container keeps every Nth document, and N-1 new ones the
 * rest, round-robin in the order stored. A person's memory has several containers (notes, chats,
 * imports), and a search of all of them asks keyword search for each (issue 40); the seeded
 * benchmark stores have one. Run it on a copy, with no server on the store. The keyword indexes are
 * left as they are (the passages' words do not change: their update triggers are held off meanwhile), and
 * the saved vector indexes, which file passages by container, are removed so that the next start
 * builds them from the store.
 *
 *   bun bench/spread-containers.ts --store DIR --containers 6
 */
import { Database } from 'bun:sqlite';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { newId } from '../src/ids';
import { nameKey } from '../src/names';

const { values } = parseArgs({
  options: { store: { type: 'string' }, containers: { type: 'string', default: '6' } },
});
if (!values.store) throw new Error('usage: bun bench/spread-containers.ts --store DIR --containers N');
const n = Number(values.containers);
const db = new Database(join(values.store, 'engram.db'));
const containers = db
  .query<{ id: string; accountId: string }, []>('SELECT id, account_id AS accountId FROM containers')
  .all();
if (containers.length !== 1) throw new Error(`the store holds ${containers.length} containers; spread a store of one`);
// The seeded stores hold documents alone; a fact's passage would need its fact moved with it.
if (db.query('SELECT 1 FROM memories LIMIT 1').get())
  throw new Error('the store holds facts; spread a store of documents');
const [{ id: first, accountId }] = containers as [{ id: string; accountId: string }];
const triggers = db
  .query<{ name: string; sql: string }, []>(
    "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'passages' AND sql LIKE '%AFTER UPDATE%'",
  )
  .all();

db.transaction(() => {
  const ids = [first];
  for (let i = 2; i <= n; i++) {
    const id = newId('ctr');
    const name = `Bench ${i}`;
    db.run(
      `INSERT INTO containers (id, account_id, name, description, created_at, updated_at, name_key, learns_into_profile)
       SELECT ?, account_id, ?, description, created_at, updated_at, ?, learns_into_profile FROM containers WHERE id = ?`,
      [id, name, nameKey(name), first],
    );
    ids.push(id);
  }
  // The document's place in the order stored picks its container.
  db.run(`CREATE TEMP TABLE spread (documentId TEXT PRIMARY KEY, containerId TEXT NOT NULL)`);
  db.run(
    `INSERT INTO spread
          SELECT d.id AS documentId, json_extract(?1, '$[' || ((row_number() OVER (ORDER BY d.rowid) - 1) % ?2) || ']') AS containerId
            FROM documents d WHERE d.account_id = ?3`,
    [JSON.stringify(ids), n, accountId],
  );
  for (const { name } of triggers) db.run(`DROP TRIGGER ${name}`);
  for (const [table, key] of [
    ['documents', 'id'],
    ['passages', 'document_id'],
  ])
    db.run(`UPDATE ${table} SET container_id = (SELECT containerId FROM spread WHERE documentId = ${table}.${key})
             WHERE ${key} IN (SELECT documentId FROM spread)`);
  for (const { sql } of triggers) db.run(sql);
})();
const spread = db
  .query<{ containerId: string; n: number }, []>(
    'SELECT container_id AS containerId, count(*) AS n FROM passages GROUP BY container_id ORDER BY n DESC',
  )
  .all();
db.close();
rmSync(join(values.store, 'vector-index'), { recursive: true, force: true });
console.log(`passages a container: ${spread.map((s) => s.n).join(', ')}`);
