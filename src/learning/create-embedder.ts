/**
 * The embedders the configuration chooses: the built-in static model (the fast tier) with or
 * without the built-in transformer (the strong tier, which refines), an OpenAI-compatible endpoint,
 * or none. Learning runs the strong model on its own thread; search asks a thread of its own
 * (search/query-embedder.ts), as the model would otherwise hold the HTTP thread.
 */
import type { Config } from '../config';
import { QueryEmbedder } from '../search/query-embedder';
import type { SearchEmbedders } from '../search/search-engine';
import { loadOnnxEmbedder } from './embedder/onnx-embedder';
import { OpenAIEmbedder } from './embedder/openai-embedder';
import { loadStaticEmbedder } from './embedder/static-embedder';

export async function createEmbedders(config: Config, use: 'learning' | 'search'): Promise<SearchEmbedders> {
  const choice = config.embedder;
  if (choice.kind === 'none') return { fast: null, strong: null };
  if (choice.kind === 'openai') return { fast: await OpenAIEmbedder.connect({ url: choice.url, model: choice.model, key: choice.key }), strong: null };
  const fast = loadStaticEmbedder();
  if (choice.kind === 'fast') return { fast, strong: null };
  return { fast, strong: use === 'learning' ? await loadOnnxEmbedder() : await QueryEmbedder.start() };
}
