/**
 * The strong embedder: all-MiniLM-L6-v2 (a 6-layer transformer, 384 dimensions) as an int8 ONNX
 * file run by ONNX Runtime on the CPU, computing what sentence-transformers computes for that model:
 * BERT uncased WordPiece with [CLS] … [SEP] and at most 256 tokens, the transformer, mean pooling
 * over the attention mask, L2 normalisation. The shipped model is models/minilm-l6-int8 (its README
 * and docs/embedding-model.md). Nothing is loaded at import: `loadOnnxEmbedder()` reads the model
 * and the native runtime when called, on whichever thread calls it.
 */
import { join } from 'node:path';
import defaultConfigFile from '../../models/minilm-l6-int8/config.json' with { type: 'file' };
import defaultVocabFile from '../../models/minilm-l6-int8/vocab.txt' with { type: 'file' };
import defaultModelFile from '../../models/minilm-l6-int8/model.onnx' with { type: 'file' };
import type { Embedder } from './embedder';
import { gatherBeforeDequantize } from './onnx-gather-first';
import { fuseGelu } from './onnx-gelu';
import { int8ProductsExact } from './int8-support';
import { int8MatMul } from './onnx-int8-matmul';
import { attachOnnxSession, type OnnxSession, openOnnxSession, type SharedOnnxSession } from './onnx-runtime';
import { dropSoftmaxNanGuard } from './onnx-softmax-guard';
import { WordPieceTokenizer, type WordPieceOptions } from './wordpiece';

const ONNX_MODEL_FORMAT = 'engram-onnx-embedding/1';

/** The shipped model's directory in the repository (not inside a compiled executable). */
export const DEFAULT_ONNX_MODEL_DIR = join(import.meta.dir, '..', '..', 'models', 'minilm-l6-int8');

export interface OnnxModelFiles {
  readonly config: string;
  readonly vocab: string;
  readonly model: string;
}

/** The shipped model's files: paths on disk, or inside the executable once compiled. */
const DEFAULT_ONNX_MODEL_FILES: OnnxModelFiles = {
  // A JSON file imported `with { type: 'file' }` is a path too; TypeScript types it as the JSON.
  config: defaultConfigFile as unknown as string,
  vocab: defaultVocabFile,
  model: defaultModelFile,
};

export interface OnnxModelConfig {
  readonly format: string;
  readonly name: string;
  readonly dimensions: number;
  readonly model: { readonly file: string; readonly inputs: readonly string[]; readonly output: string };
  readonly tokenizer: Omit<WordPieceOptions, 'vocab'> & {
    readonly type: 'bert-wordpiece';
    readonly vocab: string;
    readonly clsToken: string;
    readonly sepToken: string;
    readonly padToken: string;
  };
  readonly maxTokens: number;
  readonly pooling: 'mean';
  readonly normalize: boolean;
}

export interface OnnxEmbedderOptions {
  /** Threads one inference may use (default 1: the learning worker keeps to one core). */
  readonly threads?: number;
  /** Tokens a text gets at most, [CLS] and [SEP] included (default: the config's 256). */
  readonly maxTokens?: number;
  /**
   * A batch holds at most this many rows × padded length (default 256, one text of the longest):
   * longer texts go in smaller batches. Larger batches raise the memory a run needs at its peak and
   * gain nothing on one thread: 512 refined 5–15 % fewer documents a CPU-second than 256 (less
   * padding in a refinement step's few units, and a layer's activations stay in the core's cache);
   * docs/embedding-model.md has the figures.
   */
  readonly batchTokens?: number;
  /**
   * The id `identify()` gave for the same files in this process: the model's 23 MB are then not
   * hashed again (~80 ms of CPU on the way to a thread's first vector).
   */
  readonly knownId?: string;
  /**
   * Awaited before each model run. The learning thread waits there while searches run
   * (search/search-activity.ts): the model is memory-bound and would slow them.
   */
  readonly beforeRun?: () => Promise<void>;
  /**
   * Other threads that run batches of the same session beside the calling thread (refinement's
   * second core: learning/refine-lane.ts), made when the model is taken up and closed with it.
   */
  readonly lanes?: () => OnnxLane[];
}

/** A thread that runs batches of encoded texts (`OnnxEmbedder.runEncoded`) on the same session. */
export interface OnnxLane {
  run(rows: number[][]): Promise<Float32Array[]>;
  /** True once the lane can run nothing more (its thread died); a lane that refused one batch is not. */
  readonly dead: boolean;
  close(): void;
}

const DEFAULT_BATCH_TOKENS = 256;

