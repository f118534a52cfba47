/**
 * A small OpenAI-compatible chat-completions endpoint over llama.cpp (through node-llama-cpp), for
 * running Engram against a real local model without a llama.cpp server build: POST
 * /v1/chat/completions with `response_format` (`json_schema`, turned into a grammar as llama.cpp's
 * server does; `json_object`; or none), `max_tokens` and `temperature`, one request at a time as a
 * one-slot server; GET /stats gives what it did (tokens, seconds, answers that are valid JSON).
 * node-llama-cpp and the model are not the project's dependencies: they live in a scratch folder
 * (docs/models.md, "Trying a tiny model here"), named by --llama and --model.
 *
 *   bun bench/llama-endpoint.ts --llama DIR --model FILE.gguf [--port 8080] [--threads 1]
 *     [--context 4096] [--refuse-schema]
 *
 * --refuse-schema answers `json_schema` with 400, as servers that do not take one do.
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    llama: { type: 'string' },
    model: { type: 'string' },
    port: { type: 'string', default: '8080' },
    threads: { type: 'string', default: '1' },
    context: { type: 'string', default: '4096' },
    'refuse-schema': { type: 'boolean', default: false },
  },
});
if (!values.llama || !values.model) {
  console.error('usage: bun bench/llama-endpoint.ts --llama DIR --model FILE.gguf [--port 8080] [--threads 1]');
  process.exit(2);
}

interface Message {
  role: 'system' | 'user' | 'assistant';
  content: string;
}
interface ChatRequest {
  messages: Message[];
  max_tokens?: number;
  temperature?: number;
  response_format?: { type: string; json_schema?: { schema: Record<string, unknown> } };
}

// Loaded from the scratch folder by path: not a dependency of the project.
const llamaCpp = await import(join(values.llama, 'node_modules/node-llama-cpp/dist/index.js'));
const llama = await llamaCpp.getLlama({ gpu: false, build: 'never' });
const model = await llama.loadModel({ modelPath: values.model });
const context = await model.createContext({ contextSize: Number(values.context), threads: Number(values.threads) });
const sequence = context.getSequence();
const grammars = new Map<string, unknown>();

const stats = {
  requests: 0,
  refused: 0,
  promptTokens: 0,
  completionTokens: 0,
  seconds: 0,
  /** Answers (not counting Engram's check) that parse as JSON and hold a `facts` list, per format asked. */
  answers: {} as Record<string, { total: number; json: number; shaped: number; cut: number }>,
};

/**
 * JSON Schema as llama.cpp's server turns it into a grammar, in the subset node-llama-cpp's grammar
 * takes: `anyOf` is its `oneOf`, an integer bounded on both sides is the list of its values, and
 * keywords a grammar cannot hold (bounds, `additionalProperties`, `required`: every property is
 * written) are dropped.
 */
function grammarSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(grammarSchema);
  if (!schema || typeof schema !== 'object') return schema;
  const s = schema as Record<string, unknown>;
  if (s.type === 'integer' && typeof s.minimum === 'number' && typeof s.maximum === 'number')
    return { enum: Array.from({ length: s.maximum - s.minimum + 1 }, (_, i) => (s.minimum as number) + i) };
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(s)) {
    if (['minimum', 'maximum', 'additionalProperties', 'required', '$schema', 'default'].includes(key)) continue;
    out[key === 'anyOf' ? 'oneOf' : key] =
      key === 'properties'
        ? Object.fromEntries(Object.entries(value as object).map(([k, v]) => [k, grammarSchema(v)]))
        : grammarSchema(value);
  }
  return out;
}

async function grammarFor(format: ChatRequest['response_format']): Promise<unknown> {
  if (format?.type === 'json_object') return llama.getGrammarFor('json');
  if (format?.type !== 'json_schema' || !format.json_schema) return undefined;
  const key = JSON.stringify(format.json_schema.schema);
  if (!grammars.has(key))
    grammars.set(key, await llama.createGrammarForJsonSchema(grammarSchema(format.json_schema.schema)));
  return grammars.get(key);
}

