/** Who is calling: decided from the credential alone, once per request. */
import type { Credential } from '../storage/store';

export type Caller =
  | { kind: 'owner'; accountId: string; sessionId: string }
  | { kind: 'developer_key'; accountId: string; credential: Credential };
