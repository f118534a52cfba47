/**
 * Just enough of ONNX's protobuf encoding to rewrite a model's graph in memory: its nodes are
 * decoded (inputs, outputs, operator, attributes), a rewrite drops or replaces some of them, and
 * every other byte of the model is copied as it was. Used by the load-time rewrites beside it
 * (onnx-gather-first.ts, onnx-int8-matmul.ts, onnx-softmax-guard.ts, onnx-gelu.ts).
 */

/** One field of a protobuf message: its number, wire type, and where its bytes lie. */
interface Field {
  readonly no: number;
  readonly wire: number;
  /** The field's first byte (its tag) and the byte after it. */
  readonly start: number;
  readonly end: number;
  /** A length-delimited field's payload; for other wire types, the value's bytes. */
  readonly dataStart: number;
  readonly dataEnd: number;
}

function readVarint(buf: Uint8Array, pos: number): [value: number, next: number] {
  let value = 0;
  let scale = 1;
  for (;;) {
    if (pos >= buf.length) throw new Error('truncated protobuf varint');
    const byte = buf[pos++]!;
    value += (byte & 0x7f) * scale;
    if (byte < 0x80) return [value, pos];
    scale *= 128;
  }
}

function fields(buf: Uint8Array, start = 0, end = buf.length): Field[] {
  const out: Field[] = [];
  let pos = start;
  while (pos < end) {
    const fieldStart = pos;
    const [tag, afterTag] = readVarint(buf, pos);
    const wire = tag % 8;
    let dataStart = afterTag;
    let dataEnd: number;
    if (wire === 0) dataEnd = readVarint(buf, afterTag)[1];
    else if (wire === 1) dataEnd = afterTag + 8;
    else if (wire === 5) dataEnd = afterTag + 4;
    else if (wire === 2) {
      const [length, afterLength] = readVarint(buf, afterTag);
      dataStart = afterLength;
      dataEnd = afterLength + length;
    } else throw new Error(`unsupported protobuf wire type ${wire}`);
    if (dataEnd > end) throw new Error('truncated protobuf field');
    out.push({ no: Math.floor(tag / 8), wire, start: fieldStart, end: dataEnd, dataStart, dataEnd });
    pos = dataEnd;
  }
  return out;
}

const text = new TextDecoder();
const utf8 = new TextEncoder();

function varint(value: number): number[] {
  const out: number[] = [];
  while (value >= 0x80) {
    out.push((value % 128) | 0x80);
    value = Math.floor(value / 128);
  }
  out.push(value);
  return out;
}

/** A length-delimited field (strings and messages). */
function delimited(no: number, payload: Uint8Array): Uint8Array {
  const head = [...varint(no * 8 + 2), ...varint(payload.length)];
  const out = new Uint8Array(head.length + payload.length);
  out.set(head);
  out.set(payload, head.length);
  return out;
}

export function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

// Field numbers from onnx.proto.
const MODEL_GRAPH = 7;
const MODEL_OPSET_IMPORT = 8;
const OPSET_DOMAIN = 1;
const OPSET_VERSION = 2;
const GRAPH_NODE = 1;
const GRAPH_INITIALIZER = 5;
const GRAPH_OUTPUT = 12;
const VALUE_INFO_NAME = 1;
const NODE_INPUT = 1;
const NODE_OUTPUT = 2;
const NODE_NAME = 3;
const NODE_OP_TYPE = 4;
const NODE_ATTRIBUTE = 5;
const NODE_DOMAIN = 7;
const ATTRIBUTE_NAME = 1;
const ATTRIBUTE_INT = 3;
const TENSOR_DIMS = 1;
const TENSOR_DATA_TYPE = 2;
const TENSOR_FLOAT_DATA = 4;
const TENSOR_NAME = 8;
const TENSOR_RAW_DATA = 9;
/** TensorProto.DataType of float32 and int8 values. */
export const FLOAT = 1;
export const INT8 = 3;

export interface Node {
  readonly field: Field;
  readonly name: string;
  readonly inputs: string[];
  readonly outputs: string[];
  readonly opType: string;
  readonly domain: string;
  /** Each attribute's encoded AttributeProto, by name. */
  readonly attributes: Map<string, Uint8Array>;
}

