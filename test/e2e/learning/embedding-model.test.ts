/**
 * Embedders chosen by configuration, and a change of model: an OpenAI-compatible endpoint (a small
 * local server speaking /v1/embeddings) replaces the built-in model, the stored vectors are made
 * again in the background, and search works, keyword-only, while that runs. Passages learned while
 * no embedder ran are embedded once one is back.
 */
import { afterAll, describe, expect, it } from 'bun:test';
import { call, makeContainer, makeKey, makeOwner, startTestServer } from '../../helpers/server';

/** Vectors from letter counts: crude, but deterministic and enough to tell the endpoint was used. */
function letterVector(text: string): number[] {
  const v = new Array(26).fill(0);
  for (const ch of text.toLowerCase()) if (ch >= 'a' && ch <= 'z') v[ch.charCodeAt(0) - 97]++;
  return v;
}

describe('changing the embedding model', () => {
  const seen: string[] = [];
  const endpoint = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(req) {
      const { model, input } = (await req.json()) as { model: string; input: string[] };
      seen.push(...input);
      return Response.json({
        object: 'list',
        model,
        data: input.map((text, index) => ({ object: 'embedding', index, embedding: letterVector(text) })),
      });
    },
  });
  afterAll(() => endpoint.stop(true));

  it('re-embeds every passage with the new model, keyword-only until done', async () => {
    let server = await startTestServer();
    const owner = (await makeOwner(server)).token;
    const container = await makeContainer(server, owner, 'Notes');
    const { key } = await makeKey(server, owner, { level: 'suggest', containers: [container] });
    await call(server, 'POST', '/v1/documents', key, { content: 'The boat is moored at the northern pier.' });
    await call(server, 'POST', '/v1/memories', key, { content: 'Prefers tea to coffee.' });
    await server.learning.drain();
    const store = () => server.services.store;
    const builtin = (await store().vectors.getModel('fast'))!;
    expect(builtin.dimensions).toBe(256);

    server = await server.restart({
      env: {
        ENGRAM_EMBEDDER: 'openai',
        ENGRAM_EMBED_URL: `http://127.0.0.1:${endpoint.port}`,
        ENGRAM_EMBED_MODEL: 'letters',
      },
    });
    expect(await store().vectors.getModel('fast')).toMatchObject({ dimensions: 26 });
    expect(await store().jobs.hasPending('reembed')).toBe(true);
    expect(await store().passages.listWithoutVectors('fast', 0, 10)).toHaveLength(2);
    // While the vectors are made again, search answers by keyword.
    const during = await call(server, 'POST', '/v1/search', key, { q: 'northern pier' });
    expect(during.body.results.map((r: { content: string }) => r.content)).toEqual([
      'The boat is moored at the northern pier.',
    ]);

    await server.learning.drain();
    expect(await store().jobs.hasPending('reembed')).toBe(false);
    expect(await store().passages.listWithoutVectors('fast', 0, 10)).toHaveLength(0);
    expect(seen).toContain('The boat is moored at the northern pier.');
    expect(seen).toContain('Prefers tea to coffee.');
    const after = await call(server, 'POST', '/v1/search', key, { q: 'northern pier' });
    expect(after.body.results[0].content).toContain('northern pier');
    // Letter-count vectors of any two English texts are close: the fact now comes in by vector.
    expect(after.body.results.map((r: { content: string }) => r.content)).toContain('Prefers tea to coffee.');
    await server.close();
  });

  it('embeds what a server learned without an embedder once one is back, and only that', async () => {
    const letters = {
      ENGRAM_EMBEDDER: 'openai',
      ENGRAM_EMBED_URL: `http://127.0.0.1:${endpoint.port}`,
      ENGRAM_EMBED_MODEL: 'letters',
    };
    let server = await startTestServer({ env: letters });
    const owner = (await makeOwner(server)).token;
    const container = await makeContainer(server, owner, 'Notes');
    const { key } = await makeKey(server, owner, { level: 'suggest', containers: [container] });
    const store = () => server.services.store;
    const before = 'The kettle whistles on the old stove.';
    const without = 'Grandmother keeps her bees behind the orchard wall.';
    await call(server, 'POST', '/v1/documents', key, { content: before });
    await server.learning.drain();

    server = await server.restart({ env: { ENGRAM_EMBEDDER: 'none' } });
    await call(server, 'POST', '/v1/documents', key, { content: without });
    await server.learning.drain();
    expect((await store().passages.listWithoutVectors('fast', 0, 10)).map((p) => p.content)).toEqual([without]);

    server = await server.restart({ env: letters });
    expect(await store().jobs.hasPending('reembed')).toBe(true);
    await server.learning.drain();
    expect(await store().passages.listWithoutVectors('fast', 0, 10)).toEqual([]);
    // The vectors made before were kept: only the passage learned without an embedder was embedded.
    expect(seen.filter((text) => text === before)).toHaveLength(1);
    expect(seen.filter((text) => text === without)).toHaveLength(1);
    // And no further start embeds anything again.
    server = await server.restart({ env: letters });
    expect(await store().jobs.hasPending('reembed')).toBe(false);
    await server.close();
  });
});
