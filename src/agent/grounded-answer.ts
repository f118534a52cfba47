/**
 * The grounded turn shared by ask and workflows: retrieve passages from the containers in reach,
 * number them, let the model answer from them alone, and cite the passages it used. A memory that
 * holds nothing relevant is said so, without a model call.
 */
import { z } from 'zod';
import type { ChatMessage, ModelClient } from '../language-model/model-client';
import type { SearchEngine, SearchHit } from '../search/search-engine';
import type { Container } from '../storage/store';

/** How many passages a turn reads. */
const PASSAGES_PER_TURN = 8;

const NO_ANSWER = 'My memory holds nothing that answers this.';

/** Room for a few paragraphs and the citations: an answer from the passages, not an essay. */
const ANSWER_TOKENS = 1024;

const ModelAnswer = z.object({
  answer: z.string(),
  answered: z.boolean(),
  citations: z.array(z.number().int()).default([]),
});

/** A passage the answer cites, by the number the model was shown it under. */
export interface Citation {
  n: number;
  hit: SearchHit;
}

export interface GroundedAnswer {
  answer: string;
  answered: boolean;
  citations: Citation[];
}

/** Whose memory is searched, with what, and under which trace id (the search's log lines carry it). */
export interface TurnSearch {
  search: SearchEngine;
  accountId: string;
  traceId: string;
}

/**
 * Answers `question` from passages found with `query` in `containers`. `system` is what the model
 * is told first (the ask rules, or a workflow's instruction followed by them).
 */
export async function groundedAnswer(
  turn: TurnSearch,
  model: ModelClient,
  containers: Container[],
  query: string,
  system: string,
  question: string,
): Promise<GroundedAnswer> {
  const hits = containers.length
    ? (await turn.search.search(turn.accountId, containers, query, PASSAGES_PER_TURN, turn.traceId)).hits
    : [];
  if (hits.length === 0) return { answer: NO_ANSWER, answered: false, citations: [] };
  const numbered = hits
    .map((h, i) => `[${i + 1}] (${h.container.name}${h.title ? `: ${h.title}` : ''})\n${h.content}`)
    .join('\n\n');
  const messages: ChatMessage[] = [
    { role: 'system', content: `${system}\n\n${GROUNDING_RULES}` },
    { role: 'user', content: `Passages from the person's memory:\n\n${numbered}\n\n${question}` },
  ];
  const reply = await model.chatJson(messages, ModelAnswer, { name: 'answer', maxTokens: ANSWER_TOKENS });
  if (!reply.answered) return { answer: reply.answer.trim() || NO_ANSWER, answered: false, citations: [] };
  const cited = [...new Set(reply.citations)].filter((n) => n >= 1 && n <= hits.length).sort((a, b) => a - b);
  return {
    answer: reply.answer,
    answered: true,
    citations: cited.map((n) => ({ n, hit: hits[n - 1]! })),
  };
}

const GROUNDING_RULES =
  'Use only the numbered passages; never invent facts. Reply with one JSON object: ' +
  '{"answer": string, "answered": boolean, "citations": [passage numbers used]}. ' +
  'When the passages do not contain the answer, set "answered" to false and say so in "answer".';