function readNode(buf: Uint8Array, field: Field): Node {
  const inputs: string[] = [];
  const outputs: string[] = [];
  const attributes = new Map<string, Uint8Array>();
  let name = '';
  let opType = '';
  let domain = '';
  for (const f of fields(buf, field.dataStart, field.dataEnd)) {
    const value = () => text.decode(buf.subarray(f.dataStart, f.dataEnd));
    if (f.no === NODE_INPUT) inputs.push(value());
    else if (f.no === NODE_OUTPUT) outputs.push(value());
    else if (f.no === NODE_NAME) name = value();
    else if (f.no === NODE_OP_TYPE) opType = value();
    else if (f.no === NODE_DOMAIN) domain = value();
    else if (f.no === NODE_ATTRIBUTE) {
      const attribute = buf.subarray(f.dataStart, f.dataEnd);
      const key = fields(attribute).find((a) => a.no === ATTRIBUTE_NAME);
      if (key) attributes.set(text.decode(attribute.subarray(key.dataStart, key.dataEnd)), attribute);
    }
  }
  return { field, name, inputs, outputs, opType, domain, attributes };
}

/**
 * Each initializer's dims (TensorProto field 1, packed or not), and the value of each float32 one
 * holding a single value.
 */
function initializers(
  buf: Uint8Array,
  graph: readonly Field[],
): { dims: Map<string, number[]>; types: Map<string, number>; scalars: Map<string, number> } {
  const dims = new Map<string, number[]>();
  const types = new Map<string, number>();
  const scalars = new Map<string, number>();
  for (const f of graph) {
    if (f.no !== GRAPH_INITIALIZER) continue;
    let name = '';
    let type = 0;
    let value: Uint8Array | null = null;
    const shape: number[] = [];
    for (const t of fields(buf, f.dataStart, f.dataEnd)) {
      if (t.no === TENSOR_NAME) name = text.decode(buf.subarray(t.dataStart, t.dataEnd));
      else if (t.no === TENSOR_DATA_TYPE) type = readVarint(buf, t.dataStart)[0];
      // A single float, raw (little-endian) or in float_data (packed, or one fixed32 field).
      else if ((t.no === TENSOR_RAW_DATA || t.no === TENSOR_FLOAT_DATA) && t.dataEnd - t.dataStart === 4)
        value = buf.slice(t.dataStart, t.dataEnd);
      else if (t.no === TENSOR_DIMS && t.wire === 0) shape.push(readVarint(buf, t.dataStart)[0]);
      else if (t.no === TENSOR_DIMS && t.wire === 2) {
        for (let pos = t.dataStart; pos < t.dataEnd; ) {
          const [d, next] = readVarint(buf, pos);
          shape.push(d);
          pos = next;
        }
      }
    }
    dims.set(name, shape);
    types.set(name, type);
    if (type === FLOAT && value && shape.every((d) => d === 1))
      scalars.set(name, new DataView(value.buffer).getFloat32(0, true));
  }
  return { dims, types, scalars };
}

/** An AttributeProto's integer value (absent: the default). */
export function intAttribute(attribute: Uint8Array | undefined, fallback: number): number {
  if (!attribute) return fallback;
  const f = fields(attribute).find((a) => a.no === ATTRIBUTE_INT);
  return f ? readVarint(attribute, f.dataStart)[0] : fallback;
}

export function encodeNode(
  name: string,
  opType: string,
  inputs: readonly string[],
  outputs: readonly string[],
  attributes: readonly Uint8Array[],
  domain = '',
): Uint8Array {
  return delimited(
    GRAPH_NODE,
    concat([
      ...inputs.map((s) => delimited(NODE_INPUT, utf8.encode(s))),
      ...outputs.map((s) => delimited(NODE_OUTPUT, utf8.encode(s))),
      delimited(NODE_NAME, utf8.encode(name)),
      delimited(NODE_OP_TYPE, utf8.encode(opType)),
      ...attributes.map((a) => delimited(NODE_ATTRIBUTE, a)),
      ...(domain ? [delimited(NODE_DOMAIN, utf8.encode(domain))] : []),
    ]),
  );
}

/**
 * The model with every `Gather(Mul(Cast(Q), S), ids)` on axis 0 — Q and S initializers, S one scale


/** A model's graph, decoded as far as a rewrite needs. */
export interface Graph {
  readonly nodes: readonly Node[];
  /** Each initializer's dims, by name. */
  readonly dims: ReadonlyMap<string, number[]>;
  /** Each initializer's element type (onnx.proto's TensorProto.DataType: 1 float, 3 int8, …), by name. */
  readonly types: ReadonlyMap<string, number>;
  /** The value of each float32 initializer that holds one value, by name. */
  readonly scalars: ReadonlyMap<string, number>;
  /** How many nodes read each value; a graph output counts as infinitely many (its value must stay). */
  readonly readers: ReadonlyMap<string, number>;
  /** The node that computes each value. */
  readonly producer: ReadonlyMap<string, Node>;
}

