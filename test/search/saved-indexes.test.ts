/**
 * Search indexes saved (at a clean stop, or while the server rests) and read back at the next start:
 * the restored index answers exactly as the one saved and takes changes the same way; a copy saved
 * with another token, for other dimensions, or cut short is refused. The engine trusts a saved copy
 * only while the store holds its token: vectors added, removed or changed by any program drop it,
 * the engine's own first change removes the copy, and nothing is saved by an index that missed a
 * stored vector or on a full disk.
 */
import { Database } from 'bun:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../../src/config';
import { loadStaticEmbedder } from '../../src/embedders/static-embedder';
import { createLogger } from '../../src/log';
import type { Store } from '../../src/storage/store';
import { FOLLOW_MS } from '../../src/search/removal-follower';
import { SearchEngine } from '../../src/search/search-engine';
import { VectorIndex } from '../../src/search/vector-index';
import { quantize } from '../../src/storage/stored-vector';
import { documentText, seeded } from '../../bench/lib/corpus';
import { ACCOUNT, CONTAINER, type LearnedCorpus, learnCorpus } from '../../bench/lib/learned-corpus';
import { scratchDir } from '../helpers/scratch';

const dims = 64;
const random = seeded(11);
function unit(): Float32Array {
  const v = Float32Array.from({ length: dims }, () => random() - 0.5);
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
}

describe('a vector index saved and restored', () => {
  /** An index of 2,000 passages of 1–3 units in two containers, some replaced and some removed. */
  function built(dir: string): { index: VectorIndex; vectors: Float32Array[] } {
    const index = new VectorIndex(dims, join(dir, 'rows'));
    const vectors: Float32Array[] = [];
    for (let id = 1; id <= 2000; id++) {
      const units = Array.from({ length: 1 + (id % 3) }, unit);
      vectors[id] = units[0]!;
      index.add(id, id % 4 === 0 ? 'other' : 'mine', units.map(quantize));
    }
    for (let id = 10; id <= 2000; id += 50) index.remove(id);
    for (let id = 7; id <= 2000; id += 90) index.add(id, id % 4 === 0 ? 'other' : 'mine', [quantize(vectors[id]!)]);
    return { index, vectors };
  }
  const answers = (index: VectorIndex, queries: Float32Array[]) => queries.map((q) => index.search(q, ['mine'], 10));

  it('answers as the saved index did, and takes changes as it would have', () => {
    const dir = scratchDir();
    const { index, vectors } = built(dir);
    index.save(join(dir, 'state'), 'token-1');
    // The restored index gets a copy of the rows, so that each can be changed on its own.
    const copy = scratchDir();
    copyFileSync(join(dir, 'rows'), join(copy, 'rows'));
    const restored = VectorIndex.restore(dims, join(copy, 'rows'), join(dir, 'state'), 'token-1')!;
    expect(restored).not.toBeNull();
    expect([restored.count, restored.units]).toEqual([index.count, index.units]);
    const queries = [...vectors.slice(1, 40), ...Array.from({ length: 20 }, unit)];
    expect(answers(restored, queries)).toEqual(answers(index, queries));
    expect(restored.search(vectors[10]!, ['mine', 'other'], 1)[0]!.passageId).not.toBe(10);

    // New passages after the saved ones, a new container, and removals up to a compaction.
    const added = Array.from({ length: 200 }, () => [quantize(unit()), quantize(unit())]);
    for (const target of [index, restored]) {
      for (const [i, units] of added.entries()) target.add(2001 + i, 'third', units);
      for (let id = 1; id <= 1500; id++) target.remove(id);
    }
    const later = [...vectors.slice(1500, 1540), ...Array.from({ length: 20 }, unit)];
    expect(answers(restored, later)).toEqual(answers(index, later));
    expect(restored.search(later[0]!, ['third'], 5)).toEqual(index.search(later[0]!, ['third'], 5));
    index.close();
    restored.close();
  });

  it('refuses a copy saved with another token, for other dimensions, or cut short', () => {
    const dir = scratchDir();
    const { index } = built(dir);
    const state = join(dir, 'state');
    index.save(state, 'token-1');
    index.close();
    expect(VectorIndex.restore(dims, join(dir, 'rows'), state, 'token-2')).toBeNull();
    expect(VectorIndex.restore(dims * 2, join(dir, 'rows'), state, 'token-1')).toBeNull();
    expect(VectorIndex.restore(dims, join(dir, 'rows'), join(dir, 'missing'), 'token-1')).toBeNull();
    const whole = readFileSync(state);
    truncateSync(state, whole.length - 100);
    expect(VectorIndex.restore(dims, join(dir, 'rows'), state, 'token-1')).toBeNull();
    writeFileSync(state, 'not a saved index');
    expect(VectorIndex.restore(dims, join(dir, 'rows'), state, 'token-1')).toBeNull();
    writeFileSync(state, whole);
    truncateSync(join(dir, 'rows'), 1000);
    expect(VectorIndex.restore(dims, join(dir, 'rows'), state, 'token-1')).toBeNull();
  });
});

