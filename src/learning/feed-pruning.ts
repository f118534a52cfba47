/**
 * A learner's upkeep on a shared store: it prunes the vector feed it writes to, as the replicas do
 * as they follow it, so that the feed stays bounded while no replica runs (docs/decisions.md,
 * "Learners prune the vector feed too").
 */
import type { Logger } from '../log';
import type { VectorFeed } from '../storage/vector-feed';

/** A learner prunes the feed at most this often: a prune with nothing to delete is a few statements. */
const PRUNE_EVERY_MS = 60_000;

/**
 * The runner's upkeep (runner.ts): at its first round, then once a minute, prunes the feed to its
 * retention. Never fails a round and never asks for another: a prune the store refuses is tried a
 * minute later.
 */
export function feedPruning(feed: VectorFeed, log: Logger): () => Promise<boolean> {
  let prunedAt = Number.NEGATIVE_INFINITY;
  return async () => {
    if (Date.now() - prunedAt < PRUNE_EVERY_MS) return false;
    prunedAt = Date.now();
    try {
      const pruned = await feed.prune();
      if (pruned) log.info("the store's vector feed pruned", { commits: pruned });
    } catch (err) {
      log.warn("the store's vector feed could not be pruned; trying again in a minute", { error: String(err) });
    }
    return false;
  };
}
