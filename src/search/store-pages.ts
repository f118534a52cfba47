/**
 * Reading the store's vectors into the indexes without holding the server up: a page at a time,
 * counted a slice at a time, the server answering what came in between two.
 */
import type { Repositories, VectorTier } from '../storage/store';

/** The tiers, in the order their indexes are built, saved and closed. */
export const TIERS = ['strong', 'fast'] as const satisfies readonly VectorTier[];

/**
 * Passages read a page while an index is built, each page collected once indexed. Freed pages are
 * given back to the system only a while later, so a bigger page piles more up while the build
 * runs: at 5,000 the start-up peak at 100k passages was 35–45 MiB higher, for a build ~0.9 s
 * shorter (docs/performance.md). The server answers other requests between two pages.
 */
export const LOAD_PAGE = 2_000;
/** Passage ids a tier's units are counted over at a time before its index is built (~20 ms at 100k). */
const COUNT_SLICE = 20_000;

/** Lets the server answer what came in meanwhile. */
export const turn = () => new Promise((resolve) => setImmediate(resolve));

/** A tier's stored unit vectors, counted a slice of passages at a time, the server answering between slices. */
export async function countStored(
  store: Pick<Repositories, 'passages' | 'vectors'>,
  tier: VectorTier,
): Promise<number> {
  const last = await store.passages.lastId();
  let units = 0;
  for (let after = 0; ; after += COUNT_SLICE) {
    // The last slice is open-ended: passages stored since `last` was read count too.
    const end = after + COUNT_SLICE < last ? after + COUNT_SLICE : Number.MAX_SAFE_INTEGER;
    units += await store.vectors.countUnits(tier, after, end);
    if (end === Number.MAX_SAFE_INTEGER) return units;
    await turn();
  }
}
