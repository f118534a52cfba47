import { describe, expect, test } from 'bun:test';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DEFAULT_MODEL_DIR,
  DEFAULT_MODEL_FILES,
  StaticEmbedder,
  loadStaticEmbedder,
} from '../../src/embedders/static-embedder';
import parity from './fixtures/parity.json';

const embedder = loadStaticEmbedder();
const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i]!, 0);
const norm = (a: Float32Array) => Math.sqrt(dot(a, a));

describe('static embedder', () => {
  test('names the model and its size', () => {
    expect(embedder.dimensions).toBe(256);
    expect(embedder.id).toMatch(/^static:minilm-l6-static-256:[0-9a-f]{8}$/);
    expect(embedder.tokenizer.vocabSize).toBe(29525);
  });

  test('one unit vector of the right size per text, in order', () => {
    const texts = ['first', 'a second, longer text about gardening and tomatoes', 'x'.repeat(2000)];
    const vectors = embedder.embed(texts);
    expect(vectors).toHaveLength(3);
    for (const v of vectors.slice(0, 2)) {
      expect(v).toBeInstanceOf(Float32Array);
      expect(v.length).toBe(256);
      expect(norm(v)).toBeCloseTo(1, 5);
    }
    expect(dot(vectors[0]!, embedder.embedOne('first'))).toBeCloseTo(1, 6);
  });

  test('a text with no known token is the zero vector', () => {
    for (const text of ['', '   ', '😀😀', 'x'.repeat(2000)]) {
      const v = embedder.embedOne(text);
      expect(v.length).toBe(256);
      expect(v.every((x) => x === 0)).toBe(true);
    }
  });

  test('close meanings score higher than unrelated text', () => {
    const [q, good, bad] = embedder.embed([
      'What does she like for breakfast?',
      'She usually eats oatmeal with berries in the morning',
      'The car needs new tyres',
    ]);
    expect(dot(q!, good!)).toBeGreaterThan(dot(q!, bad!) + 0.2);

    const pairs: [string, string, string][] = [
      ['Where is my passport?', 'I put the travel documents in the top desk drawer.', 'The soup needs more salt.'],
      [
        'Who is allergic to peanuts?',
        'Tom carries an EpiPen because nuts make him very ill.',
        'The quarterly revenue grew by four percent.',
      ],
      [
        'When is the dentist appointment?',
        'Dental check-up booked for Tuesday at 3 pm.',
        'Jupiter has dozens of moons.',
      ],
      [
        'What music does Ana listen to?',
        'Ana loves jazz and goes to concerts every month.',
        'The printer firmware was updated.',
      ],
    ];
    for (const [query, related, unrelated] of pairs) {
      const [a, b, c] = embedder.embed([query, related, unrelated]);
      expect(dot(a!, b!)).toBeGreaterThan(dot(a!, c!));
    }
  });

  test('deterministic: same text, same vector, across calls and instances', () => {
    const text = 'Determinism matters for stored vectors: same input, same bits.';
    const a = embedder.embedOne(text);
    embedder.embed(['something else entirely', 'and more']);
    const b = embedder.embedOne(text);
    const c = StaticEmbedder.load(DEFAULT_MODEL_DIR).embedOne(text);
    expect(Array.from(b)).toEqual(Array.from(a));
    expect(Array.from(c)).toEqual(Array.from(a));
  });

  test.each(parity.cases.map((c) => [JSON.stringify(c.text).slice(0, 50), c] as const))(
    'matches model2vec inference in Python: %s',
    (_name, c) => {
      const v = embedder.embedOne(c.text);
      for (let i = 0; i < v.length; i++) expect(Math.abs(v[i]! - c.vector[i]!)).toBeLessThan(2e-6);
    },
  );

  test('loads from a directory or from the three files, with the same result', () => {
    const fromDir = StaticEmbedder.load(DEFAULT_MODEL_DIR);
    const fromFiles = StaticEmbedder.load({
      config: join(DEFAULT_MODEL_DIR, 'config.json'),
      vocab: join(DEFAULT_MODEL_DIR, 'vocab.txt'),
      embeddings: join(DEFAULT_MODEL_DIR, 'embeddings.bin'),
    });
    expect(fromDir.id).toBe(embedder.id);
    expect(fromFiles.id).toBe(embedder.id);
    expect(readFileSync(DEFAULT_MODEL_FILES.embeddings).byteLength).toBe(
      readFileSync(join(DEFAULT_MODEL_DIR, 'embeddings.bin')).byteLength,
    );
  });

  test('maxTokens truncates and changes the id', () => {
    const short = loadStaticEmbedder(undefined, { maxTokens: 3 });
    expect(short.id).toBe(`${embedder.id}:max3`);
    expect(Array.from(short.embedOne('alpha beta gamma delta epsilon'))).toEqual(
      Array.from(embedder.embedOne('alpha beta gamma')),
    );
  });

  test('refuses a damaged model', () => {
    const dir = mkdtempSync(join(tmpdir(), 'engram-model-'));
    try {
      cpSync(DEFAULT_MODEL_DIR, dir, { recursive: true });
      writeFileSync(join(dir, 'embeddings.bin'), new Uint8Array(10));
      expect(() => StaticEmbedder.load(dir)).toThrow(/embeddings file has 10 bytes/);
      cpSync(join(DEFAULT_MODEL_DIR, 'embeddings.bin'), join(dir, 'embeddings.bin'));
      writeFileSync(join(dir, 'vocab.txt'), 'a\nb\n');
      expect(() => StaticEmbedder.load(dir)).toThrow(/vocabulary has 2 tokens/);
      const config = JSON.parse(readFileSync(join(DEFAULT_MODEL_DIR, 'config.json'), 'utf8'));
      writeFileSync(join(dir, 'config.json'), JSON.stringify({ ...config, format: 'other' }));
      expect(() => StaticEmbedder.load(dir)).toThrow(/not a static embedding model/);
      expect(() => StaticEmbedder.load(join(dir, 'missing'))).toThrow();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
