/** The embedder the configuration chooses: the built-in model, an OpenAI-compatible endpoint, or none. */
import type { Config } from '../config';
import type { Logger } from '../log';
import type { Embedder } from './embedder/embedder';

export async function createEmbedder(config: Config, log: Logger): Promise<Embedder | null> {
  const choice = config.embedder;
  if (choice.kind === 'none') return null;
  throw new Error(`the ${choice.kind} embedder is not wired yet`);
}
