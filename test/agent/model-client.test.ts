/**
 * The model client: JSON answers asked for with a JSON schema (plain JSON from a server that
 * refuses one, remembered per model) and validated by zod, their length capped, retries on
 * failures worth retrying, a timeout, why a call failed; and its config.
 */
import { afterAll, describe, expect, it } from 'bun:test';
import { z } from 'zod';
import { ModelClient, ModelError } from '../../src/language-model/model-client';
import { TurnBudget } from '../../src/agent/turn-budget';
import { ConfigError, loadConfig } from '../../src/config';
import { ServiceError } from '../../src/errors';
import { freePort } from '../../bench/lib/engram-process';
import { startFakeModel } from './fake-model';

const Shape = z.object({ ok: z.boolean(), note: z.string().nullable().default(null) });
const hi = [{ role: 'user' as const, content: 'hi' }];
const asked = { name: 'shape', maxTokens: 50 };

describe('the model client', () => {
  const model = startFakeModel(() => ({ ok: true }));
  afterAll(() => model.stop());
  let models = 0;
  /** A client of a model name of its own: what a server refused is remembered per model. */
  const client = (retries = 2, timeoutMs = 2000, name = `m${++models}`) =>
    new ModelClient({ url: model.url, model: name, key: null, timeoutMs, retries });

  it('asks for JSON with the schema, at temperature 0 and capped at the tokens asked, without a bearer when no key is set', async () => {
    model.fixture = () => ({ ok: true });
    expect(await client().chatJson(hi, Shape, asked)).toEqual({ ok: true, note: null });
    expect(model.authorization.at(-1)).toBeNull();
    const sent = model.requests.at(-1)!;
    expect(sent).toMatchObject({ temperature: 0, max_tokens: 50 });
    expect(sent.response_format).toEqual({
      type: 'json_schema',
      json_schema: {
        name: 'shape',
        strict: true,
        // A field with a default is required: a constrained model always writes it.
        schema: {
          type: 'object',
          properties: { ok: { type: 'boolean' }, note: { type: ['string', 'null'] } },
          required: ['ok', 'note'],
          additionalProperties: false,
        },
      },
    });
  });

  it('falls back to json_object where the server refuses a schema, and asks that model so from then on', async () => {
    model.refusesSchema = true;
    try {
      const refusing = client();
      const before = model.requests.length;
      expect(await refusing.chatJson(hi, Shape, asked)).toEqual({ ok: true, note: null });
      expect(model.requests.slice(before).map((r) => r.response_format?.type)).toEqual(['json_schema', 'json_object']);
      expect(refusing.answerFormat).toBe('json_object');
      // Remembered for the model, by every client of it: one request now.
      const again = new ModelClient({ url: model.url, model: refusing.model, key: null, timeoutMs: 2000, retries: 0 });
      await again.chatJson(hi, Shape, asked);
      expect(model.requests.slice(before + 2).map((r) => r.response_format?.type)).toEqual(['json_object']);
      // Another model on the same server is asked with a schema first.
      expect(client().answerFormat).toBe('json_schema');
    } finally {
      model.refusesSchema = false;
    }
  });

  it('remembers no fallback when plain JSON is refused too: the request was refused, not the schema', async () => {
    model.fixture = () => ({ httpStatus: 400 });
    const c = client();
    const err = await c.chatJson(hi, Shape, asked).catch((e) => e);
    expect(err).toBeInstanceOf(ModelError);
    expect(err.failure).toBe('refused');
    expect(c.answerFormat).toBe('json_schema');
  });

  it('retries a 5xx, then answers', async () => {
    let n = 0;
    model.fixture = () => (++n === 1 ? { httpStatus: 503 } : { ok: true });
    expect(await client().chatJson(hi, Shape, asked)).toEqual({ ok: true, note: null });
    expect(n).toBe(2);
  });

  it('retries an answer that does not fit the schema, and reads JSON inside a Markdown fence', async () => {
    let n = 0;
    model.fixture = () => (++n === 1 ? { ok: 'yes' } : { rawContent: '```json\n{"ok": false}\n```' });
    expect(await client().chatJson(hi, Shape, asked)).toEqual({ ok: false, note: null });
  });

  it('asks again with twice the tokens when the answer was cut at the limit, but not a model rambling in plain JSON', async () => {
    model.fixture = (req) => (req.max_tokens! < 100 ? { rawContent: '{"ok": tr', cut: true } : { ok: true });
    const before = model.requests.length;
    expect(await client().chatJson(hi, Shape, asked)).toEqual({ ok: true, note: null });
    expect(model.requests.slice(before).map((r) => r.max_tokens)).toEqual([50, 100]);
    // Cut again with twice the room: a model filling every bound with words, not asked a third time.
    model.fixture = () => ({ rawContent: '{"ok": tr', cut: true });
    const filling = await client(2)
      .chatJson(hi, Shape, asked)
      .catch((e) => e);
    expect(filling.reason).toBe('the message was cut at 100 tokens');
    expect(model.requests.slice(before + 2).map((r) => r.max_tokens)).toEqual([50, 100]);
    model.refusesSchema = true;
    try {
      const rambling = await client()
        .chatJson(hi, Shape, asked)
        .catch((e) => e);
      expect(rambling.reason).toBe('the message was cut at 50 tokens');
      // The schema refused, then plain JSON once: the same again would ramble the same.
      expect(model.requests.slice(before + 4).map((r) => [r.response_format?.type, r.max_tokens])).toEqual([
        ['json_schema', 50],
        ['json_object', 50],
      ]);
    } finally {
      model.refusesSchema = false;
    }
  });

  it('says why a call failed: malformed answers, a refusal, no answer', async () => {
    model.fixture = () => ({ rawContent: 'Sure! Here are the facts: none.' });
    const malformed = await client(1)
      .chatJson(hi, Shape, asked)
      .catch((e) => e);
    expect([malformed.failure, malformed.message]).toEqual([
      'malformed',
      'The language model did not give a usable answer (the message is not JSON).',
    ]);
    const down = new ModelClient({
      url: `http://127.0.0.1:${freePort()}/v1`,
      model: 'm',
      key: null,
      timeoutMs: 500,
      retries: 0,
    });
    const unreachable = await down.chatJson(hi, Shape, asked).catch((e) => e);
    expect([unreachable.failure, unreachable.message]).toEqual([
      'unreachable',
      'The language model did not give a usable answer (connection failed).',
    ]);
  });

  it('does not retry a 400, and fails with a retryable internal error naming no prompt', async () => {
    let n = 0;
    model.fixture = () => {
      n++;
      return { httpStatus: 400 };
    };
    const err = await client()
      .chatJson([{ role: 'user', content: 'secret prompt' }], Shape, asked)
      .catch((e) => e);
    expect(err).toBeInstanceOf(ServiceError);
    expect(err.code).toBe('internal');
    expect(err.retryable).toBe(true);
    expect(err.message).toContain('HTTP 400');
    expect(err.message).not.toContain('secret prompt');
    // Asked with a schema, then plain JSON in case the schema was what it refused; not retried.
    expect(n).toBe(2);
  });

  it('gives up after the timeout on each attempt', async () => {
    model.fixture = () => ({ ok: true });
    model.delayMs = 500;
    try {
      const started = Date.now();
      const err = await client(0, 100)
        .chatJson(hi, Shape, asked)
        .catch((e) => e);
      expect([err.failure, err.message]).toEqual([
        'unreachable',
        'The language model did not give a usable answer (timed out after 100 ms).',
      ]);
      expect(Date.now() - started).toBeLessThan(450);
    } finally {
      model.delayMs = 0;
    }
  });

  it('ends a call at once when its signal aborts, with the signal’s reason', async () => {
    model.delayMs = 2000;
    try {
      const stop = new AbortController();
      const started = Date.now();
      const call = client(2, 5000).chatJson(hi, Shape, { ...asked, signal: stop.signal });
      setTimeout(() => stop.abort(new Error('stopping')), 100);
      expect(await call.catch((e) => e.message)).toBe('stopping');
      expect(Date.now() - started).toBeLessThan(1000);
    } finally {
      model.delayMs = 0;
    }
  });

  it('checks the model with one small request, saying the format it took', async () => {
    model.refusesSchema = true;
    try {
      const before = model.requests.length;
      const { format, ms } = await client().check();
      expect(format).toBe('json_object');
      expect(ms).toBeGreaterThan(0);
      expect(model.requests.slice(before).map((r) => r.max_tokens)).toEqual([16, 16]);
    } finally {
      model.refusesSchema = false;
    }
    try {
      // Any JSON object will do; an answer that is no JSON says the model is there, but answers badly.
      model.check = () => ({});
      expect((await client().check()).format).toBe('json_schema');
      model.check = () => ({ rawContent: 'Hello! How can I help?' });
      expect(
        (
          await client()
            .check()
            .catch((e) => e)
        ).failure,
      ).toBe('malformed');
      model.check = () => ({ httpStatus: 503 });
      expect(
        (
          await client()
            .check()
            .catch((e) => e)
        ).failure,
      ).toBe('unreachable');
    } finally {
      model.check = () => ({ ok: true });
    }
  });
});

