/**
 * The repository contract (contract.ts) on PostgreSQL: a database of its own per case on a real
 * server, started for the run (test/helpers/postgres.ts). Skipped, and said so, on a machine with
 * no PostgreSQL server binaries.
 */
import { postgresOrSkip } from '../../helpers/postgres';
import { contractCases } from './contract';
import { postgresFactory } from './factory';

const server = postgresOrSkip('PostgreSQL contract cases');
if (server) contractCases(postgresFactory(server));
