/** How a key may be shown: only as its hint. Nothing else in the client formats a key. */

const HINT_HEAD = 8;
const HINT_TAIL = 4;

/**
 * The key's hint: its first 8 and last 4 characters joined by '…' (`egm_k7Qa…9fZx`), the only
 * form of a key ever shown. A key too short to keep anything hidden that way shows nothing.
 */
export function keyHint(key: string): string {
  // Below 24 characters the 12 shown would be half the key or more; real `egm_` keys are far longer.
  // The Python client draws the same line, so both show the same hint for the same key.
  if (key.length < 24) return '…';
  return `${key.slice(0, HINT_HEAD)}…${key.slice(-HINT_TAIL)}`;
}

/** Replaces every occurrence of the key in `text` with its hint, for text that may reach a message. */
export function redact(text: string, key: string): string {
  return key && text.includes(key) ? text.split(key).join(keyHint(key)) : text;
}