describe('the search engine across a stop and a start', () => {
  const fast = loadStaticEmbedder();
  const QUERY = 'grandma beekeeping';
  const LAST = 'Grandmother keeps her bees behind the orchard wall.';
  let corpus: LearnedCorpus;
  let passages: number;
  beforeAll(async () => {
    const text = seeded(3);
    const documents = Array.from({ length: 300 }, (_, i) => ({ key: `d${i}`, text: documentText(text, 160) }));
    documents.push({ key: 'last', text: LAST });
    corpus = await learnCorpus(documents, { fast, strong: null });
    passages = await corpus.store.passages.count();
  }, 60_000);
  afterAll(() => corpus.close());

  const container = { ...CONTAINER };
  const open = (dir: string, lines: string[] = [], saveAfterMs = 0) =>
    SearchEngine.open({
      store: corpus.store,
      log: createLogger('info', (l) => lines.push(l)),
      embedders: { fast, strong: null },
      dataDir: dir,
      saveAfterMs,
    });
  const messages = (lines: string[]) => lines.map((l) => (JSON.parse(l) as { msg: string }).msg);
  const search = async (engine: SearchEngine, q = QUERY) =>
    (await engine.search(ACCOUNT, [container], q, 5, 'tr_test')).hits;
  const state = (dir: string) => join(dir, 'vector-index', 'fast.state');
  const token = () => corpus.store.settings.get('vector_snapshot');
  const READ = 'search indexes read as last saved';
  /** A passage's stored fast vectors, as the learning thread would store them again. */
  const vectorsOf = async (passageId: number) => (await corpus.store.vectors.get('fast', [passageId]))[0]!.vectors;
  const again = async (passageId: number) =>
    (await vectorsOf(passageId)).map((v) => Float32Array.from(v, (x) => x / 127));
  function removeVectors(passageId: number): void {
    const db = new Database(join(corpus.dir, 'engram.db'));
    try {
      db.run("DELETE FROM passage_vectors WHERE passage_id = ? AND tier = 'fast'", [passageId]);
    } finally {
      db.close();
    }
  }
  async function until(done: () => boolean | Promise<boolean>): Promise<void> {
    for (const deadline = Date.now() + 10_000; !(await done()); await Bun.sleep(20))
      expect(Date.now()).toBeLessThan(deadline);
  }

  it('reads the index saved at a clean stop, whole at once, and keeps the copy while nothing changes', async () => {
    const dir = scratchDir();
    const first = await open(dir);
    const before = await search(first);
    expect(before[0]!.content).toBe(LAST);
    await first.close();
    expect(existsSync(state(dir))).toBe(true);
    const saved = await token();

    const lines: string[] = [];
    const second = await open(dir, lines);
    expect(second.indexes.figures().fast).toBe(passages);
    expect(messages(lines)).toContain(READ);
    expect(await search(second)).toEqual(before);
    // Nothing changed: a server killed now reads the same copy at its next start, and a stop writes nothing.
    const killed = await open(dir);
    expect(await search(killed)).toEqual(before);
    const written = statSync(state(dir)).mtimeMs;
    for (const e of [killed, second]) await e.close();
    expect(await token()).toBe(saved);
    expect(statSync(state(dir)).mtimeMs).toBe(written);
  });

  it('saves while running once the index rests, and removes the copy at its first change', async () => {
    const dir = scratchDir();
    // The store is shared with the tests before: its token may be theirs. This engine's save writes
    // the copy first and then records its own token, so the copy is whole once the token changes.
    const before = await token();
    const engine = await open(dir, [], 100);
    await search(engine);
    // Rebuilt: saved a second after the last search (the index rests from its load on).
    await until(async () => existsSync(state(dir)) && ![null, before].includes(await token()));
    const saved = await token();
    const killed: string[] = [];
    const restored = await open(dir, killed);
    expect(messages(killed)).toContain(READ);
    expect(await search(restored)).toEqual(await search(engine));
    await restored.close();

    // A passage learned again, as the learning thread does: the store drops the token, the engine the copy.
    const first = (await corpus.store.vectors.list('fast', 0, 1))[0]!.passageId;
    await corpus.store.vectors.put('fast', [{ passageId: first, vectors: await again(first) }]);
    expect(await token()).toBeNull();
    await engine.indexes.indexPassages('fast', [first]);
    expect(existsSync(state(dir))).toBe(false);
    // Saved again, ten rests (a second here) after the last save.
    await until(async () => existsSync(state(dir)) && (await token()) !== null);
    expect(await token()).not.toBe(saved);
    const next: string[] = [];
    const after = await open(dir, next);
    expect(messages(next)).toContain(READ);
    expect(after.indexes.figures().fast).toBe(passages);
    for (const e of [after, engine]) await e.close();
  });

  it('records no token for a copy written while another connection committed, and saves again later', async () => {
    const dir = scratchDir();
    const lines: string[] = [];
    // The learning thread's connection commits while the first save counts: what it wrote may be on
    // its way to the index, so that copy must not be trusted.
    const other = new Database(join(corpus.dir, 'engram.db'));
    let commits = 0;
    const real = corpus.store;
    const store: Store = {
      ...real,
      vectors: {
        ...real.vectors,
        countUnits: (...args) => {
          if (commits-- > 0)
            other.run(
              "INSERT INTO settings (key, value) VALUES ('unrelated', '1') ON CONFLICT (key) DO UPDATE SET value = value + 1",
            );
          return real.vectors.countUnits(...args);
        },
      },
    };
    const before = await token();
    const engine = await SearchEngine.open({
      store,
      log: createLogger('info', (l) => lines.push(l)),
      embedders: { fast, strong: null },
      dataDir: dir,
      saveAfterMs: 100,
    });
    commits = 1;
    try {
      await until(() =>
        messages(lines).some((m) => m.startsWith('the search indexes were not saved: the store changed')),
      );
      expect(await token()).toBe(before);
      await until(async () => (await token()) !== before);
      expect(messages(lines)).toContain('search indexes saved');
      const next: string[] = [];
      await (await open(dir, next)).close();
      expect(messages(next)).toContain(READ);
    } finally {
      other.close();
      await engine.close();
    }
  }, 15_000);

  it('rebuilds once the learning has stored vectors since the save', async () => {
    const dir = scratchDir();
    const last = (await corpus.store.vectors.list('fast', 0, passages)).at(-1)!.passageId;
    const vectors = await again(last);
    removeVectors(last);
    const first = await open(dir);
    expect(first.indexes.figures().fast).toBe(passages - 1);
    await first.close();
    expect(await token()).not.toBeNull();
    // An insert drops the token as removals and changes do.
    await corpus.store.vectors.put('fast', [{ passageId: last, vectors }]);
    expect(await token()).toBeNull();
    const lines: string[] = [];
    const second = await open(dir, lines);
    expect(messages(lines)).not.toContain(READ);
    expect(second.indexes.figures().fast).toBe(passages);
    expect((await search(second))[0]!.content).toBe(LAST);
    await second.close();
  });

  it('rebuilds once any program has removed stored vectors since the stop', async () => {
    const dir = scratchDir();
    const first = await open(dir);
    await first.close();
    // Another program forgets the best passage: the cascade to its vectors drops the token.
    const best = (await corpus.store.vectors.list('fast', 0, passages)).at(-1)!;
    const db = new Database(join(corpus.dir, 'engram.db'));
    db.run('PRAGMA foreign_keys = ON');
    try {
      db.run('DELETE FROM passages WHERE id = ?', [best.passageId]);
    } finally {
      db.close();
    }
    const lines: string[] = [];
    const second = await open(dir, lines);
    try {
      expect(messages(lines)).not.toContain('search indexes read as last saved');
      expect((await search(second)).map((r) => r.content)).not.toContain(LAST);
      expect(second.indexes.figures().fast).toBe(passages - 1);
    } finally {
      await second.close();
    }
  });

  it("leaves the record of deleted passages to the server: a command's engine has no index to drop them from", async () => {
    const removals = corpus.store.removals!;
    const pending = async () => (await removals.since(0, 1_000_000)).map((r) => r.passageId);
    const [victim] = (await corpus.store.vectors.list('fast', 0, 1)).map((v) => v.passageId);
    const db = new Database(join(corpus.dir, 'engram.db'));
    db.run('PRAGMA foreign_keys = ON');
    try {
      db.run('DELETE FROM passages WHERE id = ?', [victim!]);
    } finally {
      db.close();
    }
    expect(await pending()).toContain(victim!);
    // As `engram import` beside the server opens its services: no embedders, keyword search only.
    const command = await SearchEngine.open({
      store: corpus.store,
      log: createLogger('silent'),
      embedders: { fast: null, strong: null },
      dataDir: scratchDir(),
    });
    await Bun.sleep(FOLLOW_MS * 1.5);
    await command.close();
    expect(await pending()).toContain(victim!);
    // The server, which has the indexes, drops the passage and then the record.
    const server = await open(scratchDir());
    await until(async () => !(await pending()).includes(victim!));
    await server.close();
  });

  // Needs root to mount a tmpfs.
  const full = join(scratchDir(), 'disk');
  mkdirSync(full);
  const mounted = Bun.spawnSync(['mount', '-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', full]).exitCode === 0;
  afterAll(() => void (mounted && Bun.spawnSync(['umount', full])));
  it.skipIf(!mounted)(
    'saves nothing on a full disk, says so, leaves no part of a copy, and the next start rebuilds',
    async () => {
      const lines: string[] = [];
      // The rows (~300 KiB) do not fit: most stay in memory, and search goes on as before.
      const engine = await open(full, lines);
      const first = (await corpus.store.vectors.list('fast', 0, 1))[0]!.passageId;
      const q = (await corpus.store.passages.getHits(ACCOUNT, [first]))[0]!.content.split(' ').slice(0, 8).join(' ');
      const before = await search(engine, q);
      expect(before[0]!.content.startsWith(q)).toBe(true);
      await engine.close();
      expect(messages(lines)).toContain('the search indexes were not saved; the next start rebuilds them');
      expect(readdirSync(join(full, 'vector-index'))).toEqual(['fast.rows']);
      const next: string[] = [];
      const again = await open(full, next);
      expect(messages(next)).not.toContain('search indexes read as last saved');
      expect(await search(again, q)).toEqual(before);
      await again.close();
    },
  );

  it('saves nothing when its index missed a stored vector, and says so', async () => {
    const dir = scratchDir();
    const lines: string[] = [];
    const engine = await open(dir, lines);
    await search(engine);
    // Stored without telling the engine, as if a notice from the learning thread were lost.
    const [vector] = fast.embed(['a passage the index never heard of']);
    const first = (await corpus.store.vectors.list('fast', 0, 1))[0]!;
    await corpus.store.vectors.put('fast', [
      { passageId: first.passageId, vectors: [...first.vectors.map(() => vector!), vector!] },
    ]);
    await engine.close();
    expect(messages(lines)).toContain('the search indexes were not saved; the next start rebuilds them');
    expect(existsSync(state(dir))).toBe(false);
    expect(await token()).toBeNull();
  });
});

describe('ENGRAM_INDEX_SAVE_SECONDS', () => {
  it('is 60 by default, may be 0 (saved at a clean stop only), and refuses what is not a whole number of seconds', () => {
    expect(loadConfig({}).indexSaveSeconds).toBe(60);
    expect(loadConfig({ ENGRAM_INDEX_SAVE_SECONDS: '0' }).indexSaveSeconds).toBe(0);
    for (const bad of ['-1', '1.5', 'soon', '86401'])
      expect(() => loadConfig({ ENGRAM_INDEX_SAVE_SECONDS: bad })).toThrow(ConfigError);
  });
});
