/**
 * Rewrites an ONNX model's bytes, in memory, so that each GELU the exporter spelled out as five
 * elementwise operators, `x · (0.5 · (erf(x / √2) + 1))`, is ONNX Runtime's own `Gelu`
 * (com.microsoft): one pass over the layer's largest tensor (tokens × 1,536) instead of five, each
 * reading and writing all of it. ONNX Runtime's fusions do not recognise this order of the two
 * multiplications, and once it is one `Gelu`, they fold the bias `Add` before it in as well
 * (`BiasGelu`). The same formula, computed in one kernel: the vectors move by ~1e-7
 * (docs/embedding-model.md).
 */
import { encodeNode, rewriteGraph } from './onnx-graph';

const MICROSOFT = 'com.microsoft';

/** Within float32 rounding of the constant the formula needs. */
const near = (value: number | undefined, wanted: number) =>
  value !== undefined && Math.abs(value - wanted) <= 1e-6 * wanted;

/**
 * The model with every `Mul(x, Mul(0.5, Add(Erf(Div(x, √2)), 1)))` (each Mul's operands in either
 * order, every intermediate read only by the next) turned into `Gelu(x)`. A model without that
 * pattern is returned as is.
 */
export function fuseGelu(model: Uint8Array): Uint8Array {
  return rewriteGraph(model, ({ nodes, readers, producer, scalars }, { dropped, replaced, imports }) => {
    const readerOf = new Map(nodes.flatMap((n) => n.inputs.map((i) => [i, n] as const)));
    /** The one node that reads `value`, if it is a default-domain `opType`. */
    const next = (value: string, opType: string) => {
      const node = readers.get(value) === 1 ? readerOf.get(value) : undefined;
      return node?.opType === opType && node.domain === '' && node.inputs.length === 2 ? node : undefined;
    };
    /** A binary node's operand other than `value`. */
    const other = (node: { inputs: string[] }, value: string) =>
      node.inputs[0] === value ? node.inputs[1]! : node.inputs[0]!;
    for (const erf of nodes) {
      if (erf.opType !== 'Erf' || erf.domain !== '') continue;
      const div = producer.get(erf.inputs[0]!);
      if (
        div?.opType !== 'Div' ||
        div.domain !== '' ||
        readers.get(div.outputs[0]!) !== 1 ||
        !near(scalars.get(div.inputs[1]!), Math.SQRT2)
      )
        continue;
      const x = div.inputs[0]!;
      const plusOne = next(erf.outputs[0]!, 'Add');
      if (!plusOne || !near(scalars.get(other(plusOne, erf.outputs[0]!)), 1)) continue;
      const half = next(plusOne.outputs[0]!, 'Mul');
      if (!half || !near(scalars.get(other(half, plusOne.outputs[0]!)), 0.5)) continue;
      const gelu = next(half.outputs[0]!, 'Mul');
      if (!gelu || other(gelu, half.outputs[0]!) !== x) continue;
      replaced.set(gelu, encodeNode(gelu.name, 'Gelu', [x], gelu.outputs, [], MICROSOFT));
      dropped.add(div).add(erf).add(plusOne).add(half);
      imports.set(MICROSOFT, 1);
    }
  });
}
