/** Who is calling: decided from the credential alone, once per request. */
import type { Credential, Exposure } from '../storage/store';

/**
 * `developer_key` is every stored credential: a developer key, or an app's consent token
 * (`credential.kind === 'consent_token'`, level read, held tools narrowed by `holdsTool`). Sharing
 * the shape means reach, the profile tick, the limiter and usage apply to both with no second path.
 */
export type Caller =
  | { kind: 'owner'; accountId: string; sessionId: string }
  | { kind: 'developer_key'; accountId: string; credential: Credential; exposure?: Exposure };
