/**
 * The conversational benchmark's data set (bench/conversations/generate.ts) and its scoring
 * (bench/lib/retrieval-eval.ts): its size and shape, evidence that exists and belongs to the person
 * asked about, and the same bytes for the same seed.
 */
import { describe, expect, it } from 'bun:test';
import { generateConversations, turnDocument } from '../../bench/conversations/generate';
import { scoreRanking } from '../../bench/lib/retrieval-eval';

const data = generateConversations(17);
const byId = new Map(data.turns.map((t) => [t.id, t]));

describe('conversational benchmark data', () => {
  it('holds at least 5,000 turns over several long conversations of two recurring speakers', () => {
    expect(data.turns.length).toBeGreaterThanOrEqual(5000);
    const conversations = new Map<number, Set<string>>();
    for (const t of data.turns)
      (conversations.get(t.conversation) ?? conversations.set(t.conversation, new Set()).get(t.conversation)!).add(
        t.speaker,
      );
    expect(conversations.size).toBeGreaterThanOrEqual(5);
    for (const speakers of conversations.values()) expect(speakers.size).toBe(2);
    expect(new Set(data.turns.map((t) => `${t.conversation}/${t.session}`)).size).toBeGreaterThanOrEqual(
      conversations.size * 20,
    );
  });

  it('renders each turn as a dated chat line with every placeholder filled', () => {
    for (const t of data.turns) {
      expect(turnDocument(t)).toMatch(
        /^\[\d{1,2} (January|February|March|April|May|June|July|August|September|October|November|December) 20\d\d\] [A-Z][a-z]+: \S/,
      );
      expect(t.text).not.toMatch(/[{}]/);
    }
    for (const q of data.questions) expect(`${q.question} ${q.answer}`).not.toMatch(/[{}]|undefined/);
  });

  it('asks at least 1,000 questions of every kind, each with evidence turns that exist in its conversation', () => {
    expect(data.questions.length).toBeGreaterThanOrEqual(1000);
    expect(new Set(data.questions.map((q) => q.kind))).toEqual(
      new Set(['single-hop', 'multi-hop', 'temporal', 'open-domain']),
    );
    expect(new Set(data.questions.map((q) => q.id)).size).toBe(data.questions.length);
    for (const q of data.questions) {
      expect(q.evidence.length).toBeGreaterThanOrEqual(q.kind === 'multi-hop' ? 2 : 1);
      expect(new Set(q.evidence).size).toBe(q.evidence.length);
      for (const id of q.evidence) expect(byId.get(id)?.conversation).toBe(q.conversation);
    }
  });

  it('names in each question the speaker who told its evidence, who says "I" rather than the name', () => {
    for (const q of data.questions) {
      for (const id of q.evidence) {
        const turn = byId.get(id)!;
        expect(q.question).toContain(turn.speaker);
        expect(turn.text).not.toContain(turn.speaker);
      }
    }
  });

  it('makes the same bytes from the same seed, and another data set from another seed', () => {
    const again = JSON.stringify(generateConversations(17));
    expect(again).toBe(JSON.stringify(data));
    expect(JSON.stringify(generateConversations(18))).not.toBe(again);
  });
});

describe('benchmark scoring', () => {
  it('scores recall as the share of evidence documents in the top k, each document once', () => {
    const s = scoreRanking(['x', 'a', 'x', 'y', 'b', 'z', 'w', 'v', 'u', 't', 's', 'c'], ['a', 'b', 'c']);
    expect(s.recallAt1).toBe(0);
    expect(s.recallAt5).toBeCloseTo(2 / 3);
    // 'c' is the eleventh distinct document: outside the top 10.
    expect(s.recallAt10).toBeCloseTo(2 / 3);
    expect(s.mrrAt10).toBe(0.5);
  });

  it('gives MRR 0 when no evidence is in the top 10', () => {
    expect(scoreRanking(['x', 'y'], ['a']).mrrAt10).toBe(0);
  });
});
