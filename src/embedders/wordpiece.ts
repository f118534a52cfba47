/**
 * BERT's uncased WordPiece tokenizer, as the HF `tokenizers` library runs it for all-MiniLM-L6-v2
 * (BertNormalizer, BertPreTokenizer, WordPiece), written from its documented behaviour:
 *
 * 1. Added tokens (`[UNK]`, `[PAD]` here) are cut out of the raw text first and kept whole.
 * 2. Normalise: drop U+FFFD and control, format, private-use and surrogate characters (Cc Cf Co
 *    Cs; tab, newline and carriage return become spaces; unassigned code points stay), turn every
 *    whitespace character into a space; put spaces around CJK ideographs; strip accents (NFD,
 *    then drop nonspacing marks); lowercase one character at a time (so a word-final capital
 *    sigma becomes σ, not ς).
 * 3. Split on whitespace; every punctuation character (Unicode P*, or any ASCII punctuation such as
 *    `$` `+` `^`) is a word of its own.
 * 4. Each word: longer than `maxInputCharsPerWord` characters → `[UNK]`; otherwise greedy
 *    longest-match from the left, later pieces prefixed with `##`; if some position matches nothing,
 *    the whole word is `[UNK]`.
 *
 * Lengths and slices count Unicode code points, as the Rust implementation counts `char`s.
 * Character classes come from the runtime's Unicode tables, newer than those `tokenizers` was
 * built with: 658 of the 1,112,064 code points (recent additions to rare scripts) are classified
 * differently; docs/embedding-model.md has the check.
 */

export interface WordPieceOptions {
  /** Token strings; a token's id is its index. */
  readonly vocab: readonly string[];
  readonly unkToken: string;
  readonly continuingSubwordPrefix: string;
  readonly maxInputCharsPerWord: number;
  readonly lowercase: boolean;
  readonly stripAccents: boolean;
  readonly cleanText: boolean;
  readonly handleChineseChars: boolean;
  /** Tokens matched verbatim in the raw text before normalisation. */
  readonly addedTokens: readonly string[];
}

export interface Token {
  readonly id: number;
  readonly token: string;
}

/**
 * What clean_text removes: control, format, private-use and surrogate characters (Cc Cf Co Cs, but
 * tab, newline and carriage return become spaces) and U+FFFD. Unassigned code points (Cn) stay.
 */
const CONTROL_G = /[\p{Cc}\p{Cf}\p{Co}\p{Cs}\uFFFD]/gu;
const WHITESPACE_G = /\p{White_Space}/gu;
/** HF tokenizers' `is_chinese_char` ranges. */
const CJK_G =
  /[\u{4E00}-\u{9FFF}\u{3400}-\u{4DBF}\u{20000}-\u{2A6DF}\u{2A700}-\u{2B73F}\u{2B740}-\u{2B81F}\u{2B920}-\u{2CEAF}\u{F900}-\u{FAFF}\u{2F800}-\u{2FA1F}]/gu;
const NONSPACING_MARK_G = /\p{Mn}/gu;
/** A word: a run of non-space, non-punctuation characters, or one punctuation character. */
const WORDS_G = /[^\p{White_Space}\p{P}$+<=>^`|~]+|[\p{P}$+<=>^`|~]/gu;
/** Printable ASCII plus tab, newline and carriage return: normalisation is only lowercasing. */
const PLAIN_ASCII = /^[\x20-\x7E\t\n\r]*$/;
const ASCII_ONLY = /^\p{ASCII}*$/u;
const SURROGATE = /[\uD800-\uDFFF]/;
/** ASCII classes for the fast path: 0 part of a word, 1 whitespace, 2 punctuation. */
const ASCII_CLASS = new Uint8Array(128).map((_, c) =>
  c === 32 || (c >= 9 && c <= 13)
    ? 1
    : (c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126)
      ? 2
      : 0,
);
const WORD_CACHE_LIMIT = 200_000;

export class WordPieceTokenizer {
  readonly unkId: number;
  readonly vocabSize: number;
  private readonly ids = new Map<string, number>();
  private readonly opts: WordPieceOptions;
  /** Longest vocabulary entry, in code points, without the continuation prefix. */
  private readonly maxPieceChars: number;
  private readonly addedPattern: RegExp | null;
  private readonly cache = new Map<string, readonly number[]>();

  constructor(opts: WordPieceOptions) {
    this.opts = opts;
    this.vocabSize = opts.vocab.length;
    let longest = 1;
    opts.vocab.forEach((token, id) => {
      if (!this.ids.has(token)) this.ids.set(token, id);
      const body = token.startsWith(opts.continuingSubwordPrefix)
        ? token.slice(opts.continuingSubwordPrefix.length)
        : token;
      longest = Math.max(longest, codePointLength(body));
    });
    this.maxPieceChars = longest;
    const unk = this.ids.get(opts.unkToken);
    if (unk === undefined) throw new Error(`the vocabulary has no unknown token ${opts.unkToken}`);
    this.unkId = unk;
    for (const t of opts.addedTokens) {
      if (!this.ids.has(t)) throw new Error(`added token ${t} is not in the vocabulary`);
    }
    // Longest first, so that one added token that is a prefix of another does not shadow it.
    const added = [...opts.addedTokens].sort((a, b) => b.length - a.length);
    this.addedPattern = added.length ? new RegExp(added.map(escapeRegExp).join('|'), 'g') : null;
  }

