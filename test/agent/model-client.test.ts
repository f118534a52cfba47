/** The model client: JSON answers validated by zod, retries on failures worth retrying, a timeout; and its config. */
import { afterAll, describe, expect, it } from 'bun:test';
import { z } from 'zod';
import { ModelClient } from '../../src/language-model/model-client';
import { TurnBudget } from '../../src/agent/turn-budget';
import { ConfigError, loadConfig } from '../../src/config';
import { ServiceError } from '../../src/errors';
import { startFakeModel } from './fake-model';

const Shape = z.object({ ok: z.boolean() });

describe('the model client', () => {
  const model = startFakeModel(() => ({ ok: true }));
  afterAll(() => model.stop());
  const client = (retries = 2, timeoutMs = 2000) =>
    new ModelClient({ url: model.url, model: 'm', key: null, timeoutMs, retries });

  it('returns the JSON answer parsed by the schema, without a bearer when no key is set', async () => {
    model.fixture = () => ({ ok: true });
    expect(await client().chatJson([{ role: 'user', content: 'hi' }], Shape)).toEqual({ ok: true });
    expect(model.authorization.at(-1)).toBeNull();
  });

  it('retries a 5xx, then answers', async () => {
    let n = 0;
    model.fixture = () => (++n === 1 ? { httpStatus: 503 } : { ok: true });
    expect(await client().chatJson([{ role: 'user', content: 'hi' }], Shape)).toEqual({ ok: true });
    expect(n).toBe(2);
  });

  it('retries an answer that does not fit the schema, and reads JSON inside a Markdown fence', async () => {
    let n = 0;
    model.fixture = () => (++n === 1 ? { ok: 'yes' } : { rawContent: '```json\n{"ok": false}\n```' });
    expect(await client().chatJson([{ role: 'user', content: 'hi' }], Shape)).toEqual({ ok: false });
  });

  it('does not retry a 400, and fails with a retryable internal error naming no prompt', async () => {
    let n = 0;
    model.fixture = () => {
      n++;
      return { httpStatus: 400 };
    };
    const err = await client()
      .chatJson([{ role: 'user', content: 'secret prompt' }], Shape)
      .catch((e) => e);
    expect(err).toBeInstanceOf(ServiceError);
    expect(err.code).toBe('internal');
    expect(err.message).toContain('HTTP 400');
    expect(err.message).not.toContain('secret prompt');
    expect(n).toBe(1);
  });

  it('gives up after the timeout on each attempt', async () => {
    model.fixture = () => ({ ok: true });
    model.delayMs = 500;
    try {
      const started = Date.now();
      const err = await client(0, 100)
        .chatJson([{ role: 'user', content: 'hi' }], Shape)
        .catch((e) => e);
      expect(err.message).toContain('timed out');
      expect(Date.now() - started).toBeLessThan(450);
    } finally {
      model.delayMs = 0;
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
