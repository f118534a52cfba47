/**
 * Imported text cut to what one document may hold (the API's 1 MiB of content), and the small
 * helpers every format shares for titles, times and names.
 */
import { LIMITS } from '../limits';
import { withoutInvisible } from '../names';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Where to cut `bytes` at or before `limit`: after a blank line, else a line end, else a space,
 * else between characters.
 */
function cutAt(bytes: Uint8Array, from: number, limit: number): number {
  const floor = from + Math.floor((limit - from) / 2);
  for (const [a, b] of [
    [10, 10],
    [10, -1],
    [32, -1],
  ] as const) {
    for (let i = limit - 1; i > floor; i--) {
      if (bytes[i] === a && (b === -1 || bytes[i - 1] === b)) return i + 1;
    }
  }
  let i = limit;
  while (i > from && (bytes[i]! & 0xc0) === 0x80) i--; // not inside a character
  return i;
}

/** `text` in pieces of at most `maxBytes` of UTF-8 each, cut at paragraph, line or word boundaries where it can. */
function splitText(text: string, maxBytes: number): string[] {
  const bytes = encoder.encode(text);
  if (bytes.length <= maxBytes) return [text];
  const pieces: string[] = [];
  for (let start = 0; start < bytes.length; ) {
    const end = bytes.length - start <= maxBytes ? bytes.length : cutAt(bytes, start, start + maxBytes);
    const piece = decoder.decode(bytes.subarray(start, end)).trim();
    if (piece) pieces.push(piece);
    start = end;
  }
  return pieces;
}

/** Whether `text` fits in one document. */
export const fitsOneDocument = (text: string): boolean => encoder.encode(text).length <= LIMITS.contentBytes;

/** `text` in parts that each start with `heading(part, parts)` and fit the content limit together with it. */
export function headedParts(text: string, heading: (part: number, parts: number) => string): string[] {
  const pieces = splitText(text, LIMITS.contentBytes - encoder.encode(heading(999, 999)).length - 2);
  return pieces.map((piece, i) => `${heading(i + 1, pieces.length)}\n\n${piece}`);
}

/** The documents a text becomes: itself when it fits, else headed parts of it. */
export const documentParts = (text: string, heading: (part: number, parts: number) => string): string[] =>
  fitsOneDocument(text) ? [text] : headedParts(text, heading);

/** A title the API takes: one line, at most its 512 characters. */
export function fitTitle(title: string): string {
  const line = title.replace(/\s+/g, ' ').trim();
  return line.length <= LIMITS.titleChars ? line : `${line.slice(0, LIMITS.titleChars - 1).trimEnd()}…`;
}

/**
 * A container name made from a source's own name (a Claude project, a folder): visible characters,
 * one line, at most 200.
 */
export function containerName(name: string, fallback: string): string {
  const cleaned = withoutInvisible(name).replace(/\s+/g, ' ').trim();
  const fitted = cleaned.length <= LIMITS.nameChars ? cleaned : `${cleaned.slice(0, LIMITS.nameChars - 1).trimEnd()}…`;
  return fitted || fallback;
}

/** A description the API takes (at most 2000 characters). */
export function fitDescription(text: string): string {
  return text.length <= LIMITS.descriptionChars ? text : `${text.slice(0, LIMITS.descriptionChars - 1)}…`;
}

/** A custom_id the API takes: `prefix` and the source's id, with a digest in place of the end of one too long. */
export function customId(prefix: string, id: string): string {
  const whole = `${prefix}:${id}`;
  if (whole.length <= LIMITS.customIdChars) return whole;
  const digest = new Bun.CryptoHasher('sha256').update(whole).digest('hex').slice(0, 16);
  return `${whole.slice(0, LIMITS.customIdChars - 18)}#${digest}`;
}

/** "2024-03-01 14:02 UTC": a time as the transcripts show it. */
export function minute(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** Milliseconds from an ISO 8601 text, or null when it is none. */
export function isoMs(value: unknown): number | null {
  if (typeof value !== 'string') return null;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? null : ms;
}

/** Milliseconds from Unix seconds (ChatGPT's float times), or null. */
export function secondsMs(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? Math.round(value * 1000) : null;
}
