/**
 * Fact extraction: from a learned document's passages (or several short documents' of one
 * conversation, read together), the facts worth keeping about the person, each tied to its
 * passage, compared with the known facts that bear on them. The model only proposes; `applyFacts`
 * writes, in the commit that ends the document's extract_facts job (src/learning/fact-lane.ts).
 */
import { z } from 'zod';
import { newId } from '../ids';
import { insertFact, rewordFact } from './queue';
import { relevantFacts } from './relevant-facts';
import type { Embedder } from '../embedders/embedder';
import type { DocumentRow, Fact, PassageInput, Repositories, Transaction } from '../storage/store';
import { answerSchema, type ChatMessage, type ModelClient } from '../language-model/model-client';

/** Known facts looked through for those that bear on a request's passages (the profile's and the container's). */
const CANDIDATE_FACTS = 400;
/** Known facts the model is shown at most: the ones nearest the passages. */
const KNOWN_FACTS = 12;
/** How many passages one request reads. */
const PASSAGES_READ = 40;
/**
 * The facts one request may propose: one for each 80 characters it reads (a chat turn holds one
 * or two), at least one, at most 16. A small model asked for "a few" writes every one it may.
 */
const CHARS_PER_FACT = 80;
const MAX_FACTS = 16;
/** The longest fact asked for, in characters. */
const FACT_CHARS = 160;
/** Tokens of one fact's JSON (its words, about four characters a token, and its fields), and of the object around them. */
const TOKENS_PER_FACT = 32 + FACT_CHARS / 4;
const ANSWER_TOKENS = 16;

/** What the answer is checked against: loosely, so that one fact naming no passage is dropped, not the answer. */
const Proposal = z.object({
  facts: z
    .array(
      z.object({
        content: z.string(),
        passage: z.number().int(),
        standing: z.boolean().default(false),
        same_as: z.number().int().nullish(),
        replaces: z.number().int().nullish(),
      }),
    )
    .default([]),
});

/**
 * What a server that takes a JSON schema constrains the answer to: only passage and known-fact
 * numbers that exist, short facts, a few of them.
 */
function constrained(passages: number, known: number, facts: number): Record<string, unknown> {
  const ref = known ? z.number().int().min(1).max(known).nullable() : z.null();
  return answerSchema(
    z.object({
      facts: z
        .array(
          z.object({
            content: z.string().min(1).max(FACT_CHARS),
            passage: z.number().int().min(1).max(passages),
            standing: z.boolean(),
            same_as: ref,
            replaces: ref,
          }),
        )
        .max(facts),
    }),
  );
}

export const EXTRACT_SYSTEM =
  'You read what a person saved and pick out the facts worth remembering about that person. ' +
  'Reply with one JSON object {"facts": [{"content": string, "passage": number, "standing": boolean, "same_as": number or null, "replaces": number or null}]}. ' +
  '"content" is one short fact in the third person; "passage" the number of the passage it comes from; "standing" true for a lasting ' +
  'truth about who the person is or what they prefer, false for a recent change or event; "same_as" the known fact (F number) it repeats; ' +
  '"replaces" the known fact (F number) it contradicts or updates. The passages are in the order they were written: when a later one ' +
  'changes what an earlier one said, give only the later fact. Leave out anything not about the person. An empty list is fine.';

/** What the commit does for one proposed fact. */
export type FactAction =
  | { kind: 'add'; content: string; standing: boolean; position: number }
  | { kind: 'replace'; factId: string; content: string; position: number };

/** A learned document and its passages, as the store holds them. */
export interface LearnedDocument {
  doc: DocumentRow;
  passages: PassageInput[];
}

export class FactExtractor {
  constructor(
    readonly model: ModelClient,
    /** The fast embedding tier, which finds the known facts that bear on a document; null: shared words do. */
    private readonly relevance: Embedder | null,
  ) {}

