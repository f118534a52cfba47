/**
 * Rewrites an ONNX model's bytes, in memory, so that each matrix product with int8 weights is
 * computed in int8: `MatMul(x, Mul(Cast(Q), S))`, Q int8 [K, N] and S one scale a column, becomes
 * ONNX Runtime's `DynamicQuantizeMatMul(x, Q, S)` (com.microsoft), which quantises x to uint8 per
 * run (one scale and zero point for the whole tensor) and multiplies integers (VNNI or AMX where
 * the CPU has them). Without it ONNX Runtime folds every weight to float32 at load and multiplies
 * floats. The weights are the file's own, unchanged; what moves the vectors is rounding x to 8 bits
 * (docs/embedding-model.md, "Int8 arithmetic").
 */
import { dequantized, encodeNode, FLOAT, INT8, rewriteGraph } from './onnx-graph';

const MICROSOFT = 'com.microsoft';

/**
 * The model with every `MatMul(x, Mul(Cast(Q), S))` — Q and S initializers, Q two-dimensional, S
 * [N] or [1, N], the dequantised weight read by nothing else — turned into
 * `DynamicQuantizeMatMul(x, Q, S)`, with the bias `Add` after it folded in when there is one. A
 * model without that pattern is returned as is.
 */
export function int8MatMul(model: Uint8Array): Uint8Array {
  return rewriteGraph(model, (graph, { dropped, replaced, imports }) => {
    const { nodes, dims, types, readers } = graph;
    const readerOf = new Map(nodes.flatMap((n) => n.inputs.map((i) => [i, n] as const)));
    for (const matmul of nodes) {
      if (matmul.opType !== 'MatMul' || matmul.domain !== '' || matmul.inputs.length !== 2) continue;
      const [x, weight] = matmul.inputs as [string, string];
      const dequant = dequantized(graph, weight);
      if (!dequant) continue;
      const { mul, cast, quantized, scale } = dequant;
      const shape = dims.get(quantized);
      const columns = shape?.[1];
      const scaleDims = dims.get(scale);
      if (types.get(quantized) !== INT8 || shape?.length !== 2 || !scaleDims) continue;
      if (scaleDims.at(-1) !== columns || scaleDims.slice(0, -1).some((d) => d !== 1)) continue;
      // A bias added to the product alone is added by the same kernel, saving a pass over its output.
      const product = matmul.outputs[0]!;
      const add = readers.get(product) === 1 ? readerOf.get(product) : undefined;
      const bias = add?.opType === 'Add' && add.domain === '' ? add.inputs.find((i) => i !== product) : undefined;
      const biased = bias !== undefined && types.get(bias) === FLOAT && `${dims.get(bias)}` === `${columns}`;
      const inputs = [x, quantized, scale, ...(biased ? ['', bias] : [])];
      const outputs = biased ? add!.outputs : matmul.outputs;
      replaced.set(matmul, encodeNode(`${matmul.name}/int8`, 'DynamicQuantizeMatMul', inputs, outputs, [], MICROSOFT));
      dropped.add(mul).add(cast);
      if (biased) dropped.add(add!);
      imports.set(MICROSOFT, 1);
    }
  });
}
