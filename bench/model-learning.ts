/**
 * Learning with a real local language model: `engram serve` (its own process, the fast embedding
 * tier) is given the turns of the generated conversations (bench/conversations) as documents, one
 * container a conversation, as fast as one client adds them, and learns them with no model, then
 * with Gemma 3 270M under llama.cpp (bench/llama-endpoint.ts, a one-slot OpenAI-compatible
 * endpoint in its own process) asked with a JSON schema, then with the same model behind a server
 * that refuses a schema (plain JSON); and, for a fair figure of searchable documents on a machine
 * whose cores the model shares, with no model while the same model answers another client beside
 * it (`busy`), and with a model configured that does not answer (`down`). It prints, for each: documents a minute searchable (every
 * document learned), documents and facts a minute out of the model within the time given, the
 * model's seconds a document, and how many of its answers were JSON of the shape asked.
 *
 * node-llama-cpp and the model live in a scratch folder, never in the project (docs/models.md,
 * "Trying a tiny model here", says how to fetch them):
 *
 *   bun bench/model-learning.ts --llama DIR --model FILE.gguf [--documents 1000] [--minutes 4]
 *     [--threads 1] [--runs none,busy,down,schema,plain]
 */
import { Database } from 'bun:sqlite';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { generateConversations, turnDocument } from './conversations/generate';
import { engram, freePort, ROOT, serve, setUp } from './lib/engram-process';

const { values } = parseArgs({
  options: {
    llama: { type: 'string' },
    model: { type: 'string' },
    documents: { type: 'string', default: '1000' },
    minutes: { type: 'string', default: '4' },
    threads: { type: 'string', default: '1' },
    runs: { type: 'string', default: 'none,busy,down,schema,plain' },
  },
});
type Run = 'none' | 'busy' | 'down' | 'schema' | 'plain';
const runs = values.runs!.split(',') as Run[];
if (runs.some((r) => r !== 'none') && (!values.llama || !values.model)) {
  console.error(
    'usage: bun bench/model-learning.ts --llama DIR --model FILE.gguf [--documents 1000] [--minutes 4] [--threads 1]',
  );
  process.exit(2);
}
const turns = generateConversations(17).turns.slice(0, Number(values.documents));
const budgetMs = Number(values.minutes) * 60_000;
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

interface Endpoint {
  url: string;
  stats(): Promise<EndpointStats>;
  stop(): Promise<void>;
}
interface EndpointStats {
  requests: number;
  refused: number;
  promptTokens: number;
  completionTokens: number;
  seconds: number;
  cpuSeconds: number;
  answers: Record<string, { total: number; json: number; shaped: number; cut: number }>;
}

/** The llama.cpp endpoint in its own process; resolves once it answers. */
async function startEndpoint(refuseSchema: boolean): Promise<Endpoint> {
  const port = freePort();
  const proc = Bun.spawn(
    [
      process.execPath,
      join(ROOT, 'bench/llama-endpoint.ts'),
      '--llama',
      values.llama!,
      '--model',
      values.model!,
      '--port',
      String(port),
      '--threads',
      values.threads!,
      ...(refuseSchema ? ['--refuse-schema'] : []),
    ],
    { stdout: 'ignore', stderr: 'ignore' },
  );
  const base = `http://127.0.0.1:${port}`;
  const stats = async () => (await (await fetch(`${base}/stats`)).json()) as EndpointStats;
  for (let i = 0; i < 600; i++) {
    if (proc.exitCode !== null) throw new Error(`the llama endpoint exited with ${proc.exitCode}`);
    if (
      await stats().then(
        () => true,
        () => false,
      )
    )
      return {
        url: `${base}/v1`,
        stats,
        async stop() {
          proc.kill();
          await proc.exited;
        },
      };
    await Bun.sleep(100);
  }
  proc.kill();
  throw new Error('the llama endpoint did not answer within 60 s');
}

interface Figures {
  run: string;
  searchableMs: number;
  engramCpu: number;
  /** CPU seconds the model's process used while the documents were made searchable; null without one. */
  modelCpu: number | null;
  extracted: number;
  failed: number;
  facts: number;
  factMs: number;
  secondsPerDocument: number | null;
  format: string | null;
  endpoint: EndpointStats | null;
}

/** Keeps the endpoint generating, as another client of the same model would, until `until` resolves. */
async function keepBusy(endpoint: Endpoint, until: Promise<unknown>): Promise<void> {
  let done = false;
  void until.finally(() => {
    done = true;
  });
  while (!done)
    await fetch(`${endpoint.url}/chat/completions`, {
      method: 'POST',
      body: JSON.stringify({
        messages: [{ role: 'user', content: 'Write a long story about a lighthouse keeper.' }],
        max_tokens: 64,
      }),
    });
}

