import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { EmbeddingRequestError, OpenAIEmbedder, embeddingsUrl } from '../../src/embedders/openai-embedder';

/** A small server speaking the OpenAI embeddings protocol, with a few misbehaviours on request. */
interface Seen {
  path: string;
  auth: string | null;
  body: { model: string; input: string[] };
}
const seen: Seen[] = [];
let server: ReturnType<typeof Bun.serve>;
let base: string;

/** A deterministic, unnormalised 4-dimensional "embedding" of a text. */
const fake = (text: string) => [text.length, 1, text.split(' ').length, 2];

beforeAll(() => {
  server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(req) {
      const url = new URL(req.url);
      const body = (await req.json()) as Seen['body'];
      seen.push({ path: url.pathname, auth: req.headers.get('authorization'), body });
      if (url.pathname.startsWith('/nothing')) return new Response('not found', { status: 404 });
      switch (body.model) {
        case 'broken':
          return Response.json(
            { error: { message: 'model "broken" is not loaded', type: 'invalid_request_error' } },
            { status: 400 },
          );
        case 'plain-error':
          return new Response('upstream exploded', { status: 502 });
        case 'slow':
          await Bun.sleep(1000);
          break;
        case 'short':
          return Response.json({ data: [{ index: 0, embedding: [1, 0] }] });
        case 'ragged':
          return Response.json({
            data: body.input.map((_, i) => ({ index: i, embedding: i === 0 ? [1, 0] : [1, 0, 0] })),
          });
        case 'garbage':
          return new Response('<html>', { headers: { 'content-type': 'text/html' } });
      }
      const data = body.input.map((text, index) => ({ object: 'embedding', index, embedding: fake(text) }));
      if (body.model === 'shuffled') data.reverse();
      if (body.model === 'base64') {
        return Response.json({
          data: data.map((d) => ({
            ...d,
            embedding: Buffer.from(new Float32Array(d.embedding).buffer).toString('base64'),
          })),
        });
      }
      return Response.json({ object: 'list', data, model: body.model, usage: { prompt_tokens: 1, total_tokens: 1 } });
    },
  });
  base = `http://127.0.0.1:${server.port}`;
});

afterAll(() => server.stop(true));

const unit = (v: number[]) => {
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
};
const close = (got: Float32Array, want: number[]) => {
  for (const [i, w] of want.entries()) expect(got[i]).toBeCloseTo(w, 6);
};

