/**
 * The embedders the configuration chooses: the built-in static model (the fast tier) with or
 * without the built-in transformer (the strong tier), an OpenAI-compatible endpoint, or none. The
 * strong model is known by its identity at once, so it never delays a start; how it is then run is
 * the caller's: search runs it on a thread of its own (search/query-embedder.ts), since it would
 * otherwise hold the HTTP thread, and learning loads it, or takes up that same session, when it
 * first embeds with it (`loadStrongWhenUsed`).
 */
import type { Config } from '../config';
import { DeferredEmbedder } from './deferred-embedder';
import type { Embedder } from './embedder';
import {
  type EmbedderIdentity,
  loadOnnxEmbedder,
  OnnxEmbedder,
  type OnnxLane,
  type SharedOnnxEmbedder,
} from './onnx-embedder';
import { OpenAIEmbedder } from './openai-embedder';
import { loadStaticEmbedder } from './static-embedder';

/**
 * The embedder of each tier: `fast` makes a passage searchable at once, `strong` embeds it again,
 * better; null: the tier is off.
 */
export interface EmbedderTiers {
  fast: Embedder | null;
  strong: Embedder | null;
}

/** Runs the strong model, known so far by its identity alone. */
export type StrongRunner = (identity: EmbedderIdentity) => Embedder;

export interface EmbedderOptions {
  /** The strong model's identity as another thread computed it: the 23 MB model is not hashed again. */
  identity?: EmbedderIdentity;
  /** How the strong model runs; by default it loads when first used. */
  strong?: StrongRunner;
}

export async function createEmbedders(config: Config, options: EmbedderOptions = {}): Promise<EmbedderTiers> {
  const choice = config.embedder;
  if (choice.kind === 'none') return { fast: null, strong: null };
  if (choice.kind === 'openai')
    return {
      fast: await OpenAIEmbedder.connect({ url: choice.url, model: choice.model, key: choice.key }),
      strong: null,
    };
  const fast = loadStaticEmbedder();
  if (choice.kind === 'fast') return { fast, strong: null };
  const identity = options.identity ?? (await OnnxEmbedder.identify());
  return { fast, strong: (options.strong ?? loadStrongWhenUsed())(identity) };
}

/** The strong model's identity, for a learning thread to take instead of hashing the model again; null with no strong tier. */
export function strongIdentity({ strong }: EmbedderTiers): EmbedderIdentity | null {
  return strong && { id: strong.id, dimensions: strong.dimensions, similarityFloor: strong.similarityFloor ?? 0 };
}

/**
 * The strong model loaded when first used: the session `shared` gives (the query thread's, so the
 * process holds the model once), or, with none (a benchmark), one of its own. `beforeRun` is awaited
 * before each of its runs (learning yields to searches there).
 */
export function loadStrongWhenUsed(
  source: {
    shared?: () => Promise<SharedOnnxEmbedder>;
    beforeRun?: () => Promise<void>;
    /** Threads that run the shared session's batches beside the caller's (refinement's other cores). */
    lanes?: (shared: SharedOnnxEmbedder) => OnnxLane[];
  } = {},
): StrongRunner {
  const { shared, beforeRun, lanes } = source;
  return (identity) =>
    new DeferredEmbedder(
      identity,
      shared
        ? async () => {
            const model = await shared();
            return OnnxEmbedder.attach(model, { beforeRun, lanes: lanes && (() => lanes(model)) });
          }
        : () => loadOnnxEmbedder(undefined, { knownId: identity.id, beforeRun }),
    );
}
