/**
 * The learning thread's strong embedder: loaded by its first use, let go after a quiet spell, and
 * loaded again by the next use with the same vectors; never let go while it embeds.
 */
import { describe, expect, it } from 'bun:test';
import { DeferredEmbedder } from '../../src/embedders/deferred-embedder';
import { loadOnnxEmbedder, OnnxEmbedder } from '../../src/embedders/onnx-embedder';

describe('the deferred strong embedder', () => {
  it('loads on first use, releases the model after a quiet spell, and loads it again when needed', async () => {
    const identity = await OnnxEmbedder.identify();
    let loads = 0;
    const embedder = new DeferredEmbedder(
      identity,
      () => {
        loads++;
        return loadOnnxEmbedder(undefined, { knownId: identity.id });
      },
      300,
    );
    expect(embedder.holdsModel).toBe(false);
    const [first] = await embedder.embed(['The dog takes a pill for its joints.']);
    await embedder.embed(['Another sentence, right after.']);
    expect(loads).toBe(1);
    expect(embedder.holdsModel).toBe(true);

    // A long embedding is not cut short by the timer of the call before it.
    const many = Array.from({ length: 128 }, (_, i) => `sentence ${i} about the garden, the bus and the evening class`);
    const pending = embedder.embed(many);
    await Bun.sleep(350);
    expect((await pending).length).toBe(128);
    expect(loads).toBe(1);

    await Bun.sleep(500);
    expect(embedder.holdsModel).toBe(false);
    const [again] = await embedder.embed(['The dog takes a pill for its joints.']);
    expect(loads).toBe(2);
    expect([...again!]).toEqual([...first!]);
    await embedder.close();
    expect(embedder.holdsModel).toBe(false);
  }, 60_000);
});
