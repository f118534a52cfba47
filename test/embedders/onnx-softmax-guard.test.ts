/**
 * The in-memory rewrite that drops the exporter's NaN guard after each attention softmax
 * (onnx-softmax-guard.ts): it removes exactly those nodes, leaves a model without them alone, and
 * the rewritten model computes the same hidden states as before, bit for bit, padding included.
 */
import { describe, expect, it } from 'bun:test';
import { join } from 'node:path';
import { DEFAULT_ONNX_MODEL_DIR } from '../../src/embedders/onnx-embedder';
import { gatherBeforeDequantize } from '../../src/embedders/onnx-gather-first';
import { hiddenStates, PADDED_ROWS, sameBits } from './fixtures/hidden-states';
import { dropSoftmaxNanGuard } from '../../src/embedders/onnx-softmax-guard';

const model = gatherBeforeDequantize(await Bun.file(join(DEFAULT_ONNX_MODEL_DIR, 'model.onnx')).bytes());
const count = (bytes: Uint8Array, s: string) =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1').split(s).length - 1;

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
    // And a lone [CLS] [SEP] behind the padded rows.
    const [a, b] = await hiddenStates(
      [model, dropSoftmaxNanGuard(model)],
      [...PADDED_ROWS, [101, 102, 0, 0, 0, 0, 0, 0, 0, 0]],
    );
    expect(b!.length).toBe(3 * 10 * 384);
    expect(b!.some(Number.isNaN)).toBe(false);
    expect(sameBits(a!, b!)).toBe(true);
  }, 60_000);
});
