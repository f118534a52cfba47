/**
 * A client for an OpenAI-compatible chat-completions endpoint (Ollama, LM Studio, llama.cpp,
 * vLLM, OpenAI): one JSON answer per call, asked for with a JSON schema and validated by a zod
 * schema, its length capped, with a timeout and retries. It knows nothing of operations; turns
 * build the messages and read the answer.
 */
import { z } from 'zod';
import type { ModelConfig } from '../config';
import { ServiceError } from '../errors';

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface ModelClientOptions {
  /** Milliseconds one attempt may take. */
  timeoutMs?: number;
  /** Attempts after the first, on a connection error, a timeout, 408, 429, 5xx or an answer that does not fit. */
  retries?: number;
  fetch?: typeof fetch;
}

export interface ChatOptions {
  /** The answer's name in `response_format` (letters, digits, `_`). */
  name: string;
  /** The most tokens the answer may take: sized to the answer asked for, so a model that rambles stops. */
  maxTokens: number;
  /**
   * The JSON schema the server constrains the answer to; derived from the validating schema when
   * absent. A turn gives a tighter one (passage numbers that exist) than it validates with, so that
   * one bad item of a loose answer is dropped rather than the whole answer.
   */
  jsonSchema?: Record<string, unknown>;
  /** Ends the call at once (a learner stopping): it rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Attempts after the first; the client's setting when absent. */
  retries?: number;
}

/**
 * How JSON is asked for: `json_schema` (llama.cpp's server, Ollama, LM Studio, OpenAI and vLLM
 * constrain the answer to the schema) or, from a server that refuses that, `json_object`.
 */
export type AnswerFormat = 'json_schema' | 'json_object';

/**
 * Why a model gave no usable answer: `unreachable` (no answer: a connection error, a timeout, 408,
 * 429, 5xx: the model's fault, not the request's), `refused` (another 4xx), `malformed` (an answer
 * that is not the JSON asked for).
 */
export type ModelFailure = 'unreachable' | 'refused' | 'malformed';

/** A call that got no usable answer: ServiceError `internal` (retryable), with why. */
export class ModelError extends ServiceError {
  constructor(
    readonly failure: ModelFailure,
    /** What the last attempt got, in a few words ("HTTP 503", "connection failed"). */
    readonly reason: string,
    model: string,
  ) {
    super('internal', `The language model did not give a usable answer (${reason}).`, { model });
  }
}

const BACKOFF_MS = [250, 1000, 4000];
/**
 * An answer cut at `max_tokens` under a JSON schema (whose bounds the tokens were sized to) is asked
 * again once, with this many times the tokens; cut again, it is a model filling every bound of the
 * schema with words, which it would do again. Under plain JSON a cut answer is a model rambling: it
 * is not asked again.
 */
const TRUNCATED_GROWTH = 2;
/** Statuses with which servers refuse a `response_format` they do not support. */
const REFUSED_FORMAT = new Set([400, 422, 501]);

/**
 * The format each model (by endpoint and name) takes, once known, for every client of the process:
 * a server that refuses a JSON schema is asked for `json_object` from then on.
 */
const formats = new Map<string, AnswerFormat>();

/** The check's answer: asked for as `{"ok": true}`, taken as any JSON object (a small model may answer `{}`). */
const Check = z.record(z.string(), z.unknown());
const CHECK_SCHEMA = answerSchema(z.object({ ok: z.boolean() }));

type Outcome<T> =
  | { ok: true; value: T }
  | { ok: false; failure: ModelFailure; retry: boolean; reason: string; status?: number; truncated?: boolean };

export class ModelClient {
  readonly model: string;
  private readonly url: string;
  private readonly key: string | null;
  private readonly timeoutMs: number;
  private readonly retries: number;
  private readonly fetchFn: typeof fetch;

  constructor(config: ModelConfig, options: ModelClientOptions = {}) {
    this.model = config.model;
    this.url = `${config.url.replace(/\/+$/, '')}/chat/completions`;
    this.key = config.key;
    this.timeoutMs = options.timeoutMs ?? config.timeoutMs;
    this.retries = options.retries ?? config.retries;
    this.fetchFn = options.fetch ?? fetch;
  }

  /** How JSON is asked of this model now: a JSON schema until its server refuses one. */
  get answerFormat(): AnswerFormat {
    return formats.get(this.formatKey) ?? 'json_schema';
  }

  private get formatKey(): string {
    return `${this.url}\n${this.model}`;
  }

  /**
   * Sends the messages and returns the model's JSON answer parsed by `schema`. Throws ModelError
   * when every attempt failed (the message names no secret and no prompt), or the signal's reason
   * once `options.signal` aborts.
   */
  async chatJson<S extends z.ZodType>(messages: ChatMessage[], schema: S, options: ChatOptions): Promise<z.output<S>> {
    const jsonSchema = options.jsonSchema ?? answerSchema(schema);
    let maxTokens = options.maxTokens;
    let last: Extract<Outcome<unknown>, { ok: false }> | null = null;
    const retries = options.retries ?? this.retries;
    for (let attempt = 0; attempt <= retries; attempt++) {
      if (attempt > 0) await sleep(BACKOFF_MS[Math.min(attempt - 1, BACKOFF_MS.length - 1)]!, options.signal);
      const format = this.answerFormat;
      let outcome = await this.attempt(messages, schema, { ...options, jsonSchema, maxTokens }, format);
      if (!outcome.ok && format === 'json_schema' && REFUSED_FORMAT.has(outcome.status ?? 0)) {
        // The server may not take a JSON schema: ask again for plain JSON, and remember that it
        // did so only when the plain request is not refused too (then it was the request).
        const plain = await this.attempt(messages, schema, { ...options, jsonSchema, maxTokens }, 'json_object');
        if (plain.ok || !REFUSED_FORMAT.has(plain.status ?? 0)) formats.set(this.formatKey, 'json_object');
        outcome = plain;
      }
      if (outcome.ok) return outcome.value;
      last = outcome;
      if (!outcome.retry || (outcome.truncated && maxTokens > options.maxTokens)) break;
      if (outcome.truncated) maxTokens = options.maxTokens * TRUNCATED_GROWTH;
    }
    throw new ModelError(last!.failure, last!.reason, this.model);
  }

