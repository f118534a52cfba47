/** The per-request variables the Hono app carries. */
import type { Caller } from '../auth/caller';

export type AppEnv = { Variables: { traceId: string; caller: Caller } };
