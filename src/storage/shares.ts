/** Shares: agent shares and workflows, tokens over chosen containers that are never keys. */

/** What a share holds: ask_agent (an agent share) or workflow_invoke (a workflow). */
export type ShareKind = 'agent_share' | 'workflow';

/** An agent share or a workflow the owner exposed: a token over chosen containers, never a key. */
export interface Share {
  id: string;
  accountId: string;
  kind: ShareKind;
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

export interface ShareRepository {
  insertShare(share: Share): void;
  getShareById(id: string): Share | null;
  /** The account's shares, newest first. */
  listShares(accountId: string): Share[];
  /** Marks the share revoked (once); false when the account holds no such share. */
  revokeShare(accountId: string, id: string, at: number): boolean;
}