  /**
   * One small request at start: is the model there, and does it answer JSON? Resolves with the
   * format it took and how long it took; throws ModelError (or the signal's reason) otherwise: a
   * `malformed` one when it answers, but not with a JSON object.
   */
  async check(signal?: AbortSignal): Promise<{ format: AnswerFormat; ms: number }> {
    const started = performance.now();
    await this.chatJson(
      [{ role: 'user', content: 'Reply with the JSON object {"ok": true} and nothing else.' }],
      Check,
      { name: 'check', maxTokens: 16, jsonSchema: CHECK_SCHEMA, retries: 0, signal },
    );
    return { format: this.answerFormat, ms: performance.now() - started };
  }

  private async attempt<S extends z.ZodType>(
    messages: ChatMessage[],
    schema: S,
    options: ChatOptions & { jsonSchema: Record<string, unknown> },
    format: AnswerFormat,
  ): Promise<Outcome<z.output<S>>> {
    const headers: Record<string, string> = { 'Content-Type': 'application/json' };
    if (this.key) headers.Authorization = `Bearer ${this.key}`;
    const response_format =
      format === 'json_schema'
        ? { type: 'json_schema', json_schema: { name: options.name, schema: options.jsonSchema, strict: true } }
        : { type: 'json_object' };
    const timeout = AbortSignal.timeout(this.timeoutMs);
    let res: Response;
    try {
      res = await this.fetchFn(this.url, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          model: this.model,
          messages,
          temperature: 0,
          max_tokens: options.maxTokens,
          response_format,
        }),
        signal: options.signal ? AbortSignal.any([timeout, options.signal]) : timeout,
      });
    } catch {
      if (options.signal?.aborted) throw options.signal.reason;
      const reason = timeout.aborted ? `timed out after ${this.timeoutMs} ms` : 'connection failed';
      return { ok: false, failure: 'unreachable', retry: true, reason };
    }
    if (!res.ok) {
      await res.body?.cancel();
      const unreachable = res.status === 408 || res.status === 429 || res.status >= 500;
      return {
        ok: false,
        failure: unreachable ? 'unreachable' : 'refused',
        retry: unreachable,
        reason: `HTTP ${res.status}`,
        status: res.status,
      };
    }
    let choice: { message?: { content?: unknown }; finish_reason?: unknown } | undefined;
    try {
      choice = ((await res.json()) as { choices?: (typeof choice)[] }).choices?.[0];
    } catch {
      if (options.signal?.aborted) throw options.signal.reason;
      return { ok: false, failure: 'malformed', retry: true, reason: 'the answer is not JSON' };
    }
    const content = choice?.message?.content;
    if (typeof content !== 'string')
      return { ok: false, failure: 'malformed', retry: true, reason: 'the answer has no message content' };
    const truncated = choice?.finish_reason === 'length';
    let json: unknown;
    try {
      json = JSON.parse(stripFence(content));
    } catch {
      if (!truncated) return { ok: false, failure: 'malformed', retry: true, reason: 'the message is not JSON' };
      const reason = `the message was cut at ${options.maxTokens} tokens`;
      return { ok: false, failure: 'malformed', retry: format === 'json_schema', reason, truncated };
    }
    const parsed = schema.safeParse(json);
    if (!parsed.success)
      return { ok: false, failure: 'malformed', retry: true, reason: 'the message does not fit the expected shape' };
    return { ok: true, value: parsed.data };
  }
}

/**
 * The JSON schema a server constrains an answer to: what the validating schema puts out (a field
 * with a default is required in it, so a constrained model always writes it), without the
 * defaults (strict servers refuse the keyword) and the bounds zod gives every integer (±2^53),
 * which servers would turn into a grammar for nothing.
 */
export function answerSchema(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _, ...json } = z.toJSONSchema(schema, {
    io: 'output',
    target: 'draft-7',
    override: ({ jsonSchema }) => {
      delete jsonSchema.default;
      if (jsonSchema.minimum === Number.MIN_SAFE_INTEGER) delete jsonSchema.minimum;
      if (jsonSchema.maximum === Number.MAX_SAFE_INTEGER) delete jsonSchema.maximum;
    },
  });
  return json;
}

/** Some local models wrap JSON in a Markdown fence even when asked not to. */
function stripFence(text: string): string {
  const m = /^\s*```(?:json)?\s*([\s\S]*?)\s*```\s*$/.exec(text);
  return m ? m[1]! : text;
}

/** Waits `ms`, or rejects with the signal's reason once it aborts. */
function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (!signal) return Bun.sleep(ms);
  signal.throwIfAborted();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** The model, or 422 `capability_unavailable` for a turn that cannot run without one. */
export function requireModel(model: ModelClient | null): ModelClient {
  if (!model) {
    throw new ServiceError(
      'capability_unavailable',
      'No language model is configured on this server (ENGRAM_MODEL_URL and ENGRAM_MODEL), so this turn cannot run.',
    );
  }
  return model;
}
