/**
 * Splits a document's text into passages for retrieval: paragraphs first, sentences when a
 * paragraph is too long, packed up to a target size, each passage starting with the last sentence
 * of the one before so that a fact on a boundary is found whole.
 */
import type { PassageInput } from '../storage/store';

/** A passage's size to pack up to; a paragraph no longer than this is never cut (imported transcripts rely on it). */
export const TARGET_CHARS = 800;
const MAX_CHARS = 1200;

const segmenter = new Intl.Segmenter('en', { granularity: 'sentence' });

/** Sentences of a paragraph; a sentence longer than `max` characters is cut at word boundaries. */
export function sentences(paragraph: string, max = MAX_CHARS): string[] {
  const out: string[] = [];
  for (const { segment } of segmenter.segment(paragraph)) {
    let s = segment.trim();
    while (s.length > max) {
      const cut = s.lastIndexOf(' ', max) > max / 2 ? s.lastIndexOf(' ', max) : max;
      out.push(s.slice(0, cut).trim());
      s = s.slice(cut).trim();
    }
    if (s) out.push(s);
  }
  return out;
}

export function splitPassages(text: string, title: string | null): PassageInput[] {
  const paragraphs = text
    .replace(/\r\n?/g, '\n')
    .split(/\n\s*\n/)
    .map((p) => p.replace(/\s+/g, ' ').trim())
    .filter(Boolean);
  const passages: string[] = [];
  let current: string[] = [];
  let size = 0;
  let fresh = false; // whether `current` holds more than the overlap carried from the last passage
  for (const paragraph of paragraphs) {
    for (const unit of paragraph.length <= TARGET_CHARS ? [paragraph] : sentences(paragraph)) {
      if (fresh && size + unit.length > TARGET_CHARS) {
        passages.push(current.join(' '));
        // Overlap: carry the last sentence into the next passage when it is short enough to share.
        const last = current.at(-1)!;
        current = last.length < TARGET_CHARS / 3 ? [last] : [];
        size = current.length ? last.length + 1 : 0;
      }
      current.push(unit);
      size += unit.length + 1;
      fresh = true;
    }
  }
  if (fresh) passages.push(current.join(' '));
  return passages.map((content, position) => ({ position, title, content }));
}
