/**
 * The in-memory rewrite that keeps the shipped model's embedding tables int8 (onnx-gather-first.ts):
 * it changes the graph as meant, leaves a model without the pattern alone, and the rewritten model
 * computes the same hidden states as the file itself, bit for bit.
 */
import { describe, expect, it } from 'bun:test';
import { join } from 'node:path';
import { DEFAULT_ONNX_MODEL_DIR } from '../../../src/learning/embedder/onnx-embedder';
import { gatherBeforeDequantize } from '../../../src/learning/embedder/onnx-gather-first';
import { openOnnxSession } from '../../../src/learning/embedder/onnx-runtime';

const model = await Bun.file(join(DEFAULT_ONNX_MODEL_DIR, 'model.onnx')).bytes();
const contains = (bytes: Uint8Array, s: string) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).includes(s);

describe('gatherBeforeDequantize', () => {
  it('gathers the int8 rows and their scales, then dequantises only those', () => {
    const rewritten = gatherBeforeDequantize(model);
    expect(rewritten).not.toBe(model);
    // One group of four nodes per table: word and position embeddings.
    for (const table of ['embedding', 'embedding_2']) {
      for (const node of ['rows', 'scales', 'cast', 'scale']) expect(contains(rewritten, `${table}/gather_first/${node}`)).toBe(true);
    }
    expect(contains(model, 'gather_first')).toBe(false);
    // Nothing left to rewrite: the same bytes come back.
    expect(gatherBeforeDequantize(rewritten)).toBe(rewritten);
  });

  it('gives the same last_hidden_state as the model file, bit for bit', async () => {
    const original = await openOnnxSession(model, { threads: 1 });
    const rewritten = await openOnnxSession(gatherBeforeDequantize(model), { threads: 1 });
    try {
      // [CLS] "a man is eating food ." [SEP], then the same padded behind a longer row.
      const rows = [[101, 1037, 2158, 2003, 5983, 2833, 1012, 102, 0, 0], [101, 2054, 2003, 2026, 2905, 16661, 2000, 1029, 2651, 102]];
      const ids = BigInt64Array.from(rows.flat(), BigInt);
      const mask = BigInt64Array.from(rows.flat(), (id) => BigInt(id === 0 ? 0 : 1));
      const feeds = () => ({
        input_ids: { data: ids, dims: [2, 10] },
        attention_mask: { data: mask, dims: [2, 10] },
        token_type_ids: { data: new BigInt64Array(20), dims: [2, 10] },
      });
      const a = original.run(feeds()).last_hidden_state!.data;
      const b = rewritten.run(feeds()).last_hidden_state!.data;
      expect(b.length).toBe(2 * 10 * 384);
      expect(Buffer.from(b.buffer, b.byteOffset, b.byteLength).equals(Buffer.from(a.buffer, a.byteOffset, a.byteLength))).toBe(true);
    } finally {
      original.release();
      rewritten.release();
    }
  }, 60_000);
});
