/**
 * Rewrites an ONNX model's bytes, in memory, to drop the NaN guard that PyTorch's exporter puts
 * after each attention softmax, `Where(IsNaN(Softmax(x)), 0, Softmax(x))`: it turns the NaN of a
 * query row whose keys are all masked into zeros. The embedder never sends such a row (every row's
 * [CLS] is attended to; padding masks keys only), so the guard changes no value, yet it reads and
 * writes the whole rows × heads × tokens² score tensor twice a layer: ~6 % of a 1 KiB document's
 * inference (docs/embedding-model.md).
 */
import { encodeNode, rewriteGraph } from './onnx-graph';

/**
 * The model with every `Where(IsNaN(s), c, s)` whose `s` is a Softmax read by nothing else (and
 * the IsNaN by nothing else) removed: the Softmax writes the Where's output itself. A model
 * without that pattern is returned as is.
 */
export function dropSoftmaxNanGuard(model: Uint8Array): Uint8Array {
  return rewriteGraph(model, ({ nodes, readers, producer }, { dropped, replaced }) => {
    for (const where of nodes) {
      if (where.opType !== 'Where' || where.domain !== '' || where.inputs.length !== 3) continue;
      const [condition, , otherwise] = where.inputs as [string, string, string];
      const nanTest = producer.get(condition);
      if (
        nanTest?.opType !== 'IsNaN' ||
        nanTest.domain !== '' ||
        nanTest.inputs[0] !== otherwise ||
        readers.get(condition) !== 1
      )
        continue;
      const softmax = producer.get(otherwise);
      if (softmax?.opType !== 'Softmax' || softmax.domain !== '' || readers.get(otherwise) !== 2) continue;
      replaced.set(
        softmax,
        encodeNode(softmax.name, 'Softmax', softmax.inputs, where.outputs, [...softmax.attributes.values()]),
      );
      dropped.add(nanTest).add(where);
    }
  });
}
