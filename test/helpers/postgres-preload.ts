/**
 * Runs the suites it is loaded for on PostgreSQL (scripts/test-all.sh: the operation tier, the REST
 * and MCP end-to-end suites): each operation harness opens a new database of the test server
 * (test/helpers/postgres.ts), and so does each in-process test server that names no store itself.
 */
import { useStoreFactory } from './operations';
import { testPostgres } from './postgres';
import { storeTestServersIn } from './server';
import { postgresFactory } from '../storage/contract/factory';

const server = testPostgres();
// Asked for by name: a run without a server must fail, not pass on SQLite.
if (typeof server === 'string') throw new Error(`the suites were asked to run on PostgreSQL, but ${server}`);
useStoreFactory(postgresFactory(server));
storeTestServersIn(() => server.createDatabase());