/** Whether the products run in int8 here (int8-support.ts says where they would saturate). */
const INT8 = int8ProductsExact();
/**
 * How the model's products are computed (int8MatMul at load, or the file's float arithmetic),
 * hashed into the id with the files: the vectors differ, so a store's vectors made the other way
 * are redone (float keeps the id it had before int8 came).
 */
const ARITHMETIC = INT8 ? 'int8-matmul' : '';

/**
 * ONNX Runtime fuses each residual Add with the LayerNormalization after it into one
 * SkipLayerNormalization, whose CPU kernel took 11 % of a refinement batch, ~3 ns an element against
 * ~0.4 for its two parts: kept apart, refinement takes 8 % less CPU and a query 10 % less, with the
 * same vectors to 1e-7 (docs/embedding-model.md).
 */
const SESSION_CONFIG = { 'optimization.disable_specified_optimizers': 'SkipLayerNormFusion' };
/** With all-MiniLM-L6-v2, unrelated texts mostly sit below 0.15 (docs/embedding-model.md). */
const SIMILARITY_FLOOR = 0.15;

/** What names a model's vectors, known before it is opened. */
export interface EmbedderIdentity {
  id: string;
  dimensions: number;
  similarityFloor: number;
}

/**
 * An opened model as another thread of this process takes it up (`OnnxEmbedder.attach`): plain
 * data, for `postMessage`. The thread that opened it keeps it open while others use it.
 */
export interface SharedOnnxEmbedder {
  readonly session: SharedOnnxSession;
  /** What the opener's id was made of (see the constructor), so the taker's id is the same. */
  readonly fingerprint: string;
  readonly maxTokens: number;
}

export class OnnxEmbedder implements Embedder {
  readonly id: string;
  readonly dimensions: number;
  readonly similarityFloor = SIMILARITY_FLOOR;
  readonly config: OnnxModelConfig;
  readonly tokenizer: WordPieceTokenizer;
  readonly maxTokens: number;
  private readonly session: OnnxSession;
  private readonly fingerprint: string;
  private readonly batchTokens: number;
  private readonly beforeRun: (() => Promise<void>) | undefined;
  private readonly lanes: OnnxLane[];
  private readonly cls: number;
  private readonly sep: number;
  private readonly pad: number;

  /**
   * `fingerprint` names the model's bytes and vocabulary (load() hashes both), so the id changes
   * whenever the vectors would.
   */
  constructor(
    config: OnnxModelConfig,
    vocabText: string,
    session: OnnxSession,
    fingerprint: string,
    options: OnnxEmbedderOptions = {},
  ) {
    checkConfig(config, session);
    const vocab = vocabText.split(/\r?\n/);
    if (vocab.at(-1) === '') vocab.pop();
    this.tokenizer = new WordPieceTokenizer({ ...config.tokenizer, vocab });
    const idOf = (token: string) => {
      const id = vocab.indexOf(token);
      if (id < 0) throw new Error(`the vocabulary has no ${token}`);
      return id;
    };
    this.cls = idOf(config.tokenizer.clsToken);
    this.sep = idOf(config.tokenizer.sepToken);
    this.pad = idOf(config.tokenizer.padToken);
    this.config = config;
    this.session = session;
    this.fingerprint = fingerprint;
    this.dimensions = config.dimensions;
    this.maxTokens = options.maxTokens ?? config.maxTokens;
    if (!Number.isInteger(this.maxTokens) || this.maxTokens < 2)
      throw new Error('maxTokens must be at least 2 ([CLS] and [SEP])');
    this.batchTokens = options.batchTokens ?? DEFAULT_BATCH_TOKENS;
    if (!(this.batchTokens >= this.maxTokens)) throw new Error('batchTokens must be at least maxTokens');
    this.beforeRun = options.beforeRun;
    this.lanes = options.lanes?.() ?? [];
    const suffix = this.maxTokens === config.maxTokens ? '' : `:max${this.maxTokens}`;
    this.id = `onnx:${config.name}:${fingerprint}${suffix}`;
  }

  /** Reads a model from its directory or its three files (default: the shipped model) and opens it. */
  static async load(
    source: string | OnnxModelFiles = DEFAULT_ONNX_MODEL_FILES,
    options: OnnxEmbedderOptions = {},
  ): Promise<OnnxEmbedder> {
    const { config, vocab, model, fingerprint } = await loadableModel(source, options.knownId);
    // The file's bytes and the rewrite's intermediate copy (~46 MB) are garbage now: collected
    // before ONNX Runtime parses and folds the model, they no longer add to that moment's peak.
    Bun.gc(true);
    const session = await openOnnxSession(model, { threads: options.threads ?? 1, config: SESSION_CONFIG });
    return new OnnxEmbedder(config, vocab, session, fingerprint, options);
  }

