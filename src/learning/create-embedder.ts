/**
 * The embedders the configuration chooses: the built-in static model (the fast tier) with or
 * without the built-in transformer (the strong tier, which refines), an OpenAI-compatible endpoint,
 * or none. The strong model is known by its identity at once, so it never delays a start: search
 * loads it on a thread of its own in the background (search/query-embedder.ts), since it would
 * otherwise hold the HTTP thread; learning loads it on the learning thread when it first refines.
 */
import type { Config } from '../config';
import { QueryEmbedder } from '../search/query-embedder';
import type { SearchEmbedders } from '../search/search-engine';
import { DeferredEmbedder } from './embedder/deferred-embedder';
import { type EmbedderIdentity, loadOnnxEmbedder, OnnxEmbedder } from './embedder/onnx-embedder';
import { OpenAIEmbedder } from './embedder/openai-embedder';
import { loadStaticEmbedder } from './embedder/static-embedder';

/**
 * `strongIdentity`: the strong model's identity when the caller knows it already (the learning
 * thread is handed the one the HTTP thread computed), which spares hashing the 23 MB model again.
 */
export async function createEmbedders(config: Config, use: 'learning' | 'search', strongIdentity?: EmbedderIdentity): Promise<SearchEmbedders> {
  const choice = config.embedder;
  if (choice.kind === 'none') return { fast: null, strong: null };
  if (choice.kind === 'openai') return { fast: await OpenAIEmbedder.connect({ url: choice.url, model: choice.model, key: choice.key }), strong: null };
  const fast = loadStaticEmbedder();
  if (choice.kind === 'fast') return { fast, strong: null };
  const identity = strongIdentity ?? (await OnnxEmbedder.identify());
  return { fast, strong: use === 'learning' ? new DeferredEmbedder(identity, () => loadOnnxEmbedder(undefined, { knownId: identity.id })) : new QueryEmbedder(identity) };
}
