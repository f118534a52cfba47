/**
 * The strong embedder against the model's Python reference (fixtures/onnx-parity.json, made by
 * models/minilm-l6-int8/make_fixtures.py with HF tokenizers and Python's onnxruntime): identical
 * token ids, vectors near the same int8 arithmetic's and within cosine 0.97 of the file's float ones;
 * plus batching, the id, and writing the runtime to a cache folder.
 */
import { beforeAll, describe, expect, it } from 'bun:test';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { int8ProductsExact } from '../../src/embedders/int8-support';
import { DEFAULT_ONNX_MODEL_DIR, loadOnnxEmbedder, OnnxEmbedder } from '../../src/embedders/onnx-embedder';
import { isRuntimeFile, materializeOnnxRuntime, packagedOnnxRuntimeDir } from '../../src/embedders/onnx-library';
import pkg from '../../node_modules/onnxruntime-node/package.json' with { type: 'json' };

interface ParityCase {
  readonly text: string;
  readonly ids: number[];
  /** The file's float arithmetic. */
  readonly vector: number[];
  /** Its products in int8, as the embedder runs them (onnx-int8-matmul.ts). */
  readonly int8_vector: number[];
}
const fixture = JSON.parse(readFileSync(join(import.meta.dir, 'fixtures', 'onnx-parity.json'), 'utf8')) as {
  cases: ParityCase[];
};

/** This CPU's arithmetic: int8 products where they cannot saturate (int8-support.ts), else float. */
const INT8 = int8ProductsExact();
const cosine = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  let dot = 0,
    na = 0,
    nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return dot / Math.sqrt(na * nb);
};

let embedder: OnnxEmbedder;
beforeAll(async () => {
  embedder = await loadOnnxEmbedder();
}, 60_000);

