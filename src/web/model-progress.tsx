/** @jsxImportSource hono/jsx */
/**
 * What the language model is doing, on the Memory page: facts waiting for it, how fast it goes, and
 * whether it answers. Every document is searchable before its facts are known; this says so.
 */
import type { LearningProgress } from '../operations/learning-progress';

/** About how long `seconds` is, in words: "40 s", "12 min", "3 h". */
function duration(seconds: number): string {
  if (seconds < 90) return `${Math.max(1, Math.round(seconds))} s`;
  if (seconds < 90 * 60) return `${Math.round(seconds / 60)} min`;
  return `${Math.round(seconds / 3600)} h`;
}

/** Nothing when no model is configured, or when it answers and nothing waits. */
export function ModelProgress({ progress }: { progress: LearningProgress }) {
  const { facts, model } = progress;
  if (!facts || !model) return null;
  const waiting = `${facts.waiting} ${facts.waiting === 1 ? 'document waits' : 'documents wait'}`;
  let says: string | null = null;
  if (model.state === 'unreachable')
    says =
      `The language model (${model.name}) does not answer${model.error ? ` (${model.error})` : ''}. ` +
      `${waiting} for ${facts.waiting === 1 ? 'its' : 'their'} facts, asked for again until it does. Search is not affected.`;
  else if (facts.waiting > 0) {
    const pace = model.seconds_per_document;
    const speed =
      pace === null
        ? model.state === 'unchecked'
          ? 'not asked yet'
          : 'at work'
        : `${model.state === 'slow' ? 'slow, ' : ''}${pace} s a document, about ${duration(pace * facts.waiting)} to go`;
    says = `Facts: ${waiting} for the language model (${model.name}: ${speed}). Every document is searchable already.`;
  }
  const failed =
    facts.failed > 0
      ? `The model gave no usable facts for ${facts.failed} ${facts.failed === 1 ? 'document' : 'documents'} after every try (the log says why).`
      : null;
  if (!says && !failed) return null;
  return (
    <p class="muted" id="model-progress" data-model-state={model.state}>
      {says} {failed}
    </p>
  );
}