  /**
   * Proposes the facts of one document, or of several of one container read together (their
   * passages numbered as one list); one list of actions a document, in order. Throws ModelError
   * when the model gave no usable answer, or the signal's reason once it aborts.
   */
  async propose(store: Repositories, docs: LearnedDocument[], signal?: AbortSignal): Promise<FactAction[][]> {
    const read = docs.flatMap(({ passages }, d) => passages.map((p) => ({ d, p }))).slice(0, PASSAGES_READ);
    const known = await relevantFacts(
      await knownFacts(store, docs[0]!.doc, CANDIDATE_FACTS),
      read.map(({ p }) => p.content),
      this.relevance,
      KNOWN_FACTS,
    );
    const chars = read.reduce((n, { p }) => n + p.content.length, 0);
    const facts = Math.min(MAX_FACTS, Math.ceil(chars / CHARS_PER_FACT));
    const messages: ChatMessage[] = [
      { role: 'system', content: EXTRACT_SYSTEM },
      {
        role: 'user',
        content:
          `Known facts:\n${known.map((m, i) => `(F${i + 1}) ${m.content}`).join('\n') || '(none)'}\n\n` +
          `Passages:\n${read.map(({ p }, i) => `[${i + 1}] ${p.content}`).join('\n\n')}`,
      },
    ];
    const proposal = await this.model.chatJson(messages, Proposal, {
      name: 'facts',
      maxTokens: ANSWER_TOKENS + facts * TOKENS_PER_FACT,
      jsonSchema: constrained(read.length, known.length, facts),
      signal,
    });
    const actions: FactAction[][] = docs.map(() => []);
    for (const f of proposal.facts) {
      const content = f.content.trim();
      const source = read[f.passage - 1];
      if (!content || !source) continue; // a fact must name a passage it came from
      if (f.same_as != null && known[f.same_as - 1]) continue;
      const replaced = f.replaces != null ? known[f.replaces - 1] : undefined;
      const position = source.p.position;
      actions[source.d]!.push(
        replaced
          ? { kind: 'replace', factId: replaced.id, content, position }
          : { kind: 'add', content, standing: f.standing, position },
      );
    }
    return actions;
  }
}

/**
 * Whether facts drawn from the document may go to the profile: its container's switch (on by
 * default). The profile is outside every container, so a key with the profile tick that reaches
 * only "Notes" would read a standing fact learned from a document in "Secret".
 */
const intoProfile = async (store: Repositories, doc: DocumentRow): Promise<boolean> =>
  (await store.containers.get(doc.accountId, doc.containerId))?.learnsIntoProfile ?? true;

/**
 * The facts a new one is compared with: the profile's standing facts and the container's. A
 * container that does not learn into the profile is compared with its own alone, so that no fact
 * of it can replace (and so rewrite) a profile fact.
 */
async function knownFacts(store: Repositories, doc: DocumentRow, limit: number): Promise<Fact[]> {
  const half = limit / 2;
  const profile = (await intoProfile(store, doc)) ? (await store.facts.listStatic(doc.accountId)).slice(0, half) : [];
  return [...profile, ...(await store.facts.listRecent(doc.accountId, [doc.containerId], limit - profile.length))];
}

/**
 * Writes the proposed facts of a learned document: a standing fact to the profile's static side
 * (to the document's container instead when that does not learn into the profile), a recent one
 * to the document's container (the profile's dynamic side); a replacing fact rewrites the old
 * one, keeping its history. A fact already known word for word is not saved twice.
 */
export async function applyFacts(tx: Transaction, doc: DocumentRow, actions: FactAction[], now: number): Promise<void> {
  const promote = await intoProfile(tx, doc);
  const known = new Set((await knownFacts(tx, doc, 2000)).map((m) => norm(m.content)));
  for (const a of actions) {
    if (known.has(norm(a.content))) continue;
    known.add(norm(a.content));
    const source = { documentId: doc.id, position: a.position };
    // The switch may have been turned off since the model proposed: a profile fact is not rewritten
    // then, the fact stays in the container.
    const rewrites = a.kind === 'replace' && (promote || !(await tx.facts.get(doc.accountId, a.factId))?.static);
    if (rewrites && (await rewordFact(tx, doc.accountId, a.factId, a.content, now, source))) continue;
    const standing = promote && a.kind === 'add' && a.standing;
    await insertFact(tx, {
      id: newId('mem'),
      accountId: doc.accountId,
      containerId: standing ? null : doc.containerId,
      content: a.content,
      title: null,
      static: standing,
      createdAt: now,
      updatedAt: now,
      sourceDocumentId: doc.id,
      sourcePosition: a.position,
    });
  }
}

const norm = (s: string) =>
  s
    .trim()
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .replace(/[.!]+$/, '');
