/**
 * How far learning has got, for `GET /healthz` and the owner's pages: totals of the whole server,
 * never any account's data.
 */
import { z } from 'zod';
import type { VectorIndexes } from '../search/vector-indexes';
import type { Repositories } from '../storage/store';
import { defineOperation } from './operation';

const LearningProgress = z.object({
  queue: z.number().int().describe('Learning jobs queued or running.'),
  passages: z.number().int().describe('Passages stored.'),
  refined: z
    .number()
    .int()
    .nullable()
    .describe(
      'Passages the strong tier has embedded, as its search index holds them (for the first seconds of a start on a large store, ' +
        'those it has read so far); null when the strong tier is off.',
    ),
});

type LearningProgress = z.infer<typeof LearningProgress>;

/** The figures of `LearningProgress`; the health check reads them for any credential of this server. */
export async function progressOf(services: { store: Repositories; indexes: VectorIndexes }): Promise<LearningProgress> {
  return {
    queue: await services.store.jobs.countPending(),
    passages: await services.store.passages.count(),
    refined: services.indexes.keepsStrong ? services.indexes.figures().strong : null,
  };
}

export const learningProgress = defineOperation({
  name: 'learning_progress',
  description:
    'How far learning has got on this server: jobs waiting, passages stored, and how many the strong tier has embedded.',
  access: 'owner',
  output: LearningProgress,
  input: z.object({}),
  run: (ctx) => progressOf(ctx),
});

/** "N % refined", or null when there is nothing to say (the strong tier off, or nothing stored). */
export function refinedPercent(progress: LearningProgress): number | null {
  if (progress.refined === null || progress.passages === 0) return null;
  return Math.floor((100 * Math.min(progress.refined, progress.passages)) / progress.passages);
}
