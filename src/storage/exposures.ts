/** Exposures: agent shares and workflows, tokens over chosen containers that are never keys. */

/** What an exposure holds: ask_agent (an agent share) or workflow_invoke (a workflow). */
export type ExposureKind = 'agent_share' | 'workflow';

/** An agent share or a workflow the owner exposed: a token over chosen containers, never a key. */
export interface Exposure {
  id: string;
  accountId: string;
  kind: ExposureKind;
  name: string;
  /** Workflows only: the owner's instruction the model follows. */
  instruction: string | null;
  secretHash: string;
  hint: string;
  createdAt: number;
  /** When it stops working, like a key's expiry; null for never. */
  expiresAt: number | null;
  revokedAt: number | null;
  lastUsedAt: number | null;
  containerIds: string[];
}

export interface ExposureRepository {
  insertExposure(exposure: Exposure): void;
  getExposureById(id: string): Exposure | null;
  /** The account's exposures, newest first. */
  listExposures(accountId: string): Exposure[];
  /** Marks the exposure revoked (once); false when the account holds no such exposure. */
  revokeExposure(accountId: string, id: string, at: number): boolean;
}
