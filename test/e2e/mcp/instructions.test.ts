/**
 * The server's `instructions`, as the official SDK client receives them, name only tools the caller
 * holds: a consent token (list_containers, search_memories, get_profile) is never told to call
 * memory_rules, which it cannot; developer keys and shares are told of their own tools.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { call, startTestServer, type TestServer } from '../../helpers/server';
import { connect, ownerWithBrowser, type Owner } from '../../oauth/helpers';
import { connectMcp, toolNames } from './mcp-client';

let server: TestServer;
let owner: Owner;

beforeAll(async () => {
  server = await startTestServer();
  owner = await ownerWithBrowser(server, ['work']);
});
afterAll(async () => {
  await server.close();
});

/** The tool names an instruction text mentions (snake_case words of two parts or more). */
const toolsNamed = (text: string) => [...new Set(text.match(/\b[a-z]+(?:_[a-z]+)+\b/g) ?? [])];

/** Connects with the token; its instructions and its tools/list. */
async function seenBy(token: string): Promise<{ instructions: string; tools: string[] }> {
  const session = await connectMcp(server, token);
  const seen = { instructions: session.client.getInstructions() ?? '', tools: await toolNames(session) };
  await session.close();
  return seen;
}

describe('instructions name only the tools the caller holds', () => {
  for (const profile of [false, true]) {
    it(`tells a consent token ${profile ? 'with' : 'without'} the profile tick of its own tools, never memory_rules`, async () => {
      const { access_token } = await connect(server, owner, { containers: [owner.containers.work!], profile });
      const { instructions, tools } = await seenBy(access_token);
      expect(tools).not.toContain('memory_rules');
      expect(instructions).not.toContain('memory_rules');
      expect(toolsNamed(instructions).length).toBeGreaterThan(0);
      for (const tool of toolsNamed(instructions)) expect(tools).toContain(tool);
      expect(instructions).toContain('search_memories');
    });
  }

  it('tells a developer key to call memory_rules first, and of nothing it does not hold', async () => {
    const res = await call(server, 'POST', '/v1/api-keys', owner.token, {
      name: 'reader',
      level: 'read',
      containers: [owner.containers.work],
    });
    const { instructions, tools } = await seenBy(res.body.key);
    expect(instructions).toContain('Call memory_rules first');
    for (const tool of toolsNamed(instructions)) expect(tools).toContain(tool);
  });

  it('tells an agent share of ask_agent alone', async () => {
    const res = await call(server, 'POST', '/v1/shares', owner.token, {
      kind: 'agent_share',
      name: 'Work agent',
      containers: [owner.containers.work],
    });
    expect(res.status).toBe(201);
    const { instructions, tools } = await seenBy(res.body.token);
    expect(tools).toEqual(['ask_agent']);
    expect(toolsNamed(instructions)).toEqual(['ask_agent']);
  });
});
