/**
 * What the language model is doing, as the learner that uses it last saw: kept in the store, so
 * that the server's health check and the owner's pages say it whichever process or thread learns
 * (the learning thread, or `engram learn` beside a shared store).
 */
import type { AnswerFormat } from '../language-model/model-client';
import type { Repositories } from '../storage/store';

const SETTING = 'language_model';

/** Seconds a document above which a model is slow: a note's facts are known only minutes after it is added. */
export const SLOW_SECONDS = 10;

export interface ModelStatus {
  /** The model's name, as the learner is configured with it. */
  model: string;
  /**
   * `ok`: it answers; `slow`: it answers, in more than SLOW_SECONDS a document on average or on the
   * request it is on now; `unreachable`: no answer (down, refusing, timing out); facts wait for it.
   */
  state: 'ok' | 'slow' | 'unreachable';
  /** Seconds a document took, averaged over the last ones; null before the first answer. */
  secondsPerDocument: number | null;
  /** How JSON is asked of it (see AnswerFormat); null before it answered. */
  format: AnswerFormat | null;
  /** Why it is unreachable; null otherwise. */
  error: string | null;
  /** When this was seen (ms). */
  at: number;
}

export async function readModelStatus(store: Repositories): Promise<ModelStatus | null> {
  const value = await store.settings.get(SETTING);
  return value ? (JSON.parse(value) as ModelStatus) : null;
}

export function writeModelStatus(store: Repositories, status: ModelStatus): Promise<void> {
  return store.settings.set(SETTING, JSON.stringify(status));
}
