/**
 * A small OpenAI-compatible chat-completions server for tests: Bun.serve on 127.0.0.1, answering
 * deterministically from the test's fixture function, optionally after a delay (to hold turns open).
 */
export interface ChatRequest {
  model: string;
  messages: Array<{ role: string; content: string }>;
  response_format?: unknown;
}

/** A fixture answer: JSON to put in the message content, or a raw HTTP status to fail with. */
export type Fixture = (req: ChatRequest) => unknown | { httpStatus: number } | { rawContent: string };

export interface FakeModel {
  url: string;
  requests: ChatRequest[];
  authorization: Array<string | null>;
  /** Milliseconds each answer waits before it is sent. */
  delayMs: number;
  fixture: Fixture;
  stop(): Promise<void>;
}

export function startFakeModel(fixture: Fixture): FakeModel {
  const model: FakeModel = {
    url: '',
    requests: [],
    authorization: [],
    delayMs: 0,
    fixture,
    async stop() {
      await server.stop(true);
    },
  };
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(req) {
      if (new URL(req.url).pathname !== '/v1/chat/completions') return new Response('not found', { status: 404 });
      const body = (await req.json()) as ChatRequest;
      model.requests.push(body);
      model.authorization.push(req.headers.get('Authorization'));
      if (model.delayMs) await Bun.sleep(model.delayMs);
      const out = model.fixture(body) as Record<string, unknown>;
      if (out && typeof out.httpStatus === 'number')
        return new Response('{"error":"fixture"}', { status: out.httpStatus });
      const content = out && typeof out.rawContent === 'string' ? out.rawContent : JSON.stringify(out);
      return Response.json({
        id: 'cmpl-test',
        object: 'chat.completion',
        model: body.model,
        choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
      });
    },
  });
  model.url = `http://127.0.0.1:${server.port}/v1`;
  return model;
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
