import { describe, expect, test } from 'bun:test';
import { StaticEmbedder } from '../../src/embedders/static-embedder';
import { WordPieceTokenizer } from '../../src/embedders/wordpiece';
import parity from './fixtures/parity.json';

const model = StaticEmbedder.load();
const tokens = (text: string) => model.tokenizer.tokenize(text).map((t) => t.token);

/** A tiny vocabulary for the algorithm's corner cases. */
function tiny(extra: Partial<ConstructorParameters<typeof WordPieceTokenizer>[0]> = {}) {
  return new WordPieceTokenizer({
    vocab: [
      '[PAD]',
      '[UNK]',
      'un',
      'aff',
      '##aff',
      '##able',
      'able',
      'a',
      '##a',
      '##b',
      ',',
      '$',
      '!',
      '東',
      'σ',
      'cafe',
      '😀',
      '##😀',
    ],
    unkToken: '[UNK]',
    continuingSubwordPrefix: '##',
    maxInputCharsPerWord: 10,
    lowercase: true,
    stripAccents: true,
    cleanText: true,
    handleChineseChars: true,
    addedTokens: ['[PAD]', '[UNK]'],
    ...extra,
  });
}
const tinyTokens = (text: string, t = tiny()) => t.tokenize(text).map((x) => x.token);

describe('BERT WordPiece tokenizer (uncased)', () => {
  test('lowercases and splits on whitespace and punctuation', () => {
    expect(tokens('What does she like for breakfast?')).toEqual([
      'what',
      'does',
      'she',
      'like',
      'for',
      'breakfast',
      '?',
    ]);
    expect(tokens("Don't stop-believing...")).toEqual(['don', "'", 't', 'stop', '-', 'believing', '.', '.', '.']);
    expect(tokens('tabs\tnew\nlines\r\nend')).toEqual(['tab', '##s', 'new', 'lines', 'end']);
  });

  test('ASCII symbols that are not Unicode punctuation are still split off', () => {
    expect(tokens('a$b+c<d=e>f^g`h|i~j')).toEqual([
      'a',
      '$',
      'b',
      '+',
      'c',
      '<',
      'd',
      '=',
      'e',
      '>',
      'f',
      '^',
      'g',
      '`',
      'h',
      '|',
      'i',
      '~',
      'j',
    ]);
  });

  test('strips accents', () => {
    expect(tokens('Crème brûlée at the Café Münster, São Paulo, İstanbul')).toEqual([
      'cr',
      '##eme',
      'br',
      '##ule',
      '##e',
      'at',
      'the',
      'cafe',
      'munster',
      ',',
      'sao',
      'paulo',
      ',',
      'istanbul',
    ]);
  });

  test('greedy longest-match word pieces with ## continuations', () => {
    expect(tokens('unaffable')).toEqual(['una', '##ffa', '##ble']);
    expect(tinyTokens('unaffable')).toEqual(['un', '##aff', '##able']);
    expect(tinyTokens('affaab')).toEqual(['aff', '##a', '##a', '##b']);
  });

  test('a word with an unmatched piece, or too long, is one [UNK]', () => {
    expect(tinyTokens('unaffablez, able')).toEqual(['[UNK]', ',', 'able']);
    expect(tinyTokens('a'.repeat(10))).toEqual(['a', ...Array(9).fill('##a')]);
    expect(tinyTokens('a'.repeat(11))).toEqual(['[UNK]']); // 11 characters > maxInputCharsPerWord 10
    expect(tokens('x'.repeat(101))).toEqual(['[UNK]']);
  });

  test('CJK ideographs are words of their own; other scripts decompose', () => {
    expect(tinyTokens('a東a')).toEqual(['a', '東', 'a']);
    expect(tokens('北京 and Москва')).toEqual(['北', '京', 'and', 'м', '##о', '##с', '##к', '##в', '##а']);
  });

  test('lowercases character by character: a final capital sigma is σ', () => {
    expect(tinyTokens('Σ')).toEqual(['σ']);
    expect(tokens('ΣΊΣΥΦΟΣ')).toEqual(['σ', '##ι', '##σ', '##υ', '##φ', '##ο', '##σ']);
  });

  test('control and format characters are removed, other whitespace splits', () => {
    expect(tinyTokens('un\u200baff\u00adable')).toEqual(['un', '##aff', '##able']);
    expect(tinyTokens('un\u0000able\ufffd')).toEqual(['un', '##able']);
    expect(tinyTokens('a\u00a0a\u3000a')).toEqual(['a', 'a', 'a']);
  });

  test('counts code points, not UTF-16 units', () => {
    // 10 code points (11 UTF-16 units) is within maxInputCharsPerWord 10; 11 code points is not.
    expect(tinyTokens('a'.repeat(9) + '😀')).toEqual(['a', ...Array(8).fill('##a'), '##😀']);
    expect(tinyTokens('a'.repeat(10) + '😀')).toEqual(['[UNK]']);
    expect(tinyTokens('😀😀 😀')).toEqual(['😀', '##😀', '😀']);
  });

  test('added tokens are matched in the raw text', () => {
    expect(tokens('x[UNK]y [PAD] [CLS]')).toEqual(['x', '[UNK]', 'y', '[PAD]', '[', 'cl', '##s', ']']);
    expect(tinyTokens('A[PAD]able')).toEqual(['a', '[PAD]', 'able']);
  });

  test('empty and blank texts have no tokens', () => {
    expect(tokens('')).toEqual([]);
    expect(tokens(' \t\n ')).toEqual([]);
  });

  test('encodeIds stops at the limit', () => {
    expect(model.tokenizer.encodeIds('one two three four', 2)).toHaveLength(2);
    expect(model.tokenizer.encodeIds('one two three four', 2)).toEqual(model.tokenizer.encodeIds('one two'));
  });

  test.each(parity.cases.map((c) => [JSON.stringify(c.text).slice(0, 50), c] as const))(
    'matches the HF tokenizers output: %s',
    (_name, c) => {
      const got = model.tokenizer.tokenize(c.text);
      expect(got.map((t) => t.token)).toEqual(c.tokens);
      expect(got.map((t) => t.id)).toEqual(c.ids);
    },
  );
});