describe('the ONNX MiniLM embedder', () => {
  it("tokenizes every reference text to the same ids as the model's tokenizer, [CLS], [SEP] and truncation to 256 included", () => {
    expect(fixture.cases.length).toBeGreaterThanOrEqual(20);
    expect(fixture.cases.some((c) => c.ids.length === 256)).toBe(true);
    for (const c of fixture.cases)
      expect({ text: c.text, ids: embedder.encode(c.text) }).toEqual({ text: c.text, ids: c.ids });
  });

  it('gives each reference text a unit vector as the Python reference computes it, one at a time', async () => {
    const same: number[] = [];
    for (const c of fixture.cases) {
      const [v] = await embedder.embed([c.text]);
      expect(v!.length).toBe(384);
      expect(Math.abs(cosine(v!, v!) - 1)).toBeLessThan(1e-5);
      same.push(cosine(v!, INT8 ? c.int8_vector : c.vector));
      // Activations rounded to 8 bits: the load-time rewrites' float rounding (~1e-7) can move a
      // value across a step, which the later layers carry (0.993 at worst here).
      expect({ text: c.text, ok: cosine(v!, c.int8_vector) >= (INT8 ? 0.99 : 0.97) }).toEqual({
        text: c.text,
        ok: true,
      });
      // What int8 products cost against the file's float arithmetic (0.977–0.997 here).
      expect({ text: c.text, ok: cosine(v!, c.vector) >= (INT8 ? 0.97 : 0.999) }).toEqual({ text: c.text, ok: true });
    }
    // Most texts meet no such step: the same pipeline, to float rounding.
    expect(same.sort((a, b) => a - b)[same.length >> 1]!).toBeGreaterThan(0.99999);
  }, 60_000);

  it('gives near the same vectors when texts of many lengths go in one call (padded batches, order kept)', async () => {
    const texts = fixture.cases.map((c) => c.text);
    const shuffled = texts.map((t, i) => ({ t, i })).sort((a, b) => ((a.i * 7919) % 23) - ((b.i * 7919) % 23));
    const vectors = await embedder.embed(shuffled.map((s) => s.t));
    // A batch shares one 8-bit scale for its activations, so a text's vector depends a little on its
    // batch: 0.96 at worst here, for texts of two to four tokens.
    for (const [k, s] of shuffled.entries()) {
      expect(cosine(vectors[k]!, fixture.cases[s.i]!.int8_vector)).toBeGreaterThanOrEqual(0.95);
      expect(cosine(vectors[k]!, fixture.cases[s.i]!.vector)).toBeGreaterThanOrEqual(0.95);
    }
    expect(await embedder.embed([])).toEqual([]);
  }, 60_000);

  it('puts similar sentences closer than unrelated ones', async () => {
    const [a, b, c] = await embedder.embed([
      'A man is eating food.',
      'Someone is having a meal.',
      'The stock market fell sharply today.',
    ]);
    expect(cosine(a!, b!)).toBeGreaterThan(cosine(a!, c!) + 0.3);
  }, 60_000);

  it('awaits beforeRun before each model run, and runs nothing while it is pending', async () => {
    const gates: (() => void)[] = [];
    const gated = await loadOnnxEmbedder(undefined, {
      beforeRun: () => new Promise<void>((resolve) => gates.push(resolve)),
    });
    try {
      // Texts of 256 tokens: one a run.
      const long = fixture.cases.find((c) => c.ids.length === 256)!.text;
      let done = false;
      const vectors = gated.embed([long, long, long]).then((v) => {
        done = true;
        return v;
      });
      for (let run = 1; run <= 3; run++) {
        while (gates.length < run) await Bun.sleep(2);
        await Bun.sleep(20);
        expect({ run, asked: gates.length, done }).toEqual({ run, asked: run, done: false });
        gates[run - 1]!();
      }
      expect(await vectors).toEqual(await embedder.embed([long, long, long]));
      expect(gates.length).toBe(3);
    } finally {
      gated.close();
    }
  }, 60_000);

  it('names the model by its bytes: a changed weight changes the id (and a copy of the same files keeps it)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'engram-onnx-model-'));
    try {
      cpSync(DEFAULT_ONNX_MODEL_DIR, dir, { recursive: true });
      const copy = await loadOnnxEmbedder(dir);
      expect(copy.id).toBe(embedder.id);
      copy.close();
      // The middle of the file lies in the int8 weights: flipping a byte keeps a loadable model.
      const model = readFileSync(join(dir, 'model.onnx'));
      model[model.length >> 1]! ^= 0x01;
      writeFileSync(join(dir, 'model.onnx'), model);
      const changed = await loadOnnxEmbedder(dir);
      expect(changed.id).not.toBe(embedder.id);
      expect(changed.id).toStartWith('onnx:all-minilm-l6-v2-int8:');
      changed.close();
      // identify() names the files as load() does; a thread handed that id does not hash them again,
      // and an id of another model is no such shortcut.
      expect((await OnnxEmbedder.identify(dir)).id).toBe(changed.id);
      const foreign = await loadOnnxEmbedder(dir, { knownId: 'onnx:another-model:0123456789ab' });
      expect(foreign.id).toBe(changed.id);
      foreign.close();
      const shorter = await loadOnnxEmbedder(dir, { maxTokens: 128 });
      expect(shorter.id).toEndWith(':max128');
      shorter.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('the ONNX MiniLM embedder on a worker thread', () => {
  /** A worker running fixtures/onnx-worker.ts, and its replies in order. */
  const start = () => {
    const worker = new Worker(join(import.meta.dir, 'fixtures', 'onnx-worker.ts'));
    const replies: unknown[] = [];
    let wake = () => {};
    worker.onmessage = (event) => {
      replies.push(event.data);
      wake();
    };
    const next = async () => {
      while (replies.length === 0) await new Promise<void>((resolve) => (wake = resolve));
      return replies.shift();
    };
    return { worker, next };
  };

  it('loads and embeds there as on the main thread', async () => {
    const { worker, next } = start();
    try {
      expect(await next()).toBe('started');
      const texts = fixture.cases.slice(0, 3).map((c) => c.text);
      worker.postMessage(texts);
      const reply = (await next()) as { id: string; vectors: Float32Array[] };
      expect(reply.id).toBe(embedder.id);
      expect(reply.vectors).toEqual(await embedder.embed(texts));
    } finally {
      worker.terminate();
    }
  }, 60_000);

  it('runs the session this thread opened, at the same moment as this thread, with the same vectors', async () => {
    const { worker, next } = start();
    try {
      expect(await next()).toBe('started');
      worker.postMessage({ attach: embedder.share() });
      expect(await next()).toBe('ready');
      const texts = fixture.cases.map((c) => c.text);
      const alone = await embedder.embed(texts);
      // Sent first, so the worker is embedding while this thread embeds too.
      worker.postMessage(texts);
      const together = await embedder.embed(texts);
      const reply = (await next()) as { id: string; vectors: Float32Array[] };
      expect(reply.id).toBe(embedder.id);
      expect(reply.vectors).toEqual(alone);
      expect(together).toEqual(alone);
    } finally {
      worker.terminate();
    }
  }, 60_000);
});

describe('materializeOnnxRuntime', () => {
  it('writes the runtime files to a versioned cache folder once, with no partial files left', async () => {
    const cache = mkdtempSync(join(tmpdir(), 'engram-onnx-cache-'));
    try {
      const source = packagedOnnxRuntimeDir();
      const files = Object.fromEntries(
        readdirSync(source)
          .filter(isRuntimeFile)
          .map((name) => [name, join(source, name)]),
      );
      const dir = await materializeOnnxRuntime({ version: pkg.version, files }, cache);
      expect(dir).toBe(join(cache, `onnxruntime-${pkg.version}-${process.platform}-${process.arch}`));
      expect(readdirSync(dir).sort()).toEqual(Object.keys(files).sort());
      for (const name of Object.keys(files)) expect(statSync(join(dir, name)).size).toBe(statSync(files[name]!).size);
      const library = Object.keys(files).find((name) => name.includes('onnxruntime'))!;
      const written = statSync(join(dir, library)).mtimeMs;
      await Bun.sleep(20);
      await materializeOnnxRuntime({ version: pkg.version, files }, cache);
      expect(statSync(join(dir, library)).mtimeMs).toBe(written);
    } finally {
      rmSync(cache, { recursive: true, force: true });
    }
  });
});
