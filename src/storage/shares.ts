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
  /** Inserts the share with its containers, together. */
  insert(share: Share): Promise<void>;
  /** Looks a share up by id alone: authentication does not know the account yet. */
  getById(id: string): Promise<Share | null>;
  /** The account's shares, newest first. */
  list(accountId: string): Promise<Share[]>;
  /** Marks the share revoked (once); false when the account holds no such share. */
  revoke(accountId: string, id: string, at: number): Promise<boolean>;
}
