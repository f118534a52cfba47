/**
 * A small OpenAI-compatible chat-completions server for tests: Bun.serve on 127.0.0.1, answering
 * deterministically from the test's fixture function (which may take its time, as a slow model
 * does), optionally after a delay (to hold turns open), and answering as such servers do: a server that takes no JSON schema
 * refuses `response_format: json_schema` with 400 and an error body, as vLLM and older llama.cpp
 * and Ollama servers did.
 */
export interface ChatRequest {
  model: string;
  messages: Array<{ role: string; content: string }>;
  response_format?: { type: string; json_schema?: { name: string; schema: Record<string, unknown>; strict?: boolean } };
  max_tokens?: number;
  temperature?: number;
}

/**
 * A fixture answer: JSON to put in the message content, a raw HTTP status to fail with, raw
 * message content, or raw content cut off at the token limit (`finish_reason: "length"`).
 */
export type Fixture = (
  req: ChatRequest,
) => unknown | { httpStatus: number } | { rawContent: string; cut?: boolean } | Promise<unknown>;

export interface FakeModel {
  url: string;
  requests: ChatRequest[];
  authorization: Array<string | null>;
  /** Milliseconds each answer waits before it is sent. */
  delayMs: number;
  /** Refuses `response_format: json_schema` with 400, as a server that does not take a schema. */
  refusesSchema: boolean;
  fixture: Fixture;
  /** The answer to a learner's check at start (see `isCheck`): `{"ok": true}` unless a test says otherwise. */
  check: Fixture;
  stop(): Promise<void>;
}

/** The small request a learner sends at start to check the model answers JSON. */
export const isCheck = (req: ChatRequest): boolean => req.response_format?.json_schema?.name === 'check';

export function startFakeModel(fixture: Fixture): FakeModel {
  const model: FakeModel = {
    url: '',
    requests: [],
    authorization: [],
    delayMs: 0,
    refusesSchema: false,
    fixture,
    check: () => ({ ok: true }),
    async stop() {
      await server.stop(true);
    },
  };
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    idleTimeout: 0,
    async fetch(req) {
      if (new URL(req.url).pathname !== '/v1/chat/completions') return new Response('not found', { status: 404 });
      const body = (await req.json()) as ChatRequest;
      model.requests.push(body);
      model.authorization.push(req.headers.get('Authorization'));
      if (model.refusesSchema && body.response_format?.type === 'json_schema')
        return Response.json(
          {
            error: { message: "'response_format.type' must be 'json_object' or 'text'", type: 'invalid_request_error' },
          },
          { status: 400 },
        );
      if (model.delayMs) await Bun.sleep(model.delayMs);
      const out = (await (isCheck(body) ? model.check : model.fixture)(body)) as Record<string, unknown>;
      if (out && typeof out.httpStatus === 'number')
        return new Response('{"error":"fixture"}', { status: out.httpStatus });
      const raw = out && typeof out.rawContent === 'string';
      const content = raw ? (out.rawContent as string) : JSON.stringify(out);
      return Response.json({
        id: 'cmpl-test',
        object: 'chat.completion',
        model: body.model,
        choices: [
          { index: 0, message: { role: 'assistant', content }, finish_reason: raw && out.cut ? 'length' : 'stop' },
        ],
      });
    },
  });
  model.url = `http://127.0.0.1:${server.port}/v1`;
  return model;
}

/** The passages a fact request numbers (`[n] text`, one a line): number → text. */
export const factPassages = (req: ChatRequest) =>
  [...req.messages[1]!.content.matchAll(/^\[(\d+)\] (.*)$/gm)].map((m) => ({ n: Number(m[1]), text: m[2]! }));

/**
 * A fact-extraction fixture: "My cat is Whiskers." in a passage → "Their cat is Whiskers.", cited
 * from that passage, not standing; one fact a sentence of that shape.
 */
export function sentenceFacts(req: ChatRequest) {
  const facts = factPassages(req).flatMap(({ n, text }) =>
    [...text.matchAll(/My (\w+) is (\w+)\./g)].map((m) => ({
      content: `Their ${m[1]} is ${m[2]}.`,
      passage: n,
      standing: false,
      same_as: null,
      replaces: null,
    })),
  );
  return { facts };
}

/** The numbered passages of a grounded turn's user message: number → text. */
function passagesOf(req: ChatRequest): Map<number, string> {
  const user = req.messages.find((m) => m.role === 'user')?.content ?? '';
  const out = new Map<number, string>();
  for (const m of user.matchAll(/\[(\d+)\] \([^)]*\)\n([^\n]*)/g)) out.set(Number(m[1]), m[2]!);
  return out;
}

/**
 * The grounded-answer fixture: cites every passage that mentions one of `keywords`, answering with
 * those passages joined; answered=false when none does.
 */
export function groundedFixture(keywords: string[]): Fixture {
  return (req) => {
    const cited = [...passagesOf(req)].filter(([, text]) => keywords.some((k) => text.toLowerCase().includes(k)));
    if (cited.length === 0) return { answer: 'The memory does not say.', answered: false, citations: [] };
    return { answer: cited.map(([, t]) => t).join(' '), answered: true, citations: cited.map(([n]) => n) };
  };
}
