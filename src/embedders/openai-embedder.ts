/**
 * An embedder behind an OpenAI-compatible HTTP endpoint (OpenAI, llama.cpp's server, Ollama, vLLM,
 * LM Studio, …): POST {model, input: [texts]} to `<url>/v1/embeddings`, read `data[].embedding`.
 * Texts go in batches; each request has a timeout; vectors come back L2-normalised.
 */
import { type Embedder, normalizeInPlace } from './embedder';

export interface OpenAIEmbedderOptions {
  /**
   * The server: `http://host:port` (→ `/v1/embeddings`), `http://host:port/v1` (→ `/v1/embeddings`),
   * or a full URL already ending in `/embeddings`, used as given.
   */
  readonly url: string;
  readonly model: string;
  /** Sent as `Authorization: Bearer <key>`. */
  readonly key?: string | null;
  /** Expected vector length. Unset: learned from the first answer (see `OpenAIEmbedder.connect`). */
  readonly dimensions?: number;
  /** Texts a request at most (default 64). */
  readonly batchSize?: number;
  /** Milliseconds a request may take (default 30,000). */
  readonly timeoutMs?: number;
  /** For tests and proxies; defaults to the global fetch. */
  readonly fetch?: typeof fetch;
}

/** A failed embedding request: the endpoint's status (0 when it was never reached) and its message. */
export class EmbeddingRequestError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly url: string,
  ) {
    super(message);
    this.name = 'EmbeddingRequestError';
  }
}

const DEFAULT_BATCH = 64;
const DEFAULT_TIMEOUT_MS = 30_000;

export function embeddingsUrl(url: string): string {
  const base = url.trim().replace(/\/+$/, '');
  if (/\/embeddings$/.test(base)) return base;
  if (/\/v1$/.test(base)) return `${base}/embeddings`;
  return `${base}/v1/embeddings`;
}

export class OpenAIEmbedder implements Embedder {
  readonly id: string;
  readonly endpoint: string;
  private dims: number;
  private readonly opts: OpenAIEmbedderOptions;
  private readonly batchSize: number;
  private readonly timeoutMs: number;

  constructor(opts: OpenAIEmbedderOptions) {
    this.opts = opts;
    this.endpoint = embeddingsUrl(opts.url);
    this.dims = opts.dimensions ?? 0;
    this.batchSize = opts.batchSize ?? DEFAULT_BATCH;
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    if (!opts.model) throw new Error('the openai embedder needs a model name');
    if (!Number.isInteger(this.batchSize) || this.batchSize < 1)
      throw new Error('batchSize must be a positive integer');
    if (!(this.timeoutMs > 0)) throw new Error('timeoutMs must be positive');
    this.id = `openai:${opts.model}@${this.endpoint}`;
  }

  /** An embedder whose dimensions are known: asks the endpoint once when they were not given. */
  static async connect(opts: OpenAIEmbedderOptions): Promise<OpenAIEmbedder> {
    const e = new OpenAIEmbedder(opts);
    if (e.dims === 0) await e.embed(['dimension probe']);
    return e;
  }

  /** The vector length: as configured, else learned from the first answer (0 before it). */
  get dimensions(): number {
    return this.dims;
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += this.batchSize) {
      out.push(...(await this.request(texts.slice(i, i + this.batchSize))));
    }
    return out;
  }

  private async request(input: string[]): Promise<Float32Array[]> {
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
    if (this.opts.key) headers.authorization = `Bearer ${this.opts.key}`;
    const doFetch = this.opts.fetch ?? fetch;
    let res: Response;
    let text: string;
    try {
      res = await doFetch(this.endpoint, {
        method: 'POST',
        headers,
        body: JSON.stringify({ model: this.opts.model, input }),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      text = await res.text();
    } catch (err) {
      const name = (err as { name?: string } | null)?.name;
      const why =
        name === 'TimeoutError' || name === 'AbortError'
          ? `timed out after ${this.timeoutMs} ms`
          : String((err as Error)?.message ?? err);
      throw new EmbeddingRequestError(`embedding request to ${this.endpoint} failed: ${why}`, 0, this.endpoint);
    }
    if (!res.ok) {
      throw new EmbeddingRequestError(
        `embedding endpoint answered ${res.status}: ${errorMessage(text)}`,
        res.status,
        this.endpoint,
      );
    }
    return this.parse(text, input.length, res.status);
  }

  private parse(text: string, expected: number, status: number): Float32Array[] {
    const fail = (why: string) =>
      new EmbeddingRequestError(`embedding endpoint gave an unusable answer: ${why}`, status, this.endpoint);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw fail('not JSON');
    }
    const data = (body as { data?: unknown })?.data;
    if (!Array.isArray(data)) throw fail('no data array');
    if (data.length !== expected) throw fail(`${data.length} embeddings for ${expected} inputs`);
    const vectors: (Float32Array | undefined)[] = new Array(expected);
    data.forEach((item: unknown, position: number) => {
      const { embedding, index } = (item ?? {}) as { embedding?: unknown; index?: unknown };
      const at = typeof index === 'number' ? index : position;
      if (!Number.isInteger(at) || at < 0 || at >= expected || vectors[at])
        throw fail(`bad or repeated index ${String(index)}`);
      const v = toVector(embedding);
      if (!v) throw fail(`embedding ${at} is not a list of numbers`);
      if (this.dims === 0) this.dims = v.length;
      if (v.length !== this.dims) throw fail(`embedding ${at} has ${v.length} dimensions, expected ${this.dims}`);
      vectors[at] = normalizeInPlace(v);
    });
    return vectors as Float32Array[];
  }
}

/** Numbers, or a base64 string of little-endian float32 (`encoding_format: "base64"`). */
function toVector(embedding: unknown): Float32Array | null {
  if (Array.isArray(embedding)) {
    if (embedding.length === 0 || !embedding.every((x) => typeof x === 'number' && Number.isFinite(x))) return null;
    return Float32Array.from(embedding as number[]);
  }
  if (typeof embedding === 'string') {
    let bytes: Uint8Array;
    try {
      bytes = Uint8Array.from(atob(embedding), (c) => c.charCodeAt(0));
    } catch {
      return null;
    }
    if (bytes.length === 0 || bytes.length % 4 !== 0) return null;
    const view = new DataView(bytes.buffer);
    const v = new Float32Array(bytes.length / 4);
    for (let i = 0; i < v.length; i++) v[i] = view.getFloat32(4 * i, true);
    return v.every(Number.isFinite) ? v : null;
  }
  return null;
}

function errorMessage(text: string): string {
  try {
    const body = JSON.parse(text) as { error?: { message?: unknown } | string; message?: unknown };
    const m = typeof body.error === 'string' ? body.error : (body.error?.message ?? body.message);
    if (typeof m === 'string' && m) return m.slice(0, 500);
  } catch {
    // not JSON: the text itself
  }
  return text.slice(0, 500) || '(empty body)';
}