/**
 * What a rewrite does to a graph's nodes: some dropped, some replaced by encoded nodes; and the
 * operator sets its new nodes need.
 */
export interface GraphEdit {
  readonly dropped: Set<Node>;
  readonly replaced: Map<Node, Uint8Array>;
  /** Operator set versions by domain, imported unless the model imports the domain already. */
  readonly imports: Map<string, number>;
}

/**
 * How `value` is computed when it is a weight dequantised in the graph, `Mul(Cast(Q), S)`, read by
 * one node, the Cast read only by the Mul: its nodes, Q and S. Otherwise undefined.
 */
export function dequantized(
  { producer, readers }: Graph,
  value: string,
): { mul: Node; cast: Node; quantized: string; scale: string } | undefined {
  const mul = producer.get(value);
  if (mul?.opType !== 'Mul' || mul.domain !== '' || readers.get(value) !== 1) return undefined;
  const cast = mul.inputs.map((i) => producer.get(i)).find((p) => p?.opType === 'Cast' && p.domain === '');
  if (!cast || readers.get(cast.outputs[0]!) !== 1) return undefined;
  const scale = mul.inputs.find((i) => i !== cast.outputs[0]);
  return scale === undefined ? undefined : { mul, cast, quantized: cast.inputs[0]!, scale };
}

/**
 * Decodes `model`'s graph, lets `edit` say which nodes to drop or replace, and returns the model
 * with those changes, or `model` itself when there are none.
 */
export function rewriteGraph(model: Uint8Array, edit: (graph: Graph, changes: GraphEdit) => void): Uint8Array {
  const top = fields(model);
  const graphField = top.find((f) => f.no === MODEL_GRAPH);
  if (!graphField) throw new Error('not an ONNX model: no graph');
  const graph = fields(model, graphField.dataStart, graphField.dataEnd);
  const nodes = graph.filter((f) => f.no === GRAPH_NODE && f.wire === 2).map((f) => readNode(model, f));
  const readers = new Map<string, number>();
  for (const n of nodes) for (const i of n.inputs) readers.set(i, (readers.get(i) ?? 0) + 1);
  for (const f of graph.filter((g) => g.no === GRAPH_OUTPUT)) {
    const name = fields(model, f.dataStart, f.dataEnd).find((v) => v.no === VALUE_INFO_NAME);
    if (name) readers.set(text.decode(model.subarray(name.dataStart, name.dataEnd)), Infinity);
  }
  const producer = new Map<string, Node>();
  for (const n of nodes) for (const o of n.outputs) producer.set(o, n);
  const changes: GraphEdit = { dropped: new Set(), replaced: new Map(), imports: new Map() };
  edit({ nodes, ...initializers(model, graph), readers, producer }, changes);
  if (changes.dropped.size === 0 && changes.replaced.size === 0) return model;
  for (const f of top.filter((t) => t.no === MODEL_OPSET_IMPORT)) {
    const domain = fields(model, f.dataStart, f.dataEnd).find((d) => d.no === OPSET_DOMAIN);
    changes.imports.delete(domain ? text.decode(model.subarray(domain.dataStart, domain.dataEnd)) : '');
  }
  const imports = [...changes.imports].map(([domain, version]) =>
    delimited(
      MODEL_OPSET_IMPORT,
      concat([delimited(OPSET_DOMAIN, utf8.encode(domain)), new Uint8Array([OPSET_VERSION * 8, ...varint(version)])]),
    ),
  );

  const byField = new Map(nodes.map((n) => [n.field, n]));
  // One copy of the model's bytes, not two: the graph's parts go straight behind its new header.
  const graphParts = graph.flatMap((f) => {
    const node = byField.get(f);
    if (node && changes.dropped.has(node)) return [];
    return [(node && changes.replaced.get(node)) ?? model.subarray(f.start, f.end)];
  });
  const graphHeader = new Uint8Array([
    ...varint(MODEL_GRAPH * 8 + 2),
    ...varint(graphParts.reduce((n, p) => n + p.length, 0)),
  ]);
  return concat([
    ...top.flatMap((f) => (f === graphField ? [graphHeader, ...graphParts] : [model.subarray(f.start, f.end)])),
    ...imports,
  ]);
}