  /**
   * The shipped model (or the one `source` names) as another thread opened it: this thread reads only
   * the configuration and the vocabulary, and runs the other's session, so the process holds the
   * model's weights once. `close()` lets go of nothing but this thread's tokenizer.
   */
  static async attach(
    shared: SharedOnnxEmbedder,
    options: Pick<OnnxEmbedderOptions, 'beforeRun' | 'lanes'> = {},
    source: string | OnnxModelFiles = DEFAULT_ONNX_MODEL_FILES,
  ): Promise<OnnxEmbedder> {
    const { config, vocab } = await readTokenizer(source);
    return new OnnxEmbedder(config, vocab, await attachOnnxSession(shared.session), shared.fingerprint, {
      ...options,
      maxTokens: shared.maxTokens,
    });
  }

  /** What another thread needs to run this model without loading it again (see `attach`). */
  share(): SharedOnnxEmbedder {
    return { session: this.session.shared, fingerprint: this.fingerprint, maxTokens: this.maxTokens };
  }

  /**
   * The id and dimensions `load` would give, without opening the model (tens of milliseconds, not
   * hundreds): a server checks its stored vectors against them and starts while the model loads.
   */
  static async identify(source: string | OnnxModelFiles = DEFAULT_ONNX_MODEL_FILES): Promise<EmbedderIdentity> {
    const { config, fingerprint } = await readModel(source);
    return {
      id: `onnx:${config.name}:${fingerprint}`,
      dimensions: config.dimensions,
      similarityFloor: SIMILARITY_FLOOR,
    };
  }

  /** A text's model input: [CLS], its first maxTokens − 2 WordPiece ids, [SEP] (as sentence-transformers truncates). */
  encode(text: string): number[] {
    return [this.cls, ...this.tokenizer.encodeIds(text, this.maxTokens - 2), this.sep];
  }

  /**
   * One L2-normalised vector per text, in order. Texts are sorted by length and run in batches of
   * like lengths padded to their longest, so many short sentences cost little padding. Inference
   * runs on the calling thread and holds it (ONNX Runtime's Run is synchronous): call it from a
   * worker, not from the thread that answers HTTP. With `lanes`, each lane takes the next batch as
   * it is free, the calling thread among them.
   */
  async embed(texts: string[]): Promise<Float32Array[]> {
    const encoded = texts.map((t) => this.encode(t));
    const order = encoded.map((_, i) => i).sort((a, b) => encoded[a]!.length - encoded[b]!.length);
    const batches: number[][] = [];
    for (let start = 0; start < order.length; ) {
      // Sorted ascending, so the batch's last row is its longest: grow while rows × longest fits.
      let end = start + 1;
      while (end < order.length && (end - start + 1) * encoded[order[end]!]!.length <= this.batchTokens) end++;
      batches.push(order.slice(start, end));
      start = end;
    }
    const out = new Array<Float32Array>(texts.length);
    const here = async (rows: number[][]) => {
      const vectors = this.runEncoded(rows);
      // The run held this thread: the other lanes' answers are read before it takes the next batch.
      if (this.lanes.length) await new Promise((resolve) => setImmediate(resolve));
      return vectors;
    };
    const lane = async (run: (rows: number[][]) => Promise<Float32Array[]>, other?: OnnxLane) => {
      for (let batch = batches.shift(); batch; batch = batches.shift()) {
        if (this.beforeRun) await this.beforeRun();
        let vectors: Float32Array[];
        try {
          vectors = await run(batch.map((i) => encoded[i]!));
        } catch (err) {
          if (!other) throw err;
          // This thread runs the batch instead (and fails as the call's own if it fails here too).
          // A lane whose thread died is let go; one that refused only this batch takes the next call's.
          batches.unshift(batch);
          if (other.dead) {
            this.lanes.splice(this.lanes.indexOf(other), 1);
            other.close();
          }
          return;
        }
        for (const [k, i] of batch.entries()) out[i] = vectors[k]!;
      }
    };
    await Promise.all([lane(here), ...this.lanes.map((l) => lane((rows) => l.run(rows), l))]);
    // A batch a lane gave back after this thread had finished.
    await lane(here);
    return out;
  }

  /** Frees the model's native memory (one taken up with `attach` is left to its opener) and the lanes; embed() fails afterwards. */
  close(): void {
    for (const lane of this.lanes) lane.close();
    this.session.release();
  }

