/**
 * The in-memory rewrite that runs the shipped model's matrix products in int8 (onnx-int8-matmul.ts):
 * it replaces the 36 products with int8 weights (and their bias Adds) and nothing else, leaves a
 * model without the pattern alone, and the rewritten model's vectors stay near the file's float
 * arithmetic without being the same.
 */
import { describe, expect, it } from 'bun:test';
import { join } from 'node:path';
import { DEFAULT_ONNX_MODEL_DIR } from '../../src/embedders/onnx-embedder';
import { int8MatMul } from '../../src/embedders/onnx-int8-matmul';
import { hiddenStates, operators, PADDED_ROWS } from './fixtures/hidden-states';

const model = await Bun.file(join(DEFAULT_ONNX_MODEL_DIR, 'model.onnx')).bytes();

/** Each row's mean over its real tokens (id ≠ 0), L2-normalised: the embedder's pooling. */
function pooled(hidden: Float32Array, rows: number[][]): Float64Array[] {
  const width = rows[0]!.length;
  return rows.map((row, r) => {
    const v = new Float64Array(384);
    row.forEach((id, t) => {
      if (id !== 0) for (let d = 0; d < 384; d++) v[d]! += hidden[(r * width + t) * 384 + d]!;
    });
    const norm = Math.hypot(...v);
    return v.map((x) => x / norm);
  });
}

describe('int8MatMul', () => {
  it('turns each product with int8 weights, with its bias Add, into one DynamicQuantizeMatMul, and nothing else', () => {
    const rewritten = int8MatMul(model);
    const before = operators(model);
    const after = operators(rewritten);
    // Six a layer (query, key, value, attention output, the two feed-forward ones), six layers.
    expect(after.get('com.microsoft:DynamicQuantizeMatMul')).toBe(36);
    // The attention's two products (of activations by activations) stay float.
    expect(before.get(':MatMul')! - after.get(':MatMul')!).toBe(36);
    expect(after.get(':MatMul')).toBe(12);
    // Per product: its weight's Cast and Mul and its bias Add gone.
    for (const op of [':Cast', ':Mul', ':Add']) expect(before.get(op)! - after.get(op)!).toBe(36);
    for (const [op, n] of before)
      if (![':MatMul', ':Cast', ':Mul', ':Add'].includes(op)) expect({ op, n: after.get(op) }).toEqual({ op, n });
    // Nothing left to rewrite: the same bytes come back.
    expect(int8MatMul(rewritten)).toBe(rewritten);
  });

  it('gives vectors within cosine 0.98 of the float arithmetic, not the same ones, for a padded batch', async () => {
    const [a, b] = await hiddenStates([model, int8MatMul(model)], PADDED_ROWS);
    const [floatRows, int8Rows] = [pooled(a!, PADDED_ROWS), pooled(b!, PADDED_ROWS)];
    for (let r = 0; r < PADDED_ROWS.length; r++) {
      const cos = floatRows[r]!.reduce((s, x, d) => s + x * int8Rows[r]![d]!, 0);
      expect(cos).toBeGreaterThan(0.98);
      // Rounding activations to 8 bits moves them: with no rewrite the vectors would be equal.
      expect(cos).toBeLessThan(0.99999);
    }
  }, 60_000);
});
