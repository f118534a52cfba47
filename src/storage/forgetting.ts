/** Forgetting (docs/decisions.md, "Forgetting that forgets"): deletes that leave no bytes behind. */
import type { Fact } from './facts';

/** What a forgetting removes: one document, or a container with everything in it. */
export type ForgetTarget = { documentId: string } | { containerId: string };

/** What a forgetting deletes, as an engine reads it from its target: these documents, and the container when it is one. */
export interface ForgettingScope {
  documentIds: string[];
  containerId: string | null;
}

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

/**
 * The plan over what an engine read: the container's own facts and the unreviewed learned ones
 * go, the reviewed learned ones are kept. One rule for every engine.
 */
export function forgettingPlan(documents: number, passages: number, inside: Fact[], learned: Fact[]): ForgettingPlan {
  return {
    documents,
    passages,
    facts: [...inside, ...learned.filter((m) => m.reviewedAt == null)],
    kept: learned.filter((m) => m.reviewedAt != null),
  };
}

/** The ids of the facts a forgetting deletes (the plan's, and the kept ones named in `alsoForget`) and of those it keeps. */
export function factsGoneAndKept(plan: ForgettingPlan, alsoForget: string[]): { gone: string[]; kept: string[] } {
  const ticked = new Set(alsoForget);
  return {
    gone: [...plan.facts, ...plan.kept.filter((m) => ticked.has(m.id))].map((m) => m.id),
    kept: plan.kept.filter((m) => !ticked.has(m.id)).map((m) => m.id),
  };
}

/** What a forgetting removed, in the plan's terms, and every passage id gone (for in-memory indexes). */
export interface ForgettingDone {
  documents: number;
  passages: number;
  facts: number;
  kept: number;
  passageIds: number[];
}

/**
 * The one repository that writes across aggregates (documents, passages, facts, containers): a
 * deletion that leaves no bytes behind is engine work (SQLite: secure_delete, the keyword index
 * purged, the WAL truncated after the commit), so it lives with the engine, in one place.
 */
export interface ForgettingRepository {
  /** What `forget` would remove now; null when the account holds no such document or container. */
  plan(accountId: string, target: ForgetTarget): Promise<ForgettingPlan | null>;
  /**
   * Deletes the target with its passages, vectors and the facts learned from it, in one
   * transaction; reviewed facts are kept (source cleared) unless their ids are in `alsoForget`. The
   * keyword index is purged of the removed text and the deleted bytes are zeroed in the file, then,
   * once committed (inside a caller's transaction: once that commits), the WAL is checkpointed and
   * truncated when no reader holds it. Null when there is no such target.
   */
  forget(accountId: string, target: ForgetTarget, alsoForget: string[]): Promise<ForgettingDone | null>;
  /**
   * Deletes one fact as `forget` deletes a document's: its passage, vectors and keyword index
   * entries purged, the WAL truncated. Returns its passages' ids, or null when there is no such fact.
   */
  forgetFact(accountId: string, id: string): Promise<number[] | null>;
}
