/** Who is calling: decided from the credential alone, once per request. */
import type { Container, Credential, Share, Level } from '../storage/store';

/**
 * What a credential may do, one shape for developer keys, consent tokens and shares, so reach,
 * the profile tick, the limiter and usage apply to each with no second path.
 */
export interface Grant {
  /** The credential's id (a share's id for a share): what usage, limits and rules are keyed by. */
  credentialId: string;
  name: string;
  level: Level;
  allContainers: boolean;
  containerIds: string[];
  profile: boolean;
}

/**
 * The owner, a developer key, an app's consent token (level read, tools narrowed by `holdsTool`),
 * or a share (an agent share or a workflow, holding only its own tool). The owner calls through a
 * signed-in session (`sessionId`), or, with none (null), at this machine's command line: `engram`
 * commands act for the owner of an account in the data directory they were given, which only the
 * user who owns that directory can open.
 */
export type Caller =
  | { kind: 'owner'; accountId: string; sessionId: string | null }
  | {
      kind: 'key' | 'consent';
      accountId: string;
      grant: Grant;
      credential: Credential;
      /** The owner searching as this credential ("see as"): the call is the owner's, not the credential's. */
      seenByOwner?: true;
      /**
       * The account's containers, read with the credential when this call was authenticated (one
       * read for both): its reach for this call, from the store like the grant. Never kept past the
       * call; absent where the caller was made otherwise, and then read when needed.
       */
      accountContainers?: Container[];
    }
  | { kind: 'share'; accountId: string; grant: Grant; share: Share };

/** The grant of a stored credential (a key or a consent token). */
export const grantOf = (c: Credential): Grant => ({
  credentialId: c.id,
  name: c.name,
  level: c.level,
  allContainers: c.allContainers,
  containerIds: c.containerIds,
  profile: c.profile,
});

/**
 * The credential a call counts against (its limiter, usage and access log), or null when the call
 * is the owner's: their session, or their "see as" through one of their credentials.
 */
export const countedCredential = (c: Caller): string | null =>
  c.kind === 'owner' || (c.kind !== 'share' && c.seenByOwner) ? null : c.grant.credentialId;
