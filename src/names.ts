/**
 * Names people read on their pages and in their apps' answers (containers, keys, shares, the apps
 * that connect): which characters a name may hold, and when two names are the same name.
 */

/** The longest name, in UTF-16 code units as zod counts them. */
export const NAME_CHARS = 200;

/**
 * Blanks that are not the ordinary space: other space separators (U+3000, U+00A0, ...), the braille
 * blank and the Hangul fillers.
 */
const BLANK = String.raw`\p{Zs}\u2800\u115F\u1160\u3164\uFFA0`;
/**
 * What does not show, or shows as something it is not: controls, format characters (bidi
 * overrides and isolates, marks, zero-width spaces, the BOM, tags), line and paragraph separators,
 * Unicode's Default_Ignorable_Code_Point set (U+034F, U+17B4, variation selectors, ...), and the
 * blanks above.
 */
const HIDDEN_CLASS = String.raw`\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}${BLANK}`;
/** A character that shows. */
const SHOWN = String.raw`[^\s${HIDDEN_CLASS}]`;
const SELECTOR = String.raw`[\uFE00-\uFE0F\u{E0100}-\u{E01EF}]`;
const JOINER = String.raw`[\u200C\u200D]`;

/**
 * A hidden character where it is not needed. Three are needed in context, and stay: the joiners
 * U+200C/U+200D between two characters that show (Persian and Indic scripts, emoji sequences such
 * as 👩‍💻; after a variation selector too, as in 🏳️‍🌈), and a variation selector right after a
 * character that shows (❤️). The ordinary space is not hidden.
 */
const HIDDEN = new RegExp(
  String.raw`(?<!${SHOWN}|${SHOWN}${SELECTOR})${JOINER}|${JOINER}(?!${SHOWN})|(?<!${SHOWN})${SELECTOR}|(?![ \u200C\u200D\uFE00-\uFE0F\u{E0100}-\u{E01EF}])[${HIDDEN_CLASS}]`,
  'gu',
);

/** The first hidden character of `name` where it is not needed, as "U+3164"; null when there is none. */
export function hiddenCharacter(name: string): string | null {
  HIDDEN.lastIndex = 0;
  const found = HIDDEN.exec(name);
  return found ? `U+${found[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}` : null;
}

/**
 * `name` as it looks: blanks made ordinary spaces, every other hidden character where it is not
 * needed dropped, runs of spaces made one, trimmed. For names an outside party chose (an app's
 * `client_name`), and for names stored before the rule.
 */
export function withoutInvisible(name: string): string {
  return name
    .replace(HIDDEN, (c) => (IS_BLANK.test(c) ? ' ' : ''))
    .replace(/ {2,}/g, ' ')
    .trim();
}

const IS_BLANK = new RegExp(`^[${BLANK}]$`, 'u');

const BLANKS = new RegExp(`[${BLANK}]`, 'gu');
const IGNORABLE = /[\p{Default_Ignorable_Code_Point}\p{Cc}\p{Cf}]/gu;

/**
 * What two names must not share to be told apart: NFKC (full-width letters, ligatures, other
 * spaces), case folded, without default-ignorable characters, spaces collapsed. "Notes",
 * "NOTES", "Ｎｏｔｅｓ" and "Notes" with a joiner inside are one name.
 */
export function nameKey(name: string): string {
  const folded = name
    .replace(BLANKS, ' ')
    .normalize('NFKC')
    .replace(IGNORABLE, '')
    .toUpperCase()
    .toLowerCase()
    .normalize('NFKC');
  return folded.replace(/\s+/gu, ' ').trim();
}
