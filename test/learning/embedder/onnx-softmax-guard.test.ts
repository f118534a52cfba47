/**
 * The in-memory rewrite that drops the exporter's NaN guard after each attention softmax
 * (onnx-softmax-guard.ts): it removes exactly those nodes, leaves a model without them alone, and
 * the rewritten model computes the same hidden states as before, bit for bit, padding included.
 */
import { describe, expect, it } from 'bun:test';
import { join } from 'node:path';
import { DEFAULT_ONNX_MODEL_DIR } from '../../../src/learning/embedder/onnx-embedder';
import { gatherBeforeDequantize } from '../../../src/learning/embedder/onnx-gather-first';
import { openOnnxSession } from '../../../src/learning/embedder/onnx-runtime';
import { dropSoftmaxNanGuard } from '../../../src/learning/embedder/onnx-softmax-guard';

const model = gatherBeforeDequantize(await Bun.file(join(DEFAULT_ONNX_MODEL_DIR, 'model.onnx')).bytes());
const count = (bytes: Uint8Array, s: string) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1').split(s).length - 1;

describe('dropSoftmaxNanGuard', () => {
  it('removes the IsNaN and Where after each of the six softmaxes, and nothing else', () => {
    const rewritten = dropSoftmaxNanGuard(model);
    expect(count(model, 'node_IsNaN_')).toBe(6);
    expect(count(rewritten, 'node_IsNaN_')).toBe(0);
    // The exporter names each guard's Where right after its IsNaN; the mask's Where stays.
    expect(count(rewritten, 'node_Where_92')).toBe(1);
    expect(count(rewritten, 'node_Where_97')).toBe(0);
    expect(count(rewritten, 'node_Softmax_')).toBe(count(model, 'node_Softmax_'));
    expect(model.length - rewritten.length).toBeGreaterThan(0);
    // Nothing left to rewrite: the same bytes come back.
    expect(dropSoftmaxNanGuard(rewritten)).toBe(rewritten);
  });

  it('gives the same last_hidden_state as before, bit for bit, for a padded batch', async () => {
    const before = await openOnnxSession(model, { threads: 1 });
    const after = await openOnnxSession(dropSoftmaxNanGuard(model), { threads: 1 });
    try {
      // [CLS] "a man is eating food ." [SEP] padded behind a longer row, and a lone [CLS] [SEP].
      const rows = [[101, 1037, 2158, 2003, 5983, 2833, 1012, 102, 0, 0], [101, 2054, 2003, 2026, 2905, 16661, 2000, 1029, 2651, 102], [101, 102, 0, 0, 0, 0, 0, 0, 0, 0]];
      const ids = BigInt64Array.from(rows.flat(), BigInt);
      const mask = BigInt64Array.from(rows.flat(), (id) => BigInt(id === 0 ? 0 : 1));
      const feeds = () => ({
        input_ids: { data: ids, dims: [3, 10] },
        attention_mask: { data: mask, dims: [3, 10] },
        token_type_ids: { data: new BigInt64Array(30), dims: [3, 10] },
      });
      const a = before.run(feeds()).last_hidden_state!.data;
      const b = after.run(feeds()).last_hidden_state!.data;
      expect(b.length).toBe(3 * 10 * 384);
      expect(b.some(Number.isNaN)).toBe(false);
      expect(Buffer.from(b.buffer, b.byteOffset, b.byteLength).equals(Buffer.from(a.buffer, a.byteOffset, a.byteLength))).toBe(true);
    } finally {
      before.release();
      after.release();
    }
  }, 60_000);
});
