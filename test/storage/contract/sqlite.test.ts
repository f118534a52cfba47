/** The repository contract (contract.ts) on the embedded default: a SQLite file in a temporary directory. */
import { contractCases } from './contract';
import { sqliteFactory } from './factory';

contractCases(sqliteFactory);
