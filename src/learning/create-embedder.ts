/**
 * The embedders the configuration chooses: the built-in static model (the fast tier) with or
 * without the built-in transformer (the strong tier, which refines), an OpenAI-compatible endpoint,
 * or none.
 */
import type { Config } from '../config';
import type { SearchEmbedders } from '../search/search-engine';
import { OpenAIEmbedder } from './embedder/openai-embedder';
import { loadStaticEmbedder } from './embedder/static-embedder';

export async function createEmbedders(config: Config): Promise<SearchEmbedders> {
  const choice = config.embedder;
  if (choice.kind === 'none') return { fast: null, strong: null };
  if (choice.kind === 'openai') return { fast: await OpenAIEmbedder.connect({ url: choice.url, model: choice.model, key: choice.key }), strong: null };
  return { fast: loadStaticEmbedder(), strong: null };
}
