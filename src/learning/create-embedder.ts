/** The embedder the configuration chooses: the built-in model, an OpenAI-compatible endpoint, or none. */
import type { Config } from '../config';
import type { Embedder } from './embedder/embedder';
import { OpenAIEmbedder } from './embedder/openai-embedder';
import { loadStaticEmbedder } from './embedder/static-embedder';

export async function createEmbedder(config: Config): Promise<Embedder | null> {
  const choice = config.embedder;
  if (choice.kind === 'none') return null;
  if (choice.kind === 'builtin') return loadStaticEmbedder();
  return OpenAIEmbedder.connect({ url: choice.url, model: choice.model, key: choice.key });
}
