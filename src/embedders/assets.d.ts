// Model files imported with `with { type: 'file' }`: Bun gives their path (inside a compiled
// executable, a path into the embedded files), which is what the loader reads.
declare module '*.bin' {
  const path: string;
  export default path;
}
declare module '*/minilm-l6-static/vocab.txt' {
  const path: string;
  export default path;
}
declare module '*.onnx' {
  const path: string;
  export default path;
}
declare module '*/minilm-l6-int8/vocab.txt' {
  const path: string;
  export default path;
}
