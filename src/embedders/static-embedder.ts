/**
 * The built-in embedder: a static (model2vec-style) model, pure TypeScript, no network, no native
 * code. A text's vector is the mean of its WordPiece tokens' vectors from a table, L2-normalised;
 * unknown tokens are left out. The shipped model (models/minilm-l6-static, see its README and
 * docs/embedding-model.md) is distilled from all-MiniLM-L6-v2: 256 dimensions, 29,525 tokens,
 * stored as 4-bit integers with one float32 scale a row.
 *
 * A model directory holds config.json, the vocabulary (one token a line, id = line number) and the
 * table (embeddings.bin; layout in config.json). `StaticEmbedder.load` takes that directory or the
 * three file paths; `DEFAULT_MODEL_FILES` are imported as files so that `bun build --compile` embeds
 * them in the executable.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import defaultConfigFile from '../../models/minilm-l6-static/config.json' with { type: 'file' };
import defaultVocabFile from '../../models/minilm-l6-static/vocab.txt' with { type: 'file' };
import defaultEmbeddingsFile from '../../models/minilm-l6-static/embeddings.bin' with { type: 'file' };
import type { Embedder } from './embedder';
import { WordPieceTokenizer } from './wordpiece';

const STATIC_MODEL_FORMAT = 'engram-static-embedding/1';

/** The shipped model's directory in the repository (not inside a compiled executable). */
export const DEFAULT_MODEL_DIR = join(import.meta.dir, '..', '..', 'models', 'minilm-l6-static');

export interface StaticModelFiles {
  readonly config: string;
  readonly vocab: string;
  readonly embeddings: string;
}

/** The shipped model's files: paths on disk, or inside the executable once compiled. */
export const DEFAULT_MODEL_FILES: StaticModelFiles = {
  // A JSON file imported `with { type: 'file' }` is a path too; TypeScript types it as the JSON.
  config: defaultConfigFile as unknown as string,
  vocab: defaultVocabFile,
  embeddings: defaultEmbeddingsFile,
};

export interface StaticModelConfig {
  readonly format: string;
  readonly name: string;
  readonly dimensions: number;
  readonly vocabSize: number;
  readonly embeddings: { readonly file: string; readonly dtype: 'int8' | 'int4' };
  readonly tokenizer: {
    readonly type: 'bert-wordpiece';
    readonly vocab: string;
    readonly cleanText: boolean;
    readonly handleChineseChars: boolean;
    readonly stripAccents: boolean;
    readonly lowercase: boolean;
    readonly unkToken: string;
    readonly continuingSubwordPrefix: string;
    readonly maxInputCharsPerWord: number;
    readonly addedTokens: readonly string[];
  };
  readonly pooling: 'mean';
  readonly dropUnknown: boolean;
  readonly maxTokens: number;
  readonly normalize: boolean;
}

export interface StaticEmbedderOptions {
  /** Tokens a text contributes at most (the model's config says 512); later tokens are ignored. */
  readonly maxTokens?: number;
}

export class StaticEmbedder implements Embedder {
  readonly id: string;
  readonly dimensions: number;
  /**
   * With the shipped model, unrelated texts sit around 0.26 (median) and relevant ones mostly
   * above 0.39 (docs/embedding-model.md).
   */
  readonly similarityFloor = 0.3;
  readonly config: StaticModelConfig;
  readonly tokenizer: WordPieceTokenizer;
  /** The table as the file holds it, not unpacked: a thread's copy is 3.7 MB at int4, not 7.6 MB. */
  private readonly table: PackedTable;
  private readonly scales: Float32Array;
  private readonly maxTokens: number;
  // Scratch for embedOne: sums, how often each token occurs in the text, and the distinct tokens.
  private readonly acc: Float64Array;
  private readonly counts: Uint32Array;
  private readonly distinct: Int32Array;

  constructor(
    config: StaticModelConfig,
    vocabText: string,
    embeddings: Uint8Array,
    options: StaticEmbedderOptions = {},
  ) {
    checkConfig(config);
    const vocab = vocabText.split(/\r?\n/);
    if (vocab.at(-1) === '') vocab.pop();
    if (vocab.length !== config.vocabSize)
      throw new Error(`vocabulary has ${vocab.length} tokens, config says ${config.vocabSize}`);
    const t = config.tokenizer;
    this.tokenizer = new WordPieceTokenizer({ ...t, vocab });
    this.config = config;
    this.dimensions = config.dimensions;
    ({ table: this.table, scales: this.scales } = readTable(config, embeddings));
    this.maxTokens = options.maxTokens ?? config.maxTokens;
    if (!(this.maxTokens > 0)) throw new Error('maxTokens must be positive');
    this.acc = new Float64Array(this.dimensions);
    this.counts = new Uint32Array(config.vocabSize);
    this.distinct = new Int32Array(Math.min(this.maxTokens, 1 << 20));
    const suffix = this.maxTokens === config.maxTokens ? '' : `:max${this.maxTokens}`;
    this.id = `static:${config.name}:${fingerprint(embeddings, vocabText)}${suffix}`;
  }