  /** One run of the model over encoded texts (`encode`), sorted by length, shortest first: their vectors in order. */
  runEncoded(batch: number[][]): Float32Array[] {
    const rows = batch.length;
    const width = batch[rows - 1]!.length;
    const ids = new BigInt64Array(rows * width).fill(BigInt(this.pad));
    const mask = new BigInt64Array(rows * width);
    batch.forEach((row, r) => {
      for (let t = 0; t < row.length; t++) {
        ids[r * width + t] = BigInt(row[t]!);
        mask[r * width + t] = 1n;
      }
    });
    const [idsName, maskName, typesName] = this.config.model.inputs as [string, string, string];
    const result = this.session.run({
      [idsName]: { data: ids, dims: [rows, width] },
      [maskName]: { data: mask, dims: [rows, width] },
      [typesName]: { data: new BigInt64Array(rows * width), dims: [rows, width] },
    });
    const hidden = result[this.config.model.output]!.data;
    const dims = this.dimensions;
    return batch.map((row, r) => {
      // Mean over the real tokens ([CLS] and [SEP] included, padding not), then unit length.
      const acc = new Float64Array(dims);
      for (let t = 0; t < row.length; t++) {
        const base = (r * width + t) * dims;
        for (let d = 0; d < dims; d++) acc[d]! += hidden[base + d]!;
      }
      let norm = 0;
      for (let d = 0; d < dims; d++) norm += acc[d]! * acc[d]!;
      norm = Math.sqrt(norm);
      const v = new Float32Array(dims);
      // The mean's 1/n cancels in the normalisation.
      if (norm > 0) for (let d = 0; d < dims; d++) v[d] = acc[d]! / norm;
      return v;
    });
  }
}

/**
 * The shipped strong model (or another directory / set of files), opened on the calling thread.
 * In the compiled binary the native runtime is written to ~/.cache/engram on the first call.
 */
export function loadOnnxEmbedder(
  source?: string | OnnxModelFiles,
  options?: OnnxEmbedderOptions,
): Promise<OnnxEmbedder> {
  return OnnxEmbedder.load(source, options);
}

async function readTokenizer(source: string | OnnxModelFiles) {
  const files = typeof source === 'string' ? await filesInDirectory(source) : source;
  const config = (await Bun.file(files.config).json()) as OnnxModelConfig;
  return { files, config, vocab: await Bun.file(files.vocab).text() };
}

async function readModel(source: string | OnnxModelFiles, knownId?: string) {
  const { files, config, vocab } = await readTokenizer(source);
  // Read as bytes, not handed over as a path: inside the executable the file is not on disk.
  const model = await Bun.file(files.model).bytes();
  const known = knownId?.startsWith(`onnx:${config.name}:`) ? knownId.slice(`onnx:${config.name}:`.length) : null;
  const fingerprint =
    known ?? new Bun.CryptoHasher('sha256').update(model).update(vocab).update(ARITHMETIC).digest('hex').slice(0, 12);
  return { config, vocab, model, fingerprint };
}

/**
 * The model read and rewritten for loading: its matrix products run in int8 where the CPU allows it
 * (onnx-int8-matmul.ts), its embedding tables stay int8 in memory (~34 MiB less a session:
 * onnx-gather-first.ts), the exporter's NaN guards go, which never change a value here
 * (onnx-softmax-guard.ts), and its GELUs become one operator each (onnx-gelu.ts). Only the
 * rewritten bytes outlive the call.
 */
async function loadableModel(source: string | OnnxModelFiles, knownId?: string) {
  const read = await readModel(source, knownId);
  const products = INT8 ? int8MatMul(read.model) : read.model;
  return { ...read, model: fuseGelu(dropSoftmaxNanGuard(gatherBeforeDequantize(products))) };
}

async function filesInDirectory(dir: string): Promise<OnnxModelFiles> {
  const configPath = join(dir, 'config.json');
  const config = (await Bun.file(configPath).json()) as OnnxModelConfig;
  return { config: configPath, vocab: join(dir, config.tokenizer.vocab), model: join(dir, config.model.file) };
}

function checkConfig(c: OnnxModelConfig, session: OnnxSession): void {
  if (c.format !== ONNX_MODEL_FORMAT) throw new Error(`not an ONNX embedding model: format ${String(c.format)}`);
  if (!Number.isInteger(c.dimensions) || c.dimensions <= 0) throw new Error('bad dimensions in model config');
  if (c.tokenizer?.type !== 'bert-wordpiece') throw new Error(`unsupported tokenizer ${String(c.tokenizer?.type)}`);
  if (c.pooling !== 'mean' || c.normalize !== true)
    throw new Error('only mean pooling with normalisation is supported');
  if (c.model.inputs.length !== 3 || c.model.inputs.some((name) => !session.inputNames.includes(name))) {
    throw new Error(
      `the model's inputs are ${session.inputNames.join(', ')}, config says ${c.model.inputs.join(', ')}`,
    );
  }
  if (!session.outputNames.includes(c.model.output)) throw new Error(`the model has no output ${c.model.output}`);
}
