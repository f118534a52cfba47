/**
 * A data directory with an account, one container, a Full-access key and `passages` passages of
 * generated text, learned through the real path (split, embed, store) in this process, and with
 * `refine` and the `builtin` embedder refined by the strong tier to the end (the Refiner, as the
 * server's worker runs it; else a server started on it refines in the background). With a kept
 * directory the seeding is done once and its key remembered in `bench-key`.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../../src/config';
import { newId } from '../../src/ids';
import { createEmbedders } from '../../src/embedders/create-embedders';
import { embedPassages } from '../../src/learning/embedding-units';
import { Refiner } from '../../src/learning/refiner';
import { splitPassages } from '../../src/learning/split-passages';
import { completeDocument, insertDocument, useEmbeddingModels } from '../../src/learning/queue';
import { openStore } from '../../src/storage/open-store';
import { documentText, seeded } from './corpus';
import { setUp } from './engram-process';
import { queuedDocument } from './queued-document';

/** Documents seeded in one commit. */
const SEED_BATCH = 100;

export interface Seeded {
  key: string;
  accountId: string;
  containerId: string;
  passages: number;
  /** Seconds spent seeding; 0 when a kept directory was reused. */
  seconds: number;
  /** Seconds the strong tier took to refine every passage (0 without one, or when reused). */
  refineSeconds: number;
  reused: boolean;
}

/** With `databaseUrl`, the store is that PostgreSQL database (the data directory then holds only the key's file). */
export async function seedStore(
  dir: string,
  passages: number,
  embedderChoice: string,
  keep: boolean,
  refine = false,
  databaseUrl?: string,
): Promise<Seeded> {
  const keyFile = join(dir, 'bench-key');
  const reused = keep && existsSync(keyFile);
  const env: Record<string, string> = databaseUrl ? { ENGRAM_DATABASE_URL: databaseUrl } : {};
  const key = reused ? (await Bun.file(keyFile).text()).trim() : setUp(dir, env).key;
  const config = loadConfig({ ...process.env, ENGRAM_EMBEDDER: embedderChoice, ENGRAM_DATA_DIR: dir, ...env });
  const { store } = await openStore(config, Date.now());
  const embedders = await createEmbedders(config);
  const embedder = embedders.fast;
  await useEmbeddingModels(store, embedders, Date.now());
  const [account] = await store.accounts.list();
  const [container] = await store.containers.list(account!.id);
  const random = seeded(42);
  const started = performance.now();
  let made = reused ? passages : 0;
  while (made < passages) {
    // A hundred documents a commit, each learned as the worker learns one (its own savepoint): a
    // durable commit each cost about as much as the rest of the seeding. Nothing else uses the
    // store meanwhile, so the transaction may stay open while the embedder runs.
    await store.transaction(async (tx) => {
      for (let i = 0; i < SEED_BATCH && made < passages; i++) {
        const text = documentText(random, 1024);
        const now = Date.now();
        await insertDocument(
          tx,
          queuedDocument({ id: newId('doc'), accountId: account!.id, containerId: container!.id, content: text }, now),
        );
        const job = (await tx.jobs.claim(now, 1))[0]!;
        const parts = splitPassages(text, null);
        const vectors = embedder ? await embedPassages(embedder, parts, 'fast') : null;
        await completeDocument(tx, job, parts, vectors, now);
        made += parts.length;
      }
    });
  }
  const learnedAt = performance.now();
  let refineSeconds = 0;
  if (refine && embedders.strong && !reused) {
    const refiner = new Refiner(store, embedders.strong, () => {});
    while ((await refiner.step()) > 0);
    refineSeconds = (performance.now() - learnedAt) / 1000;
  }
  await store.close();
  // Statements drizzle prepared keep the connection open until collected: closed now, the server
  // started next is the store's only connection (and its stop leaves no side files to sweep).
  Bun.gc(true);
  if (keep) await Bun.write(keyFile, key);
  return {
    key,
    accountId: account!.id,
    containerId: container!.id,
    passages: made,
    seconds: (learnedAt - started) / 1000,
    refineSeconds,
    reused,
  };
}
