/**
 * How far learning has got, for `GET /healthz` and the owner's pages: totals of the whole server,
 * never any account's data; with a language model, what it is doing and the facts waiting for it.
 */
import { z } from 'zod';
import type { ModelClient } from '../language-model/model-client';
import type { VectorIndexes } from '../search/vector-indexes';
import type { Repositories } from '../storage/store';
import { defineOperation } from './operation';

const LanguageModel = z.object({
  name: z.string().describe('The model, as the learner that uses it last saw it.'),
  state: z
    .enum(['unchecked', 'ok', 'slow', 'unreachable'])
    .describe(
      '`unchecked` until a learner has asked it; `ok`; `slow` (over 10 s a document: facts come minutes after a note); ' +
        '`unreachable` (down, refusing or timing out: facts wait and are asked for again; search is not affected).',
    ),
  seconds_per_document: z.number().nullable().describe('Seconds the model took a document, on average lately.'),
  format: z
    .enum(['json_schema', 'json_object'])
    .nullable()
    .describe('How JSON is asked of it: a JSON schema, or plain JSON from a server that refuses one.'),
  error: z.string().nullable().describe('Why it is unreachable.'),
  seen_at: z.string().nullable().describe('When a learner last saw this (ISO 8601).'),
});

const LearningProgress = z.object({
  queue: z
    .number()
    .int()
    .describe('Learning jobs queued or running: what is not searchable yet (facts waiting for the model are apart).'),
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
  facts: z
    .object({
      waiting: z.number().int().describe('Learned (searchable) documents whose facts wait for the language model.'),
      failed: z.number().int().describe('Documents whose facts the model could not give after every try.'),
    })
    .optional()
    .describe('With a language model only.'),
  model: LanguageModel.optional().describe('With a language model only: what it is doing.'),
});

export type LearningProgress = z.infer<typeof LearningProgress>;

/** The figures of `LearningProgress`; the health check reads them for any credential of this server. */
export async function progressOf(services: {
  store: Repositories;
  indexes: VectorIndexes;
  model: ModelClient | null;
}): Promise<LearningProgress> {
  const { store, indexes, model } = services;
  const passages = await store.passages.count();
  const refined = indexes.keepsStrong ? indexes.figures().strong : null;
  const pace = refined === null ? null : indexes.refinementPace.perSecond();
  const progress: LearningProgress = {
    queue: await store.jobs.countPending('index'),
    passages,
    refined,
    refining_per_second: pace && Math.round(pace * 10) / 10,
    full_quality_in_seconds: refined === null ? null : indexes.refinementPace.secondsFor(passages - refined),
  };
  if (!model) return progress;
  // Loaded when asked: the MCP bridge loads the operations for their descriptions, and no learning.
  const { readModelStatus } = await import('../learning/model-status');
  const status = await readModelStatus(store);
  return {
    ...progress,
    facts: { waiting: await store.jobs.countPending('facts'), failed: await store.jobs.countFailed('facts') },
    model: {
      name: status?.model ?? model.model,
      state: status?.state ?? 'unchecked',
      seconds_per_document: status?.secondsPerDocument ?? null,
      format: status?.format ?? null,
      error: status?.error ?? null,
      seen_at: status ? new Date(status.at).toISOString() : null,
    },
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
    'How far learning has got on this server: jobs waiting, passages stored, how many the strong tier has embedded, ' +
    'and with a language model, what it is doing and the facts waiting for it.',
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