describe('the model configuration', () => {
  it('is off without ENGRAM_MODEL_URL and ENGRAM_MODEL', () => {
    expect(loadConfig({}).model).toBeNull();
  });

  it('reads the URL, the model, the key, the timeout and the retries', () => {
    const config = loadConfig({
      ENGRAM_MODEL_URL: 'http://127.0.0.1:11434/v1/',
      ENGRAM_MODEL: 'llama3.2',
      ENGRAM_MODEL_KEY: 'k',
      ENGRAM_MODEL_TIMEOUT_SECONDS: '30',
      ENGRAM_MODEL_RETRIES: '1',
    });
    expect(config.model).toEqual({
      url: 'http://127.0.0.1:11434/v1',
      model: 'llama3.2',
      key: 'k',
      timeoutMs: 30_000,
      retries: 1,
    });
  });

  it('refuses half a configuration, naming each bad variable', () => {
    expect(() => loadConfig({ ENGRAM_MODEL_URL: 'http://127.0.0.1:1234/v1' })).toThrow(ConfigError);
    expect(() => loadConfig({ ENGRAM_MODEL: 'x', ENGRAM_MODEL_URL: 'ftp://x' })).toThrow(/ENGRAM_MODEL_URL/);
  });
});

describe('the turn budget', () => {
  it('holds two turns per account, refuses the third with 429, and frees on failure', async () => {
    const budget = new TurnBudget();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const held = [budget.run('a', () => gate), budget.run('a', () => gate)];
    const third = await budget.run('a', () => 1).catch((e) => e);
    expect(third).toBeInstanceOf(ServiceError);
    expect(third.code).toBe('rate_limited');
    expect(await budget.run('b', () => 'other account')).toBe('other account');
    release();
    await Promise.all(held);
    await budget
      .run('a', () => {
        throw new Error('boom');
      })
      .catch(() => {});
    expect(budget.inUse('a')).toBe(0);
  });
});
