/**
 * The embedders the configuration chooses: the built-in static model (the fast tier) with or
 * without the built-in transformer (the strong tier, which refines), an OpenAI-compatible endpoint,
 * or none. The strong model is known by its identity at once, so it never delays a start: search
 * loads it on a thread of its own in the background (search/query-embedder.ts), since it would
 * otherwise hold the HTTP thread; the learning thread takes up that same session when it first
 * refines, or, with no server around it (benchmarks), loads its own.
 */
import type { Config } from '../config';
import { QueryEmbedder } from '../search/query-embedder';
import type { SearchEmbedders } from '../search/search-engine';
import { DeferredEmbedder } from './embedder/deferred-embedder';
import { type EmbedderIdentity, loadOnnxEmbedder, OnnxEmbedder, type SharedOnnxEmbedder } from './embedder/onnx-embedder';
import { OpenAIEmbedder } from './embedder/openai-embedder';
import { loadStaticEmbedder } from './embedder/static-embedder';

/** What the learning thread knows of the strong model before it loads it. */
export interface StrongModelSource {
  /** Its identity as the HTTP thread computed it: the 23 MB model is not hashed again. */
  identity?: EmbedderIdentity;
  /** The query thread's session, for learning to run instead of loading its own. */
  shared?: () => Promise<SharedOnnxEmbedder>;
  /** Awaited before each of its model runs (the learning thread yields to searches there). */
  beforeRun?: () => Promise<void>;
}

export async function createEmbedders(config: Config, use: 'learning' | 'search', strongModel: StrongModelSource = {}): Promise<SearchEmbedders> {
  const choice = config.embedder;
  if (choice.kind === 'none') return { fast: null, strong: null };
  if (choice.kind === 'openai') return { fast: await OpenAIEmbedder.connect({ url: choice.url, model: choice.model, key: choice.key }), strong: null };
  const fast = loadStaticEmbedder();
  if (choice.kind === 'fast') return { fast, strong: null };
  const identity = strongModel.identity ?? (await OnnxEmbedder.identify());
  if (use === 'search') return { fast, strong: new QueryEmbedder(identity) };
  const { shared, beforeRun } = strongModel;
  const load = shared ? async () => OnnxEmbedder.attach(await shared(), { beforeRun }) : () => loadOnnxEmbedder(undefined, { knownId: identity.id, beforeRun });
  return { fast, strong: new DeferredEmbedder(identity, load) };
}
