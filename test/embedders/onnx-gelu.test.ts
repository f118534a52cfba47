/**
 * The in-memory rewrite of the exporter's spelled-out GELUs into ONNX Runtime's Gelu (onnx-gelu.ts):
 * it replaces the six of the shipped model and nothing else, adds the operator set it needs, leaves
 * a model without the pattern alone, and the rewritten model computes the same hidden states as
 * the file to float32 rounding.
 */
import { describe, expect, it } from 'bun:test';
import { join } from 'node:path';
import { DEFAULT_ONNX_MODEL_DIR } from '../../src/embedders/onnx-embedder';
import { fuseGelu } from '../../src/embedders/onnx-gelu';
import { hiddenStates, operators, PADDED_ROWS, sameBits } from './fixtures/hidden-states';

const model = await Bun.file(join(DEFAULT_ONNX_MODEL_DIR, 'model.onnx')).bytes();
const count = (bytes: Uint8Array, s: string) =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1').split(s).length - 1;

describe('fuseGelu', () => {
  it('turns each of the six spelled-out GELUs into one com.microsoft Gelu, and nothing else', () => {
    const rewritten = fuseGelu(model);
    const before = operators(model);
    const after = operators(rewritten);
    expect(before.get(':Erf')).toBe(6);
    expect(after.get(':Erf')).toBeUndefined();
    expect(after.get('com.microsoft:Gelu')).toBe(6);
    // Per GELU: a Div, an Add and two Muls gone, the last Mul replaced; nothing else touched.
    for (const [op, gone] of [
      [':Div', 6],
      [':Add', 6],
      [':Mul', 12],
      [':Erf', 6],
    ] as const)
      expect((before.get(op) ?? 0) - (after.get(op) ?? 0)).toBe(gone);
    for (const [op, n] of before) if (![':Div', ':Add', ':Mul', ':Erf'].includes(op)) expect(after.get(op)).toBe(n);
    // Each Gelu node names its domain, and the model imports it once.
    expect(count(model, 'com.microsoft')).toBe(0);
    expect(count(rewritten, 'com.microsoft')).toBe(7);
    // Nothing left to rewrite: the same bytes come back.
    expect(fuseGelu(rewritten)).toBe(rewritten);
  });

  it('gives the same last_hidden_state as the model file to float32 rounding, for a padded batch', async () => {
    const [a, b] = await hiddenStates([model, fuseGelu(model)], PADDED_ROWS);
    expect(b!.length).toBe(2 * 10 * 384);
    let worst = 0;
    for (let i = 0; i < a!.length; i++) worst = Math.max(worst, Math.abs(a![i]! - b![i]!));
    expect(worst).toBeLessThan(1e-4);
    // Not the same bits: the test would pass with no rewrite at all otherwise.
    expect(sameBits(a!, b!)).toBe(false);
  }, 60_000);
});
