/**
 * The size limits of what a caller may send (docs/decisions.md, "Names and defaults"), and the zod
 * check of a text's size in bytes: the operations' schemas, the importers and the body limit read
 * them here, so each door refuses at the same size.
 */
import { z } from 'zod';
import { NAME_CHARS } from './names';

export const LIMITS = {
  contentBytes: 1024 * 1024,
  metadataBytes: 16 * 1024,
  titleChars: 512,
  queryBytes: 4096,
  urlChars: 2048,
  nameChars: NAME_CHARS,
  descriptionChars: 2000,
  ruleChars: 4000,
  customIdChars: 256,
} as const;

/** A string of at most `maxBytes` bytes as UTF-8. */
export const text = (maxBytes: number) =>
  z.string().refine((s) => Buffer.byteLength(s, 'utf8') <= maxBytes, { message: `must be at most ${maxBytes} bytes` });