describe('OpenAI-compatible embedder', () => {
  test('endpoint URL: appends /v1/embeddings unless given', () => {
    expect(embeddingsUrl('http://h:1')).toBe('http://h:1/v1/embeddings');
    expect(embeddingsUrl('http://h:1/')).toBe('http://h:1/v1/embeddings');
    expect(embeddingsUrl('http://h:1/v1')).toBe('http://h:1/v1/embeddings');
    expect(embeddingsUrl('http://h:1/api/embeddings')).toBe('http://h:1/api/embeddings');
    expect(embeddingsUrl('http://h:1/openai/v1/embeddings/')).toBe('http://h:1/openai/v1/embeddings');
  });

  test('posts {model, input} with the key and returns normalised vectors in order', async () => {
    seen.length = 0;
    const e = new OpenAIEmbedder({ url: base, model: 'm1', key: 'secret' });
    expect(e.dimensions).toBe(0);
    const texts = ['hello world', 'a b c', 'x'];
    const vectors = await e.embed(texts);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toEqual({ path: '/v1/embeddings', auth: 'Bearer secret', body: { model: 'm1', input: texts } });
    expect(vectors).toHaveLength(3);
    vectors.forEach((v, i) => {
      expect(v).toBeInstanceOf(Float32Array);
      close(v, unit(fake(texts[i]!)));
    });
    expect(e.dimensions).toBe(4);
    expect(e.id).toBe(`openai:m1@${base}/v1/embeddings`);
  });

  test('splits into batches and keeps the order', async () => {
    seen.length = 0;
    const e = new OpenAIEmbedder({ url: `${base}/custom/embeddings`, model: 'm1', batchSize: 2 });
    const texts = ['one', 'two words', 'three little words', 'four', 'five five five five five'];
    const vectors = await e.embed(texts);
    expect(seen.map((s) => s.body.input.length)).toEqual([2, 2, 1]);
    expect(seen.every((s) => s.path === '/custom/embeddings' && s.auth === null)).toBe(true);
    for (const [i, v] of vectors.entries()) close(v, unit(fake(texts[i]!)));
  });

  test('answers out of order are put back by index; base64 vectors are read', async () => {
    const texts = ['alpha', 'beta gamma'];
    const shuffled = await new OpenAIEmbedder({ url: base, model: 'shuffled' }).embed(texts);
    for (const [i, v] of shuffled.entries()) close(v, unit(fake(texts[i]!)));
    const b64 = await new OpenAIEmbedder({ url: base, model: 'base64' }).embed(texts);
    for (const [i, v] of b64.entries()) close(v, unit(fake(texts[i]!)));
  });

  test('connect learns the dimensions; configured dimensions are enforced', async () => {
    const e = await OpenAIEmbedder.connect({ url: base, model: 'm1' });
    expect(e.dimensions).toBe(4);
    const wrong = new OpenAIEmbedder({ url: base, model: 'm1', dimensions: 8 });
    await expect(wrong.embed(['x'])).rejects.toThrow(/4 dimensions, expected 8/);
  });

  test('no texts, no request', async () => {
    seen.length = 0;
    expect(await new OpenAIEmbedder({ url: base, model: 'm1' }).embed([])).toEqual([]);
    expect(seen).toHaveLength(0);
  });

  test('an error answer becomes an EmbeddingRequestError with the status and message', async () => {
    const e = new OpenAIEmbedder({ url: base, model: 'broken' });
    const err = await e.embed(['x']).catch((x: unknown) => x);
    expect(err).toBeInstanceOf(EmbeddingRequestError);
    expect((err as EmbeddingRequestError).status).toBe(400);
    expect((err as EmbeddingRequestError).message).toContain('model "broken" is not loaded');

    const plain = await new OpenAIEmbedder({ url: base, model: 'plain-error' }).embed(['x']).catch((x: unknown) => x);
    expect((plain as EmbeddingRequestError).status).toBe(502);
    expect((plain as EmbeddingRequestError).message).toContain('upstream exploded');

    const notFound = await new OpenAIEmbedder({ url: `${base}/nothing/here`, model: 'm1' })
      .embed(['x'])
      .catch((x: unknown) => x);
    expect((notFound as EmbeddingRequestError).status).toBe(404);
  });

  test('unusable answers are refused', async () => {
    const ask = (model: string) => new OpenAIEmbedder({ url: base, model }).embed(['a', 'b']);
    await expect(ask('short')).rejects.toThrow(/1 embeddings for 2 inputs/);
    await expect(ask('ragged')).rejects.toThrow(/3 dimensions, expected 2/);
    await expect(ask('garbage')).rejects.toThrow(/not JSON/);
  });

  test('a slow endpoint times out', async () => {
    const e = new OpenAIEmbedder({ url: base, model: 'slow', timeoutMs: 100 });
    const started = performance.now();
    const err = await e.embed(['x']).catch((x: unknown) => x);
    expect(performance.now() - started).toBeLessThan(900);
    expect(err).toBeInstanceOf(EmbeddingRequestError);
    expect((err as EmbeddingRequestError).message).toMatch(/timed out after 100 ms/);
    expect((err as EmbeddingRequestError).status).toBe(0);
  });

  test('an unreachable endpoint fails with status 0', async () => {
    const closed = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response('') });
    const url = `http://127.0.0.1:${closed.port}`;
    await closed.stop(true);
    const err = await new OpenAIEmbedder({ url, model: 'm1', timeoutMs: 2000 }).embed(['x']).catch((x: unknown) => x);
    expect(err).toBeInstanceOf(EmbeddingRequestError);
    expect((err as EmbeddingRequestError).status).toBe(0);
  });

  test('rejects bad options', () => {
    expect(() => new OpenAIEmbedder({ url: base, model: '' })).toThrow(/model/);
    expect(() => new OpenAIEmbedder({ url: base, model: 'm', batchSize: 0 })).toThrow(/batchSize/);
  });
});