  /** Token ids of a text, in order, `[UNK]` included; stops after `limit` ids. */
  encodeIds(text: string, limit = Infinity): number[] {
    const out: number[] = [];
    if (limit <= 0) return out;
    const pattern = this.addedPattern;
    if (pattern === null) {
      this.encodeSegment(text, out, limit);
      return out;
    }
    let last = 0;
    pattern.lastIndex = 0;
    for (let m = pattern.exec(text); m !== null; m = pattern.exec(text)) {
      if (m.index > last && this.encodeSegment(text.slice(last, m.index), out, limit)) return out;
      out.push(this.ids.get(m[0])!);
      if (out.length >= limit) return out;
      last = m.index + m[0].length;
    }
    if (last < text.length) this.encodeSegment(text.slice(last), out, limit);
    return out;
  }

  /** Tokens with their strings, for inspection and tests. */
  tokenize(text: string): Token[] {
    return this.encodeIds(text).map((id) => ({ id, token: this.opts.vocab[id]! }));
  }

  /** The normalised text (step 2 above). */
  normalize(text: string): string {
    const o = this.opts;
    if (PLAIN_ASCII.test(text)) return o.lowercase ? text.toLowerCase() : text;
    let s = text;
    if (o.cleanText) {
      s = s.replace(CONTROL_G, (c) => (c === '\t' || c === '\n' || c === '\r' ? ' ' : ''));
      s = s.replace(WHITESPACE_G, ' ');
    }
    if (o.handleChineseChars) s = s.replace(CJK_G, ' $& ');
    if (o.stripAccents) s = s.normalize('NFD').replace(NONSPACING_MARK_G, '');
    // String#toLowerCase is the Unicode default lowercasing, character by character, except for the
    // final-sigma rule; lowercasing Σ first makes it purely per character, like Rust's char::to_lowercase.
    if (o.lowercase) s = s.replaceAll('Σ', 'σ').toLowerCase();
    return s;
  }

  /** Appends a segment's ids; returns true when `limit` was reached. */
  private encodeSegment(segment: string, out: number[], limit: number): boolean {
    const normalized = this.normalize(segment);
    if (ASCII_ONLY.test(normalized)) {
      // The same split as WORDS_G, by character code.
      const n = normalized.length;
      let start = -1;
      for (let i = 0; i < n; i++) {
        const cls = ASCII_CLASS[normalized.charCodeAt(i)]!;
        if (cls === 0) {
          if (start < 0) start = i;
          continue;
        }
        if (start >= 0) {
          if (this.pushWord(normalized.slice(start, i), out, limit)) return true;
          start = -1;
        }
        if (cls === 2 && this.pushWord(normalized[i]!, out, limit)) return true;
      }
      return start >= 0 && this.pushWord(normalized.slice(start), out, limit);
    }
    WORDS_G.lastIndex = 0;
    for (let m = WORDS_G.exec(normalized); m !== null; m = WORDS_G.exec(normalized)) {
      if (this.pushWord(m[0], out, limit)) return true;
    }
    return false;
  }

  /** Appends a word's ids; returns true when `limit` was reached. */
  private pushWord(word: string, out: number[], limit: number): boolean {
    let ids = this.cache.get(word);
    if (ids === undefined) {
      ids = this.wordPiece(word);
      if (this.cache.size >= WORD_CACHE_LIMIT) this.cache.clear();
      this.cache.set(word, ids);
    }
    for (const id of ids) {
      out.push(id);
      if (out.length >= limit) return true;
    }
    return false;
  }

  private wordPiece(word: string): readonly number[] {
    const whole = this.ids.get(word);
    const chars: readonly string[] | string = SURROGATE.test(word) ? Array.from(word) : word;
    const n = chars.length;
    if (n > this.opts.maxInputCharsPerWord) return [this.unkId];
    if (whole !== undefined) return [whole];
    const slice =
      typeof chars === 'string'
        ? (a: number, b: number) => chars.slice(a, b)
        : (a: number, b: number) => chars.slice(a, b).join('');
    const prefix = this.opts.continuingSubwordPrefix;
    const pieces: number[] = [];
    let start = 0;
    while (start < n) {
      let found: number | undefined;
      let end = Math.min(n, start + this.maxPieceChars);
      for (; end > start; end--) {
        const piece = start > 0 ? prefix + slice(start, end) : slice(start, end);
        found = this.ids.get(piece);
        if (found !== undefined) break;
      }
      if (found === undefined) return [this.unkId];
      pieces.push(found);
      start = end;
    }
    return pieces;
  }
}

function codePointLength(s: string): number {
  return SURROGATE.test(s) ? Array.from(s).length : s.length;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
