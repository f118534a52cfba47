/**
 * A client for an OpenAI-compatible chat-completions endpoint (Ollama, LM Studio, llama.cpp,
 * vLLM, OpenAI): one JSON answer per call, validated by a zod schema, with a timeout and retries.
 * It knows nothing of operations; turns build the messages and read the answer.
 */
import type { z } from 'zod';
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

const BACKOFF_MS = [250, 1000, 4000];

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

  /**
   * Sends the messages and returns the model's JSON answer parsed by `schema`. Throws ServiceError
   * `internal` (retryable) when every attempt failed; the message names no secret and no prompt.
   */
  async chatJson<S extends z.ZodType>(messages: ChatMessage[], schema: S): Promise<z.output<S>> {
    let last = 'no attempt';
    for (let attempt = 0; attempt <= this.retries; attempt++) {
      if (attempt > 0) await Bun.sleep(BACKOFF_MS[Math.min(attempt - 1, BACKOFF_MS.length - 1)]!);
      const outcome = await this.attempt(messages, schema);
      if (outcome.ok) return outcome.value;
      last = outcome.reason;
      if (!outcome.retry) break;
    }
    throw new ServiceError('internal', `The language model did not give a usable answer (${last}).`, {
      model: this.model,
    });
  }

  private async attempt<S extends z.ZodType>(
    messages: ChatMessage[],
    schema: S,
  ): Promise<{ ok: true; value: z.output<S> } | { ok: false; retry: boolean; reason: string }> {
    const headers: Record<string, string> = { 'Content-Type': 'application/json' };
    if (this.key) headers.Authorization = `Bearer ${this.key}`;
    let res: Response;
    try {
      res = await this.fetchFn(this.url, {
        method: 'POST',
        headers,
        body: JSON.stringify({ model: this.model, messages, temperature: 0, response_format: { type: 'json_object' } }),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (err) {
      const timedOut = (err as Error).name === 'TimeoutError' || (err as Error).name === 'AbortError';
      return {
        ok: false,
        retry: true,
        reason: timedOut ? `timed out after ${this.timeoutMs} ms` : 'connection failed',
      };
    }
    if (!res.ok) {
      await res.body?.cancel();
      const retry = res.status === 408 || res.status === 429 || res.status >= 500;
      return { ok: false, retry, reason: `HTTP ${res.status}` };
    }
    let content: unknown;
    try {
      const body = (await res.json()) as { choices?: Array<{ message?: { content?: unknown } }> };
      content = body.choices?.[0]?.message?.content;
    } catch {
      return { ok: false, retry: true, reason: 'the answer is not JSON' };
    }
    if (typeof content !== 'string') return { ok: false, retry: true, reason: 'the answer has no message content' };
    let json: unknown;
    try {
      json = JSON.parse(stripFence(content));
    } catch {
      return { ok: false, retry: true, reason: 'the message is not JSON' };
    }
    const parsed = schema.safeParse(json);
    if (!parsed.success) return { ok: false, retry: true, reason: 'the message does not fit the expected shape' };
    return { ok: true, value: parsed.data };
  }
}

/** Some local models wrap JSON in a Markdown fence even when asked not to. */
function stripFence(text: string): string {
  const m = /^\s*```(?:json)?\s*([\s\S]*?)\s*```\s*$/.exec(text);
  return m ? m[1]! : text;
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
