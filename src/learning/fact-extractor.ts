/**
 * Fact extraction, part of the learning turn: from a learned document's passages, the facts worth
 * keeping about the person, each tied to its passage, compared with what is already known. The
 * model only proposes; `applyFacts` writes, inside the learning job's commit.
 */
import { z } from 'zod';
import { newId } from '../ids';
import { insertFact, rewordFact } from './queue';
import type { Logger } from '../log';
import type { DocumentRow, Fact, PassageInput, Repositories, Transaction } from '../storage/store';
import type { ChatMessage, ModelClient } from '../language-model/model-client';

/** How many known facts (static and the container's) the model compares new ones with. */
const KNOWN_FACTS = 60;
/** How many passages of one document are read for facts. */
const PASSAGES_READ = 40;

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

export const EXTRACT_SYSTEM =
  'You read a document a person saved and pick out the facts worth remembering about that person. ' +
  'Reply with one JSON object {"facts": [{"content": string, "passage": number, "standing": boolean, "same_as": number or null, "replaces": number or null}]}. ' +
  '"content" is one short fact in the third person; "passage" the number of the passage it comes from; "standing" true for a lasting ' +
  'truth about who the person is or what they prefer, false for a recent change or event; "same_as" the known fact (F number) it repeats; ' +
  '"replaces" the known fact (F number) it contradicts or updates. Leave out anything not about the person. An empty list is fine.';

/** What the commit does for one proposed fact. */
export type FactAction =
  | { kind: 'add'; content: string; standing: boolean; position: number }
  | { kind: 'replace'; factId: string; content: string; position: number };

export class FactExtractor {
  constructor(
    private readonly model: ModelClient,
    private readonly log: Logger,
  ) {}

  /**
   * Proposes the document's facts. A model that fails leaves the document learned without facts
   * (learning still indexes); the failure is logged, not raised.
   */
  async propose(store: Repositories, doc: DocumentRow, passages: PassageInput[]): Promise<FactAction[]> {
    const known = await knownFacts(store, doc, KNOWN_FACTS);
    const read = passages.slice(0, PASSAGES_READ);
    const messages: ChatMessage[] = [
      { role: 'system', content: EXTRACT_SYSTEM },
      {
        role: 'user',
        content:
          `Known facts:\n${known.map((m, i) => `(F${i + 1}) ${m.content}`).join('\n') || '(none)'}\n\n` +
          `Document passages:\n${read.map((p, i) => `[${i + 1}] ${p.content}`).join('\n\n')}`,
      },
    ];
    let proposal: z.infer<typeof Proposal>;
    try {
      proposal = await this.model.chatJson(messages, Proposal);
    } catch (err) {
      this.log.warn('fact extraction skipped: the model gave no usable answer', {
        document: doc.id,
        error: String(err),
      });
      return [];
    }
    const actions: FactAction[] = [];
    for (const f of proposal.facts) {
      const content = f.content.trim();
      const passage = read[f.passage - 1];
      if (!content || !passage) continue; // a fact must name a passage it came from
      if (f.same_as != null && known[f.same_as - 1]) continue;
      const replaced = f.replaces != null ? known[f.replaces - 1] : undefined;
      actions.push(
        replaced
          ? { kind: 'replace', factId: replaced.id, content, position: passage.position }
          : { kind: 'add', content, standing: f.standing, position: passage.position },
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
