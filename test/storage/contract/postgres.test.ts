/**
 * The repository contract (contract.ts) on PostgreSQL: a database of its own per case on a real
 * server, started for the run (test/helpers/postgres.ts). Skipped, and said so, on a machine with
 * no PostgreSQL server binaries.
 */
import { it } from 'bun:test';
import { testPostgres } from '../../helpers/postgres';
import { contractCases } from './contract';
import { postgresFactory } from './factory';

const server = testPostgres();
if (typeof server === 'string') {
  console.warn(`PostgreSQL contract cases skipped: ${server}`);
  it.skip(`PostgreSQL contract cases (skipped: ${server})`, () => {});
} else {
  contractCases(postgresFactory(server));
}
