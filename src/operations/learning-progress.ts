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
  refining_per_second: z
    .number()
    .nullable()
    .describe(
      'Passages the strong tier has embedded a second over the last two minutes; null while it is not under way ' +
        '(nothing left, the strong tier off, or learning new documents first).',
    ),
  full_quality_in_seconds: z
    .number()
    .int()
    .nullable()
    .describe(
      'When every passage is expected to be refined, at that pace: 0 once all are; null when there is no pace to go by.',
    ),
});

type LearningProgress = z.infer<typeof LearningProgress>;

/** The figures of `LearningProgress`; the health check reads them for any credential of this server. */
export async function progressOf(services: { store: Repositories; indexes: VectorIndexes }): Promise<LearningProgress> {
  const { indexes } = services;
  const passages = await services.store.passages.count();
  const refined = indexes.keepsStrong ? indexes.figures().strong : null;
  const pace = refined === null ? null : indexes.refinementPace.perSecond();
  return {
    queue: await services.store.jobs.countPending(),
    passages,
    refined,
    refining_per_second: pace && Math.round(pace * 10) / 10,
    full_quality_in_seconds: refined === null ? null : indexes.refinementPace.secondsFor(passages - refined),
  };
}

/** When full search quality is expected, in words ("in about 25 minutes"); null when there is nothing to say. */
export function fullQualityIn(progress: LearningProgress): string | null {
  const seconds = progress.full_quality_in_seconds;
  if (!seconds) return null;
  if (seconds < 90) return 'in about a minute';
  if (seconds < 90 * 60) return `in about ${Math.round(seconds / 60)} minutes`;
  const hours = Math.round(seconds / 360) / 10;
  return `in about ${hours} hours`;
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
