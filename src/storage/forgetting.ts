/** Forgetting (docs/decisions.md, "Forgetting that forgets"): deletes that leave no bytes behind. */
import type { Fact } from './facts';

/** What a forgetting removes: one document, or a container with everything in it. */
export type ForgetTarget = { documentId: string } | { containerId: string };

/**
 * What deleting a target takes with it: its documents, their passages, and the facts learned from
 * them (those of a deleted container too). Learned facts the owner reviewed (edited or confirmed)
 * are `kept`, their source cleared, unless named in `forget`'s `alsoForget`.
 */
export interface ForgettingPlan {
  documents: number;
  /** The documents' passages (a fact's own passage goes with the fact). */
  passages: number;
  facts: Fact[];
  kept: Fact[];
}

/** What a forgetting removed, in the plan's terms, and every passage id gone (for in-memory indexes). */
export interface ForgettingDone {
  documents: number;
  passages: number;
  facts: number;
  kept: number;
  passageIds: number[];
}

export interface ForgettingRepository {
  /** What `forget` would remove now; null when the account holds no such document or container. */
  planForgetting(accountId: string, target: ForgetTarget): ForgettingPlan | null;
  /**
   * Deletes the target with its passages, vectors and the facts learned from it, in one
   * transaction; reviewed facts are kept (source cleared) unless their ids are in `alsoForget`. The
   * keyword index is purged of the removed text and the deleted bytes are zeroed in the file, then
   * the WAL is checkpointed and truncated when no reader holds it. Null when there is no such target.
   */
  forget(accountId: string, target: ForgetTarget, alsoForget: string[]): ForgettingDone | null;
  /**
   * Deletes one fact as `forget` deletes a document's: its passage, vectors and keyword index
   * entries purged, the WAL truncated. Returns its passages' ids, or null when there is no such fact.
   */
  forgetFact(accountId: string, id: string): number[] | null;
}