async function measure(run: Run): Promise<Figures> {
  const dir = mkdtempSync(join(tmpdir(), 'engram-bench-model-'));
  const endpoint = run === 'none' || run === 'down' ? null : await startEndpoint(run === 'plain');
  const learns = run === 'schema' || run === 'plain';
  const env: Record<string, string> = {
    ENGRAM_EMBEDDER: 'fast',
    // A model configured where nothing answers.
    ...(run === 'down' ? { ENGRAM_MODEL_URL: `http://127.0.0.1:${freePort()}/v1`, ENGRAM_MODEL: 'down' } : {}),
    ...(endpoint && learns
      ? { ENGRAM_MODEL_URL: endpoint.url, ENGRAM_MODEL: 'gemma-3-270m', ENGRAM_MODEL_TIMEOUT_SECONDS: '600' }
      : {}),
  };
  const { key } = setUp(dir, env);
  const containers = new Map<number, string>();
  for (const conversation of new Set(turns.map((t) => t.conversation)))
    containers.set(conversation, engram(dir, ['containers', 'create', `Chat ${conversation}`], undefined, env));
  const server = await serve(dir, env);
  const db = new Database(join(dir, 'engram.db'), { readonly: true });
  const count = (sql: string) => db.query<{ n: number }, []>(sql).get()!.n;
  try {
    const cpuBefore = server.cpuSeconds();
    const modelCpuBefore = endpoint ? (await endpoint.stats()).cpuSeconds : 0;
    const searchable = Promise.withResolvers<void>();
    const busy = run === 'busy' ? keepBusy(endpoint!, searchable.promise) : null;
    const started = performance.now();
    for (const t of turns) {
      const res = await fetch(`${server.url}/v1/documents`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ container: containers.get(t.conversation), content: turnDocument(t) }),
      });
      if (res.status !== 202) throw new Error(`add answered ${res.status}`);
    }
    while (count("SELECT count(*) AS n FROM documents WHERE status = 'learned'") < turns.length) await Bun.sleep(20);
    const searchableMs = performance.now() - started;
    const engramCpu = server.cpuSeconds() - cpuBefore;
    const modelCpu = endpoint ? (await endpoint.stats()).cpuSeconds - modelCpuBefore : null;
    searchable.resolve();
    await busy;
    const factsWaiting = () =>
      count("SELECT count(*) AS n FROM jobs WHERE kind = 'extract_facts' AND state IN ('queued', 'running')");
    if (learns) while (factsWaiting() > 0 && performance.now() - started < budgetMs) await Bun.sleep(250);
    const factMs = performance.now() - started;
    const health = (await (
      await fetch(`${server.url}/healthz`, { headers: { Authorization: `Bearer ${key}` } })
    ).json()) as { learning: { model?: { seconds_per_document: number | null; format: string | null } } };
    return {
      run,
      searchableMs,
      engramCpu,
      modelCpu,
      extracted: count("SELECT count(*) AS n FROM jobs WHERE kind = 'extract_facts' AND state = 'done'"),
      failed: count("SELECT count(*) AS n FROM jobs WHERE kind = 'extract_facts' AND state = 'failed'"),
      facts: count('SELECT count(*) AS n FROM memories'),
      factMs,
      secondsPerDocument: health.learning.model?.seconds_per_document ?? null,
      format: health.learning.model?.format ?? null,
      endpoint: endpoint && learns ? await endpoint.stats() : null,
    };
  } finally {
    db.close();
    await server.stop();
    await endpoint?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

console.log(
  `${turns.length} conversation turns as documents (${new Set(turns.map((t) => t.conversation)).size} conversations); ` +
    `facts for up to ${values.minutes} min; llama.cpp on ${values.threads} thread(s); load average at start ${load()}`,
);
for (const run of runs) {
  const f = await measure(run);
  const perMin = (n: number, ms: number) => ((n * 60_000) / ms).toFixed(1);
  const title = {
    none: 'no model',
    busy: 'no model, the same model answering another client beside it',
    down: 'a model that is down',
    schema: 'with the model, JSON schema',
    plain: 'with the model, schema refused: plain JSON',
  }[run];
  console.log(`\n${title}`);
  console.log(
    `  searchable: ${turns.length} documents in ${(f.searchableMs / 1000).toFixed(1)} s = ${perMin(turns.length, f.searchableMs)} a minute (engram CPU ${f.engramCpu.toFixed(1)} s${f.modelCpu === null ? '' : `, the model's ${f.modelCpu.toFixed(1)} s`})`,
  );
  if (f.endpoint) {
    const e = f.endpoint;
    console.log(
      `  facts: ${f.extracted} documents read (${f.failed} failed for good) and ${f.facts} facts in ${(f.factMs / 1000).toFixed(0)} s = ` +
        `${perMin(f.extracted, f.factMs)} documents and ${perMin(f.facts, f.factMs)} facts a minute; ${f.secondsPerDocument} s a document lately (format ${f.format})`,
    );
    console.log(
      `  model: ${e.requests} requests (${e.refused} refused), ${(f.extracted / Math.max(1, e.requests)).toFixed(1)} documents a request, ` +
        `${(e.promptTokens / Math.max(1, e.requests)).toFixed(0)} prompt and ${(e.completionTokens / Math.max(1, e.requests)).toFixed(0)} answer tokens a request, ` +
        `${(e.seconds / Math.max(1, e.requests)).toFixed(1)} s a request (endpoint CPU ${e.cpuSeconds.toFixed(0)} s)`,
    );
    for (const [format, a] of Object.entries(e.answers))
      console.log(
        `  answers asked as ${format}: ${a.total}, of which JSON ${a.json}, with a facts list ${a.shaped}, cut at max_tokens ${a.cut}`,
      );
  }
  console.log(`  load average ${load()}`);
}
