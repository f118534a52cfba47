/**
 * The in-memory rewrite that keeps the shipped model's embedding tables int8 (onnx-gather-first.ts):
 * it changes the graph as meant, leaves a model without the pattern alone, and the rewritten model
 * computes the same hidden states as the file itself, bit for bit.
 */
import { describe, expect, it } from 'bun:test';
import { join } from 'node:path';
import { DEFAULT_ONNX_MODEL_DIR } from '../../src/embedders/onnx-embedder';
import { gatherBeforeDequantize } from '../../src/embedders/onnx-gather-first';
import { hiddenStates, PADDED_ROWS, sameBits } from './fixtures/hidden-states';

const model = await Bun.file(join(DEFAULT_ONNX_MODEL_DIR, 'model.onnx')).bytes();
const contains = (bytes: Uint8Array, s: string) =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).includes(s);

describe('gatherBeforeDequantize', () => {
  it('gathers the int8 rows and their scales, then dequantises only those', () => {
    const rewritten = gatherBeforeDequantize(model);
    expect(rewritten).not.toBe(model);
    // One group of four nodes per table: word and position embeddings.
    for (const table of ['embedding', 'embedding_2']) {
      for (const node of ['rows', 'scales', 'cast', 'scale'])
        expect(contains(rewritten, `${table}/gather_first/${node}`)).toBe(true);
    }
    expect(contains(model, 'gather_first')).toBe(false);
    // Nothing left to rewrite: the same bytes come back.
    expect(gatherBeforeDequantize(rewritten)).toBe(rewritten);
  });

  it('gives the same last_hidden_state as the model file, bit for bit', async () => {
    const [a, b] = await hiddenStates([model, gatherBeforeDequantize(model)], PADDED_ROWS);
    expect(b!.length).toBe(2 * 10 * 384);
    expect(sameBits(a!, b!)).toBe(true);
  }, 60_000);
});