  /** Reads a model from its directory, or from the three files (default: the shipped model). */
  static load(
    source: string | StaticModelFiles = DEFAULT_MODEL_FILES,
    options: StaticEmbedderOptions = {},
  ): StaticEmbedder {
    const files = typeof source === 'string' ? filesInDirectory(source) : source;
    const config = JSON.parse(readFileSync(files.config, 'utf8')) as StaticModelConfig;
    const vocab = readFileSync(files.vocab, 'utf8');
    const bytes = readFileSync(files.embeddings);
    return new StaticEmbedder(config, vocab, new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), options);
  }

  embed(texts: string[]): Float32Array[] {
    return texts.map((text) => this.embedOne(text));
  }

  /**
   * One text's vector: L2-normalised, or all zeros when the text has no known token (an empty
   * text, or only characters outside the vocabulary), which is then similar to nothing.
   */
  embedOne(text: string): Float32Array {
    const dims = this.dimensions;
    const acc = this.acc;
    acc.fill(0);
    const ids = this.tokenizer.encodeIds(text, this.distinct.length);
    const unk = this.config.dropUnknown ? this.tokenizer.unkId : -1;
    const { table, scales, counts, distinct } = this;
    // Each distinct token's row once, times its count: texts repeat tokens a lot.
    let n = 0;
    for (const id of ids) {
      if (id !== unk && counts[id]!++ === 0) distinct[n++] = id;
    }
    for (let k = 0; k < n; k++) {
      const id = distinct[k]!;
      const weight = scales[id]! * counts[id]!;
      counts[id] = 0;
      if (table.int4) {
        // Two values a byte, the even dimension's in the low nibble, each stored plus 8.
        const bytes = table.int4;
        const base = (id * dims) >> 1;
        for (let j = 0, d = 0; d < dims; j++, d += 2) {
          const b = bytes[base + j]!;
          acc[d]! += ((b & 15) - 8) * weight;
          acc[d + 1]! += ((b >> 4) - 8) * weight;
        }
      } else {
        const base = id * dims;
        for (let d = 0; d < dims; d++) acc[d]! += table.int8[base + d]! * weight;
      }
    }
    const out = new Float32Array(dims);
    if (n === 0) return out;
    let norm = 0;
    for (let d = 0; d < dims; d++) norm += acc[d]! * acc[d]!;
    norm = Math.sqrt(norm);
    if (norm === 0) return out;
    for (let d = 0; d < dims; d++) out[d] = acc[d]! / norm;
    return out;
  }
}

/** The shipped model, or another directory / set of files. */
export function loadStaticEmbedder(
  source?: string | StaticModelFiles,
  options?: StaticEmbedderOptions,
): StaticEmbedder {
  return StaticEmbedder.load(source, options);
}

function filesInDirectory(dir: string): StaticModelFiles {
  const configPath = join(dir, 'config.json');
  const config = JSON.parse(readFileSync(configPath, 'utf8')) as StaticModelConfig;
  return {
    config: configPath,
    vocab: join(dir, config.tokenizer.vocab),
    embeddings: join(dir, config.embeddings.file),
  };
}

function checkConfig(c: StaticModelConfig): void {
  if (c.format !== STATIC_MODEL_FORMAT) throw new Error(`not a static embedding model: format ${String(c.format)}`);
  if (!Number.isInteger(c.dimensions) || c.dimensions <= 0) throw new Error('bad dimensions in model config');
  if (!Number.isInteger(c.vocabSize) || c.vocabSize <= 0) throw new Error('bad vocabSize in model config');
  if (c.tokenizer?.type !== 'bert-wordpiece') throw new Error(`unsupported tokenizer ${String(c.tokenizer?.type)}`);
  if (c.pooling !== 'mean' || c.normalize !== true)
    throw new Error('only mean pooling with normalisation is supported');
  if (c.embeddings.dtype !== 'int8' && c.embeddings.dtype !== 'int4')
    throw new Error(`unsupported table dtype ${String(c.embeddings.dtype)}`);
  // An int4 row then starts on a byte.
  if (c.embeddings.dtype === 'int4' && c.dimensions % 2 !== 0)
    throw new Error('an int4 table needs an even number of dimensions');
}

/** A table's values, views into the model file's bytes (value = integer * its row's scale). */
type PackedTable = { int4: Uint8Array; int8?: never } | { int4?: never; int8: Int8Array };

/** The table in place, and its scales (one float32 a row, after the values). */
function readTable(c: StaticModelConfig, bytes: Uint8Array): { table: PackedTable; scales: Float32Array } {
  const n = c.vocabSize * c.dimensions;
  const packed = c.embeddings.dtype === 'int8' ? n : n / 2;
  const expected = packed + 4 * c.vocabSize;
  if (bytes.byteLength !== expected)
    throw new Error(`embeddings file has ${bytes.byteLength} bytes, expected ${expected}`);
  const table: PackedTable =
    c.embeddings.dtype === 'int8'
      ? { int8: new Int8Array(bytes.buffer, bytes.byteOffset, n) }
      : { int4: bytes.subarray(0, packed) };
  const scales = new Float32Array(c.vocabSize);
  const view = new DataView(bytes.buffer, bytes.byteOffset + packed, 4 * c.vocabSize);
  for (let r = 0; r < c.vocabSize; r++) scales[r] = view.getFloat32(4 * r, true);
  return { table, scales };
}

/** FNV-1a over the model's bytes: the id changes whenever the vectors would. */
function fingerprint(embeddings: Uint8Array, vocab: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < embeddings.length; i++) h = Math.imul(h ^ embeddings[i]!, 0x01000193);
  for (let i = 0; i < vocab.length; i++) h = Math.imul(h ^ vocab.charCodeAt(i), 0x01000193);
  return (h >>> 0).toString(16).padStart(8, '0');
}
