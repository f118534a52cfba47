/**
 * A conversation as a document's text. Each message becomes paragraphs that each begin with who
 * said it and when ("User, 2024-03-01 14:02 UTC: ..."), every one short enough that learning never
 * cuts it (src/learning/split-passages.ts packs whole paragraphs up to TARGET_CHARS): so whichever
 * passage a search finds, it says who spoke and when.
 */
import { sentences, TARGET_CHARS } from '../learning/split-passages';
import type { ContainerTarget, DocumentItem } from './items';
import type { SourcePosition } from './problem';
import { customId, fitsOneDocument, fitTitle, headedParts, minute } from './text-parts';

export interface Turn {
  speaker: string;
  /** When it was said (ms), when the source says. */
  at: number | null;
  text: string;
}

/** Room for a speaker's line under the passage size, and the most of a message one paragraph carries. */
const PARAGRAPH_CHARS = TARGET_CHARS - 20;

/**
 * A line that is a Markdown rule (`---`, `***`, `___`), or `===`: a break between sections, which
 * on the line after a paragraph would make that paragraph a heading.
 */
const RULE = /^ {0,3}(?:([-*_])(?:[ \t]*\1){2,}|=+)[ \t]*$/;

/**
 * A message's text as pieces of at most `max` characters: its paragraphs, packed one a line (a
 * blank line between them would let learning cut a message from its speaker); a long one cut at
 * sentences. A rule opening a paragraph ends the piece instead, and goes.
 */
function pieces(text: string, max: number): string[] {
  const out: string[] = [];
  let current = '';
  for (let paragraph of text
    .split(/\n\s*\n/)
    .map((p) => p.trim())
    .filter(Boolean)) {
    const rule = RULE.exec(paragraph.split('\n', 1)[0]!);
    if (rule) {
      if (current) out.push(current);
      current = '';
      paragraph = paragraph.slice(rule[0].length).trim();
      if (!paragraph) continue;
    }
    for (const unit of paragraph.length <= max ? [paragraph] : sentences(paragraph, max)) {
      const joined = current ? `${current}${unit.length < paragraph.length ? ' ' : '\n'}${unit}` : unit;
      if (joined.length <= max) {
        current = joined;
        continue;
      }
      out.push(current);
      current = unit;
    }
  }
  if (current) out.push(current);
  return out;
}

/** The paragraphs of one turn, each opening with its speaker and time. */
function turnParagraphs(turn: Turn): string[] {
  const who = turn.at === null ? turn.speaker : `${turn.speaker}, ${minute(turn.at)}`;
  const max = PARAGRAPH_CHARS - who.length;
  return pieces(turn.text, max).map((piece, i) => `${i === 0 ? who : `${who} (continued)`}: ${piece}`);
}

/**
 * The conversation's document text, in as many parts as the content limit needs (one, nearly
 * always): its title and a line on where it comes from first, then every turn in order.
 */
function transcript(title: string, about: string, turns: Turn[]): string[] {
  const body = turns.flatMap(turnParagraphs).join('\n\n');
  const whole = `${title}\n${about}\n\n${body}`;
  return fitsOneDocument(whole)
    ? [whole]
    : headedParts(body, (part, parts) => `${title} (part ${part} of ${parts})\n${about}`);
}

/** A conversation of a chat product, as its reader found it. */
export interface Conversation {
  product: 'ChatGPT' | 'Claude';
  /** Its id in the source: its custom_id's, with `#2`, `#3`… for the parts of a long one. */
  id: string;
  /** Its title as the source gives it (fitted here). */
  title: string | null | undefined;
  turns: Turn[];
  createdAt: number;
  updatedAt: number;
  container: ContainerTarget;
  /** Where it would land had the source not said (see DocumentItem.fallback). */
  fallback?: ContainerTarget;
  at: SourcePosition;
  /** What this source alone says of it, for the documents' metadata. */
  metadata: Record<string, unknown>;
}

/** A conversation as its document: one, or its headed parts when it is over a document's size. */
export function* conversationDocuments(c: Conversation): Generator<DocumentItem> {
  const source = c.product.toLowerCase();
  const title = fitTitle(c.title?.trim() || 'Untitled conversation');
  const parts = transcript(title, `A ${c.product} conversation, started ${minute(c.createdAt)}.`, c.turns);
  for (const [i, content] of parts.entries()) {
    yield {
      kind: 'document',
      container: c.container,
      fallback: c.fallback,
      global: true,
      at: c.at,
      content,
      createdAt: c.createdAt,
      updatedAt: c.updatedAt,
      customId: customId(source, i === 0 ? c.id : `${c.id}#${i + 1}`),
      title: parts.length > 1 ? fitTitle(`${title} (part ${i + 1} of ${parts.length})`) : title,
      metadata: {
        source,
        conversation_id: c.id,
        created_at: new Date(c.createdAt).toISOString(),
        updated_at: new Date(c.updatedAt).toISOString(),
        messages: c.turns.length,
        ...c.metadata,
        ...(parts.length > 1 ? { part: i + 1, parts: parts.length } : {}),
      },
    };
  }
}