function tally(format: string, text: string, cut: boolean): void {
  stats.answers[format] ??= { total: 0, json: 0, shaped: 0, cut: 0 };
  const a = stats.answers[format];
  a.total++;
  if (cut) a.cut++;
  try {
    const json = JSON.parse(text) as { facts?: unknown };
    a.json++;
    if (Array.isArray(json.facts)) a.shaped++;
  } catch {}
}

async function complete(req: ChatRequest): Promise<Response> {
  const format = req.response_format?.type ?? 'text';
  const grammar = await grammarFor(req.response_format);
  const system = req.messages
    .filter((m) => m.role === 'system')
    .map((m) => m.content)
    .join('\n\n');
  const turns = req.messages.filter((m) => m.role !== 'system');
  const last = turns.pop();
  if (last?.role !== 'user')
    return Response.json({ error: { message: "the last message must be the user's" } }, { status: 400 });
  const session = new llamaCpp.LlamaChatSession({ contextSequence: sequence, autoDisposeSequence: false });
  const inBefore = sequence.tokenMeter.usedInputTokens;
  const outBefore = sequence.tokenMeter.usedOutputTokens;
  const started = performance.now();
  try {
    // Set as history, not as the session's system prompt, which a model without a system role
    // (Gemma) would drop: its chat template puts the system text before the first user message.
    session.setChatHistory([
      ...(system ? [{ type: 'system', text: system }] : []),
      ...turns.map((m) =>
        m.role === 'user' ? { type: 'user', text: m.content } : { type: 'model', response: [m.content] },
      ),
    ]);
    const answer = await session.promptWithMeta(last.content, {
      grammar,
      maxTokens: req.max_tokens,
      temperature: req.temperature ?? 0,
    });
    const cut = answer.stopReason === 'maxTokens';
    stats.requests++;
    stats.seconds += (performance.now() - started) / 1000;
    const promptTokens = sequence.tokenMeter.usedInputTokens - inBefore;
    const completionTokens = sequence.tokenMeter.usedOutputTokens - outBefore;
    stats.promptTokens += promptTokens;
    stats.completionTokens += completionTokens;
    // Engram's check at start is no answer to count.
    if (!last.content.startsWith('Reply with the JSON object {"ok": true}')) tally(format, answer.responseText, cut);
    return Response.json({
      id: `cmpl-${stats.requests}`,
      object: 'chat.completion',
      model: 'local',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: answer.responseText },
          finish_reason: cut ? 'length' : 'stop',
        },
      ],
      usage: {
        prompt_tokens: promptTokens,
        completion_tokens: completionTokens,
        total_tokens: promptTokens + completionTokens,
      },
    });
  } finally {
    session.dispose({ disposeSequence: false });
    await sequence.clearHistory();
  }
}

// One slot: requests wait their turn, as llama.cpp's server with one slot has them.
let slot: Promise<unknown> = Promise.resolve();
const server = Bun.serve({
  hostname: '127.0.0.1',
  port: Number(values.port),
  idleTimeout: 0,
  async fetch(req) {
    const path = new URL(req.url).pathname;
    if (path === '/stats') {
      const { user, system } = process.cpuUsage();
      return Response.json({ ...stats, cpuSeconds: (user + system) / 1e6 });
    }
    if (path !== '/v1/chat/completions' || req.method !== 'POST') return new Response('not found', { status: 404 });
    const body = (await req.json()) as ChatRequest;
    if (values['refuse-schema'] && body.response_format?.type === 'json_schema') {
      stats.refused++;
      return Response.json(
        { error: { message: "'response_format.type' must be 'json_object' or 'text'" } },
        { status: 400 },
      );
    }
    const turn = slot.then(() => complete(body));
    slot = turn.catch(() => {});
    return turn.catch((err) => Response.json({ error: { message: String(err) } }, { status: 500 }));
  },
});
console.error(`llama endpoint on http://127.0.0.1:${server.port}/v1 (${values.model}, ${values.threads} thread(s))`);
